package gen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// neutralOverlay adds an extension retrygen does not read at the root: applied, the
// description says the same, so every message must stay where it was.
const neutralOverlay = `overlay: 1.0.0
info: {title: neutral, version: 1.0.0}
actions:
  - target: $
    update:
      x-overlay-note: applied
`

// writeOverlay writes an overlay file in a fresh folder and returns its path.
func writeOverlay(t testing.TB, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOverlayKeepsErrorPositions loads every spec of the negative corpus with and without
// an overlay that changes nothing: the messages, their files, lines and columns, are the
// same, although with the overlay kin-openapi reads text written from the tree rather
// than the file.
//
// The malformed documents of the hostile corpus too, but for one: the overlay step reads
// the document's tree before kin-openapi, which then locates the value it refuses to the
// column as well as the line.
func TestOverlayKeepsErrorPositions(t *testing.T) {
	neutral := writeOverlay(t, "neutral.yaml", neutralOverlay)
	specs, err := filepath.Glob(filepath.Join(errorsDir, "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	malformed, err := filepath.Glob("../testdata/hostile/malformed/*")
	if err != nil {
		t.Fatal(err)
	}
	sharper := map[string]string{"enum-nan.yaml": "enum-nan.yaml:8:17: malformed document: .nan has no JSON representation"}
	for _, spec := range append(specs, malformed...) {
		if strings.HasSuffix(spec, ".err") {
			continue
		}
		t.Run(filepath.Base(spec), func(t *testing.T) {
			data, err := os.ReadFile(spec)
			if err != nil {
				t.Fatal(err)
			}
			opts := LoadOptions{AllowExternalRefs: strings.HasPrefix(string(data), "# load: allow-external-refs")}
			want := loadAndPlanError(spec, opts)
			opts.Overlays = []string{neutral}
			got := loadAndPlanError(spec, opts)
			if at, ok := sharper[filepath.Base(spec)]; ok {
				delete(sharper, filepath.Base(spec))
				if !strings.Contains(got, at) {
					t.Errorf("got %q, want %q", got, at)
				}
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("messages differ with the overlay (-without +with):\n%s", diff)
			}
		})
	}
	for name := range sharper {
		t.Errorf("no spec %s", name)
	}
}

// TestOverlayKeepsClients generates every golden case, and in the slow suite (without the
// race detector) the large descriptions of the corpus, with and without an overlay that
// changes nothing: the same warnings, located alike, and the same client.
func TestOverlayKeepsClients(t *testing.T) {
	neutral := writeOverlay(t, "neutral.yaml", neutralOverlay)
	var specs []string
	for _, name := range goldenCases(t) {
		specs = append(specs, filepath.Join(goldenDir, name, "spec.yaml"))
	}
	if dir, ok := corpus.Find(); ok && longtest.HeavyOn() {
		for _, name := range []string{"stripe.yaml", "github.json", "openai.yaml", "openrouter-31.yaml",
			"dub.json", "superset.json", "squadcast-31.yaml", "swagger2-uber.yaml", "oai-tictactoe-31.yaml"} {
			specs = append(specs, filepath.Join(dir, name))
		}
	}
	for _, spec := range specs {
		t.Run(strings.TrimPrefix(spec, goldenDir+string(filepath.Separator)), func(t *testing.T) {
			opts := LoadOptions{AllowExternalRefs: strings.Contains(spec, "files")}
			want, wantWarnings := generateWith(t, spec, opts)
			opts.Overlays = []string{neutral}
			got, gotWarnings := generateWith(t, spec, opts)
			if diff := cmp.Diff(wantWarnings, gotWarnings); diff != "" {
				t.Errorf("warnings differ with the overlay (-without +with):\n%s", diff)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("the client differs with the overlay:\n%s", cmp.Diff(string(want), string(got)))
			}
		})
	}
}

// generateWith loads and generates spec, and returns the client and the warnings.
func generateWith(t *testing.T, spec string, opts LoadOptions) ([]byte, string) {
	t.Helper()
	s, err := Load(spec, opts)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	out, err := Generate(s, GenerateOptions{Package: "client"})
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	var warnings []string
	for _, w := range s.Warnings {
		warnings = append(warnings, w.Error())
	}
	return out, strings.Join(warnings, "\n")
}

// overlayPetstore is a small description for overlay tests.
const overlayPetstore = `openapi: 3.0.3
info: {title: Pets, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses: {"200": {description: ok}}
    post:
      operationId: createPet
      responses: {"201": {description: ok}}
`

// What an overlay adds is reported where the overlay wrote it, with the messages the
// same mistake written in the description would get; mistakes in the overlay file itself
// are located there too.
func TestOverlayMistakesAreLocated(t *testing.T) {
	for _, tt := range []struct {
		name, overlay string
		want          []string
	}{
		{"invalid x-retry", `overlay: 1.0.0
info: {title: t, version: "1"}
actions:
  - target: $.paths.*.post
    update:
      x-idempotency-key: true
      x-retry:
        maxAttempts: 0
`, []string{"o.yaml:8:9: POST /pets (createPet): x-retry.maxAttempts must be >= 1, got 0"}},
		{"dangling $ref", `overlay: 1.0.0
info: {title: t, version: "1"}
actions:
  - target: $.paths['/pets'].get.responses['200']
    update:
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Pet'}
`, []string{`o.yaml:8:20: unresolved $ref "#/components/schemas/Pet": nothing is defined there`}},
		{"a value kin-openapi refuses", `overlay: 1.0.0
info: {title: t, version: "1"}
actions:
  - target: $.paths['/pets']
    update:
      parameters: [{name: 7, in: query}]
`, []string{"o.yaml:6:"}},
		{"JSON overlay", `{"overlay": "1.0.0", "info": {"title": "t", "version": "1"},
 "actions": [{"target": "$.paths['/pets'].get",
              "update": {"x-retry": {"jitter": "random"}}}]}
`, []string{`o.yaml:3:38: GET /pets (listPets): x-retry.jitter must be full, equal, decorrelated or none, got "random"`}},
		{"not an overlay", overlayPetstore, []string{"o.yaml:1:1: not an overlay: it is an OpenAPI description, not an overlay of one"}},
		{"broken YAML", "overlay: 1.0.0\nactions: [\n", []string{"o.yaml:3:1: malformed overlay: "}},
		{"alias bomb", aliasBomb(), []string{"o.yaml:8:32: limit exceeded: excessive aliasing"}},
		{"a second list of actions", `overlay: 1.0.0
info: {title: t, version: "1"}
actions:
  - {target: '$.paths.*.get', update: {x-idempotent: true}}
actions:
  - {target: '$.paths.*.post', update: {x-idempotent: true}}
`, []string{`o.yaml:5:1: malformed overlay: mapping key "actions" already defined at line 3`}},
		{"a second target", `overlay: 1.0.0
info: {title: t, version: "1"}
actions:
  - target: $.paths.*.get
    target: $.paths.*.post
    update: {x-idempotent: true}
`, []string{`o.yaml:5:5: malformed overlay: mapping key "target" already defined at line 4`}},
		{"update twice", `overlay: 1.0.0
info: {title: t, version: "1"}
actions:
  - target: $.paths.*.post
    update: {x-idempotent: false}
    update: {x-idempotent: true}
`, []string{`o.yaml:6:5: malformed overlay: mapping key "update" already defined at line 5`}},
		{"a key twice in an update", `overlay: 1.0.0
info: {title: t, version: "1"}
actions:
  - target: $.paths.*.post
    update: {x-idempotent: false, x-idempotent: true}
`, []string{`o.yaml:5:35: malformed overlay: mapping key "x-idempotent" already defined at line 5`}},
		{"a key twice in JSON", `{"overlay": "1.0.0", "info": {"title": "t", "version": "1"},
 "actions": [{"target": "$.paths.*.post", "remove": true, "remove": false}]}
`, []string{`o.yaml:2:59: malformed overlay: mapping key "remove" already defined at line 2`}},
		{"removing paths", `overlay: 1.0.0
info: {title: t, version: "1"}
actions:
  - {target: '$.paths', remove: true}
`, []string{"api.yaml:1:1: #/paths: must be an object"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := filepath.Join(dir, "api.yaml")
			o := filepath.Join(dir, "o.yaml")
			for path, text := range map[string]string{spec: overlayPetstore, o: tt.overlay} {
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(spec, LoadOptions{Overlays: []string{o}})
			if err == nil {
				t.Fatal("accepted")
			}
			got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got\n%s\nwant it to hold %q", got, w)
				}
			}
		})
	}
}

// aliasBomb is an overlay whose update is a billion-laughs tree of aliases.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("overlay: 1.0.0\ninfo: {title: t, version: '1'}\nx-a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "x-a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	b.WriteString("actions:\n  - target: $.info\n    update: {x-bomb: *a8}\n")
	return b.String()
}

// A target that selects nothing is a warning, an error with Strict.
func TestOverlayTargetSelectingNothing(t *testing.T) {
	spec := writeOverlay(t, "api.yaml", overlayPetstore)
	o := writeOverlay(t, "o.yaml", `overlay: 1.0.0
info: {title: t, version: "1"}
actions:
  - target: $.paths['/dogs'].post
    update: {x-idempotent: true}
`)
	s, err := Load(spec, LoadOptions{Overlays: []string{o}})
	if err != nil {
		t.Fatal(err)
	}
	want := `o.yaml:4:13: action 1: target "$.paths['/dogs'].post" selects nothing in ` + spec + `; the action changes nothing`
	if len(s.Warnings) != 1 || !strings.HasSuffix(s.Warnings[0].Pos.String()+": "+s.Warnings[0].Msg, want) {
		t.Errorf("warnings %v, want %s", s.Warnings, want)
	}
	if _, err := Load(spec, LoadOptions{Overlays: []string{o}, Strict: true}); err == nil || !strings.Contains(err.Error(), "selects nothing") {
		t.Errorf("strict: %v", err)
	}
}

// Scalars with explicit tags, anchors, aliases and merge keys mean with an overlay that
// changes nothing what they mean without one: the same error, or the same client.
func TestOverlayKeepsWhatScalarsMean(t *testing.T) {
	neutral := writeOverlay(t, "neutral.yaml", neutralOverlay)
	op := func(lines ...string) string {
		return "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /a:\n    post:\n      operationId: createA\n" +
			"      responses: {\"200\": {description: ok}}\n      " + strings.Join(lines, "\n      ") + "\n"
	}
	for name, spec := range map[string]string{
		"int tag on flow text":    op(`x-note: !!int 1,"x-idempotent":true`),
		"float tag on flow text":  op(`x-note: !!float 1.5}, "x-idempotent": true, "x": {`),
		"bool tag on flow text":   op(`x-note: !!bool true,"x-idempotent":true`),
		"null tag on text":        op(`x-note: !!null x,"x-idempotent":true`),
		"int tag on a number":     op(`x-note: !!int 7`),
		"float tag on an int":     op(`x-note: !!float 7`),
		"str tag on a bool":       op(`x-idempotent: !!str true`),
		"bool tag on a string":    op(`x-idempotent: !!bool "true"`),
		"int tag on a quoted int": op(`x-retry: {maxAttempts: !!int "3"}`),
		"custom tag":              op(`x-note: !custom 1,"x-idempotent":true`),
		"custom tag on a mapping": op(`x-retry: !custom {maxAttempts: 3}`),
		"tagged key":              op(`!!int 1,"x-idempotent": true`),
		"timestamp":               op(`x-note: 2001-12-14t21:59:43.10-05:00`),
		"binary":                  op(`x-note: !!binary aGVsbG8=`),
		"merge key":               op(`x-base: &b {maxAttempts: 2}`, `x-retry: {<<: *b, maxDelay: 1s}`),
		"alias":                   op(`x-base: &b true`, `x-idempotent: *b`),
		"octal and hex":           op(`x-retry: {maxAttempts: 0o3}`, `x-note: [0x1F, 1_000, +5, 1e3, -0.5]`),
		"json flow":               op(`x-retry: {"maxAttempts": !!int "3", "x-note": !!int "1,\"x-idempotent\":true"}`),
		"yes and no":              op(`x-idempotent: yes`),
	} {
		t.Run(name, func(t *testing.T) {
			path := writeOverlay(t, "api.yaml", spec)
			_, err := Load(path, LoadOptions{})
			_, errWith := Load(path, LoadOptions{Overlays: []string{neutral}})
			if err != nil || errWith != nil {
				if fmt.Sprint(err) != fmt.Sprint(errWith) {
					t.Errorf("without the overlay: %v\nwith it: %v", err, errWith)
				}
				return
			}
			want, _ := generateWith(t, path, LoadOptions{})
			got, _ := generateWith(t, path, LoadOptions{Overlays: []string{neutral}})
			if !bytes.Equal(want, got) {
				t.Errorf("the client differs with the overlay:\n%s", cmp.Diff(string(want), string(got)))
			}
		})
	}
}

// What an overlay removes is gone for the $refs that name it too: a $ref to a removed
// schema, or to a removed place outside the components, is unresolved, as it is in a
// description written without it, and is located where the description wrote it.
func TestOverlayRemovesWhatARefNames(t *testing.T) {
	const spec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Status"}
  /b:
    get:
      operationId: getB
      responses:
        "200": {$ref: "#/paths/~1a/get/responses/200"}
components:
  schemas:
    Status: {type: string, enum: [on, off]}
`
	for _, tt := range []struct{ name, target, want string }{
		{"a schema", "$.components.schemas.Status", `api.yaml:12:24: unresolved $ref "#/components/schemas/Status": nothing is defined there`},
		{"a response", "$.paths['/a'].get.responses['200']", `api.yaml:17:17: unresolved $ref "#/paths/~1a/get/responses/200": nothing is defined there`},
	} {
		for _, external := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, external refs %v", tt.name, external), func(t *testing.T) {
				dir := t.TempDir()
				path, o := filepath.Join(dir, "api.yaml"), filepath.Join(dir, "o.yaml")
				for file, text := range map[string]string{path: spec,
					o: "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n  - {target: \"" + tt.target + "\", remove: true}\n"} {
					if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				_, err := Load(path, LoadOptions{Overlays: []string{o}, AllowExternalRefs: external})
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("got %v, want %s", err, tt.want)
				}
			})
		}
	}
}
