//go:build unix

package load

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/spectest"
)

// A $ref to a FIFO says which file it names, and is refused without waiting for a writer.
func TestBundleFIFONamed(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{
		"spec.yaml": `openapi: 3.0.3
info: {title: T, version: "1"}
tags:
  - {name: a, description: {$ref: "pipe.yaml#/x"}}
paths: {}
`,
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	wantErrors(t, bundleErrors(t, dir), `spec.yaml:4:29: $ref "pipe.yaml#/x": cannot read pipe.yaml: not a regular file`)
}
