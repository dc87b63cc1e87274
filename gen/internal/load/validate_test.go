package load

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/internal/longtest"
)

// findings flattens what Validate returned into sorted, distinct messages.
func findings(errs ...error) []string {
	var out []string
	for _, err := range errs {
		if me, ok := err.(openapi3.MultiError); ok {
			for _, e := range me {
				out = append(out, e.Error())
			}
		} else if err != nil {
			out = append(out, err.Error())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var validateOpts = []openapi3.ValidationOption{openapi3.EnableMultiError(), openapi3.DisableExamplesValidation()}

// validateHalves must find exactly what one Validate over the whole document finds.
func TestValidateHalvesFindsWhatValidateFinds(t *testing.T) {
	// Conflicting templates (/a/{x} and /a/{y}) stay in one half, however many paths
	// stand between them; a missing path parameter is found in either half.
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n")
	op := "    get:\n      responses: {\"200\": {description: ok}}\n"
	b.WriteString("  /a/{x}:\n    parameters: [{name: x, in: path, required: true, schema: {type: string}}]\n" + op)
	for i := range 20 {
		fmt.Fprintf(&b, "  /p%02d:\n%s", i, op)
	}
	b.WriteString("  /a/{y}:\n    parameters: [{name: y, in: path, required: true, schema: {type: string}}]\n" + op)
	b.WriteString("  /z/{missing}:\n" + op)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	whole := findings(doc.Validate(context.Background(), validateOpts...))
	if got := findings(validateHalves(doc, validateOpts...)...); !slices.Equal(got, whole) {
		t.Fatalf("halves found\n%s\nthe whole document\n%s", strings.Join(got, "\n"), strings.Join(whole, "\n"))
	}
	if len(whole) < 2 {
		t.Fatalf("the spec should have a conflict and a missing parameter, found %q", whole)
	}

}

// validateHalves finds what one Validate finds on every public spec.
func TestValidateHalvesOnSharedSpecs(t *testing.T) {
	longtest.Only(t)
	files, _ := filepath.Glob(filepath.Join(sharedSpecs, "*.*"))
	for _, f := range files {
		if strings.HasSuffix(f, ".md") || strings.Contains(f, "swagger2") {
			continue
		}
		s, err := Load(f, Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		whole := findings(s.Doc.Validate(context.Background(), validateOpts...))
		if got := findings(validateHalves(s.Doc, validateOpts...)...); !slices.Equal(got, whole) {
			t.Errorf("%s: halves found %d findings, the whole document %d", filepath.Base(f), len(got), len(whole))
		}
	}
}
