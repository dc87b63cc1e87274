// Package templates holds the text retrygen writes that is not Go code, as text/template
// files embedded in the binary: the policy report of `retrygen plan` (plan.txt.tmpl for
// the terminal, plan.md.tmpl for pull requests) and the change report of `retrygen diff`
// (diff.txt.tmpl, diff.md.tmpl).
package templates

import "embed"

// FS holds every *.tmpl file of this folder.
//
//go:embed *.tmpl
var FS embed.FS
