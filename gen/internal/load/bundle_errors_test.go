package load

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/internal/spectest"
)

// bundleErrors loads the description dir/spec.yaml, its $refs to other files followed,
// and returns its problems as "file:line:col: message", dir left out.
func bundleErrors(t *testing.T, dir string) []string {
	t.Helper()
	_, err := Load(filepath.Join(dir, "spec.yaml"), Options{AllowExternalRefs: true})
	list, ok := err.(source.ErrorList)
	if !ok {
		t.Fatalf("got %v, want a list", err)
	}
	var got []string
	for _, e := range list {
		line := e.Pos.String() + ": " + e.Msg
		got = append(got, filepath.ToSlash(strings.ReplaceAll(line, dir+string(filepath.Separator), "")))
	}
	return got
}

// wantErrors reports each of want missing from got.
func wantErrors(t *testing.T, got []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing %s in\n%s", w, strings.Join(got, "\n"))
		}
	}
}

// Several $refs to the same file that cannot be read, each written its own way, are each
// reported at their own place, quoting their own text: the file is read once, and what
// was wrong with it is told of each $ref that names it.
func TestBundleUnreadableFileReportedPerRef(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{
		"secret.yaml": "x: 1\n",
		"api/spec.yaml": `openapi: 3.0.3
info: {title: T, version: "1"}
tags:
  - {name: a, description: {$ref: "../secret.yaml#/x"}}
  - {name: b, description: {$ref: "..%2fsecret.yaml#/x"}}
  - {name: c, description: {$ref: "missing.yaml#/x"}}
  - {name: d, description: {$ref: "./missing.yaml#/x"}}
paths: {}
`,
	})
	got := bundleErrors(t, filepath.Join(dir, "api"))
	wantErrors(t, got,
		`spec.yaml:4:29: $ref to "../secret.yaml#/x" is not allowed: it is outside the spec's folder`,
		`spec.yaml:5:29: $ref to "..%2fsecret.yaml#/x" is not allowed: it is outside the spec's folder`,
		`spec.yaml:6:29: $ref "missing.yaml#/x": no such file missing.yaml`,
		`spec.yaml:7:29: $ref "./missing.yaml#/x": no such file missing.yaml`,
	)
}

// A $ref to something that is not a regular file (a folder) says which file it names.
func TestBundleNotRegularFileNamed(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{
		"spec.yaml": `openapi: 3.0.3
info: {title: T, version: "1"}
tags:
  - {name: a, description: {$ref: "models#/x"}}
paths: {}
`,
	})
	if err := os.Mkdir(filepath.Join(dir, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := bundleErrors(t, dir)
	wantErrors(t, got, `spec.yaml:4:29: $ref "models#/x": cannot read models: not a regular file`)
}

// A JSON pointer step into a list must be an index as RFC 6901 writes one: "00", "01",
// "+1" or "-0" would name the same item as "0" or "1" under another spelling, so that a
// $ref cycle spelled several ways would be written out again and again up to
// MaxInlineDepth instead of being found. Each is refused at its $ref.
func TestBundleListIndexCanonical(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{
		"spec.yaml": `openapi: 3.0.3
info: {title: T, version: "1"}
tags:
  - {name: a, description: {$ref: "l.yaml#/00"}}
  - {name: b, description: {$ref: "l.yaml#/01"}}
  - {name: c, description: {$ref: "l.yaml#/+1"}}
  - {name: d, description: {$ref: "l.yaml#/-0"}}
  - {name: e, description: {$ref: "l.yaml#/1"}}
  - {name: f, description: {$ref: "c.yaml#/0/description"}}
paths: {}
`,
		"l.yaml": "- zero\n- one\n",
		"c.yaml": "- {description: {$ref: \"#/00/description\"}}\n",
	})
	got := bundleErrors(t, dir)
	wantErrors(t, got,
		`spec.yaml:4:29: $ref "l.yaml#/00": "00" is not a list index: a JSON pointer writes one as 0, 1, 2 and so on, without leading zeros`,
		`spec.yaml:5:29: $ref "l.yaml#/01": "01" is not a list index: a JSON pointer writes one as 0, 1, 2 and so on, without leading zeros`,
		`spec.yaml:6:29: $ref "l.yaml#/+1": "+1" is not a list index: a JSON pointer writes one as 0, 1, 2 and so on, without leading zeros`,
		`spec.yaml:7:29: $ref "l.yaml#/-0": "-0" is not a list index: a JSON pointer writes one as 0, 1, 2 and so on, without leading zeros`,
		`c.yaml:1:18: $ref "#/00/description": "00" is not a list index: a JSON pointer writes one as 0, 1, 2 and so on, without leading zeros`,
	)
	if len(got) != 5 {
		t.Errorf("%d problems, want 5 (l.yaml#/1 names an item):\n%s", len(got), strings.Join(got, "\n"))
	}
}

// A discriminator mapping entry that names another file is refused at its value, as a
// $ref is, without the file being read; with -allow-external-refs, one that names a file
// that cannot be read is reported once, at its value, and left out.
func TestDiscriminatorMappingToAnotherFile(t *testing.T) {
	const spec = `openapi: 3.0.3
info: {title: T, version: "1"}
paths: {}
components:
  schemas:
    S:
      discriminator:
        propertyName: k
        mapping: {a: '#/components/schemas/A', e: '%s#/components/schemas/A'}
      oneOf: [{$ref: '#/components/schemas/A'}]
    A: {type: object, properties: {k: {type: string}}}
`
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{
		"spec.yaml":    strings.Replace(spec, "%s", "other.yaml", 1),
		"present.yaml": strings.Replace(spec, "%s", "o.yaml", 1),
		"o.yaml":       "components:\n  schemas:\n    A: {type: object, properties: {k: {type: string}}}\n",
	})
	for name, want := range map[string]string{
		"spec.yaml":    `spec.yaml:9:51: discriminator mapping: $ref "other.yaml#/components/schemas/A" names another file, which is not allowed by default`,
		"present.yaml": `present.yaml:9:51: discriminator mapping: $ref "o.yaml#/components/schemas/A" names another file, which is not allowed by default`,
	} {
		_, err := Load(filepath.Join(dir, name), Options{})
		if err == nil || !strings.Contains(err.Error(), "/"+want) || strings.Count(err.Error(), "\n\tfix") != 1 {
			t.Errorf("%s: got %v, want one error: %s", name, err, want)
		}
	}
	got := bundleErrors(t, dir)
	want := `spec.yaml:9:51: discriminator mapping: $ref "other.yaml#/components/schemas/A": no such file other.yaml`
	if len(got) != 1 || got[0] != want {
		t.Errorf("with external $refs allowed: got\n%s\nwant %s", strings.Join(got, "\n"), want)
	}
	// The loader's own error, about an entry the bundle leaves to it, is found at the
	// entry's value too.
	url := filepath.Join(dir, "url.yaml")
	spectest.WriteFiles(t, dir, map[string]string{"url.yaml": strings.Replace(spec, "%s", "https://x.example/o.yaml", 1)})
	_, err := Load(url, Options{AllowExternalRefs: true})
	if want := url + `:9:51: $ref to "https://x.example/o.yaml`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("url.yaml: got %v, want %s...", err, want)
	}
}
