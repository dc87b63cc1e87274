package load

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/internal/spectest"
	"github.com/retrygen/retrygen/internal/corpus"
)

// loadSpec writes text as name in a fresh folder and loads it.
func loadSpec(t *testing.T, name, text string) (*Spec, error) {
	t.Helper()
	return Load(spectest.Write(t, name, text), Options{})
}

func TestExternalRefInsideFolder(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{
		"api/api.yaml":         spectest.RefSpec("./schemas/pet.yaml#/Pet"),
		"api/schemas/pet.yaml": "Pet:\n  type: object\n  properties:\n    name: {type: string}\n",
	})
	spec := filepath.Join(dir, "api", "api.yaml")

	_, err := Load(spec, Options{})
	if err == nil || !strings.Contains(err.Error(), "api.yaml:13:17: GET /pets (listPets): $ref \"./schemas/pet.yaml#/Pet\" names another file") {
		t.Errorf("default: got %v, want the $ref refused at api.yaml:13:17", err)
	}

	s, err := Load(spec, Options{AllowExternalRefs: true})
	if err != nil {
		t.Fatalf("allowed: %v", err)
	}
	schema := s.Doc.Paths.Value("/pets").Get.Responses.Value("200").Value.Content["application/json"].Schema.Value
	if schema == nil || schema.Properties["name"] == nil {
		t.Fatalf("external schema not resolved: %+v", schema)
	}
	if pos := s.Files.PosOf(schema.Origin); !strings.HasSuffix(pos.File, filepath.Join("schemas", "pet.yaml")) || pos.Line != 1 {
		t.Errorf("external schema located at %v, want schemas/pet.yaml:1", pos)
	}
}

func TestExternalRefEscapes(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{
		"secret.yaml":      "Pet: {type: object}\n",
		"api/placeholder":  "",
		"elsewhere/x.yaml": "Pet: {type: object}\n",
	})
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "api", "linked")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, ref := range []string{
		"../secret.yaml#/Pet",
		"%2e%2e/secret.yaml#/Pet",
		"linked/x.yaml#/Pet",
		"file:///etc/hosts#/Pet",
		"/etc/hosts#/Pet",
		filepath.ToSlash(filepath.Join(dir, "secret.yaml")) + "#/Pet",
	} {
		t.Run(ref, func(t *testing.T) {
			spec := filepath.Join(dir, "api", "api.yaml")
			spectest.WriteFiles(t, dir, map[string]string{"api/api.yaml": spectest.RefSpec(ref)})
			_, err := Load(spec, Options{AllowExternalRefs: true})
			if err == nil {
				t.Fatal("loaded a $ref outside the spec's folder")
			}
			if !strings.Contains(err.Error(), "api.yaml:13:17: GET /pets (listPets): $ref to ") || !strings.Contains(err.Error(), "is not allowed") {
				t.Errorf("got %q, want a located refusal", err)
			}
		})
	}
}

// TestNoNetwork checks that a $ref to a URL is never fetched, whether or not external
// references are allowed.
func TestNoNetwork(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "Pet: {type: object}\n")
	}))
	defer srv.Close()
	for _, allow := range []bool{false, true} {
		dir := t.TempDir()
		spectest.WriteFiles(t, dir, map[string]string{"api.yaml": spectest.RefSpec(srv.URL + "/s.yaml#/Pet")})
		_, err := Load(filepath.Join(dir, "api.yaml"), Options{AllowExternalRefs: allow})
		if err == nil || !strings.Contains(err.Error(), "api.yaml:13:17: ") {
			t.Errorf("allow=%v: got %v, want a located refusal", allow, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server was asked %d times", n)
	}
}

func TestLoadLimits(t *testing.T) {
	dir := t.TempDir()
	big := spectest.RefSpec("#/components/schemas/Pet") + "components:\n  schemas:\n    Pet:\n      description: " + strings.Repeat("x", 4096) + "\n"
	spectest.WriteFiles(t, dir, map[string]string{"big.yaml": big})
	_, err := Load(filepath.Join(dir, "big.yaml"), Options{MaxBytes: 1024})
	if err == nil || !strings.Contains(err.Error(), "big.yaml: file too large") {
		t.Errorf("got %v, want the size limit", err)
	}

	_, err = Load(filepath.Join(dir, "missing.yaml"), Options{})
	if err == nil || !strings.Contains(err.Error(), "missing.yaml: no such file") {
		t.Errorf("missing file: got %v", err)
	}
	_, err = Load(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("folder: got %v", err)
	}
}

// TestBillionLaughs checks that a YAML alias bomb is rejected before it is expanded.
func TestBillionLaughs(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\nx-bomb:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		fmt.Fprintf(&b, "  %s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = name
	}
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{"bomb.yaml": b.String()})
	// Work is measured in the bytes allocated, not in time, which a busy machine
	// stretches: expanded, the bomb's 9⁹ strings would take gigabytes, where refusing it
	// takes well under a megabyte.
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Load(filepath.Join(dir, "bomb.yaml"), Options{})
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("alias bomb loaded")
	}
	if !strings.HasPrefix(err.Error(), filepath.Join(dir, "bomb.yaml")+":") {
		t.Errorf("error is not located: %v", err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("refusing the bomb allocated %d bytes: %v", alloc, err)
	if alloc > 16<<20 {
		t.Errorf("refusing the bomb allocated %d MB", alloc>>20)
	}
}

func TestPositions(t *testing.T) {
	s, err := loadSpec(t, "api.yaml", `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /pets/{petId}:
    parameters:
      - name: petId
        in: path
        required: true
        schema: {type: string}
    get:
      operationId: getPet
      x-retry:
        maxAttempts: 3
      responses: {"200": {description: ok}}
components:
  schemas:
    Pet:
      type: object
`)
	if err != nil {
		t.Fatal(err)
	}
	item := s.Doc.Paths.Value("/pets/{petId}")
	op := item.Get
	file := s.Path
	for _, tt := range []struct {
		name string
		got  source.Pos
		want source.Pos
	}{
		{"operation", s.Files.PosOf(op.Origin), source.Pos{File: file, Line: 10, Col: 5}},
		{"operationId", s.Files.PosOfField(op.Origin, "operationId"), source.Pos{File: file, Line: 11, Col: 7}},
		{"extension", s.Files.PosOfField(op.Origin, "x-retry"), source.Pos{File: file, Line: 12, Col: 7}},
		{"inside an extension", s.Files.Within(s.Files.PosOfField(op.Origin, "x-retry"), "maxAttempts"), source.Pos{File: file, Line: 13, Col: 9}},
		{"parameter", s.Files.PosOf(item.Parameters[0].Value.Origin), source.Pos{File: file, Line: 6, Col: 9}},
		{"schema", s.Files.PosOf(s.Doc.Components.Schemas["Pet"].Value.Origin), source.Pos{File: file, Line: 17, Col: 5}},
		{"pointer", s.Files.PosOfPointer("#/paths/~1pets~1{petId}/get/x-retry/maxAttempts"), source.Pos{File: file, Line: 13, Col: 9}},
		{"pointer past the end", s.Files.PosOfPointer("#/components/schemas/Nope"), source.Pos{File: file, Line: 16, Col: 3}},
		{"no origin", s.Files.PosOf(nil), source.Pos{File: file}},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestWarnings(t *testing.T) {
	s, err := loadSpec(t, "api.yaml", `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /pets:
    get:
      parameters:
        - {name: unused, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: array}
`)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	text := s.Warnings.Error()
	for _, want := range []string{
		`api.yaml:5:5: GET /pets: path parameter "unused" is not in the path template; it is ignored`,
		"schema 'items' must be non-null",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings lack %q:\n%s", want, text)
		}
	}
}

// TestMissingExternalFile checks that a $ref to a file that does not exist is located.
func TestMissingExternalFile(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{"api.yaml": spectest.RefSpec("schemas/nope.yaml#/Pet")})
	_, err := Load(filepath.Join(dir, "api.yaml"), Options{AllowExternalRefs: true})
	if err == nil || !strings.Contains(err.Error(), "api.yaml:13:17: ") {
		t.Errorf("got %v, want an error located at the $ref", err)
	}
}

// BenchmarkLoad measures Load (read, resolve, validate) on the largest shared specs. Run
// it with:
//
//	go test -run '^$' -bench BenchmarkLoad -benchmem ./gen/
func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"stripe.yaml", "github.json"} {
		path := corpus.Path(b, name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Load(path, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A JSON document's strings are written so that the YAML parser reads them as
// encoding/json does, after a byte order mark too: line separators (the YAML parser
// would break lines at them, moving every position after one down a line), characters
// it does not print, and surrogate escapes (which it refuses).
func TestYAMLSafeJSON(t *testing.T) {
	for _, bom := range []string{"", "\uFEFF"} {
		for _, c := range []struct{ in, want string }{
			{`{"a": "x` + "\u2028" + `y", "b": "z` + "\u0085" + `"}`, `{"a": "x\u2028y", "b": "z\u0085"}`},
			{`{"body": "Hello! \ud83d\udc4d", "n": 1}`, `{"body": "Hello! \U0001F44D", "n": 1}`},
			{`{"lone": "\ud83d x \udc4d \ud83d\u0041 \uDBFF\uDFFF"}`, `{"lone": "\uFFFD x \uFFFD \uFFFD\u0041 \U0010FFFF"}`},
			{`{"del": "a` + "\x7f\u0080\uFEFF\uFFFE" + `b", "é": "日本"}`, `{"del": "a\u007F\u0080\uFEFF\uFFFEb", "é": "日本"}`},
			{`{"plain": "\\ud83d \" \/ \u00e9"}`, `{"plain": "\\ud83d \" \/ \u00e9"}`},
		} {
			got, _ := yamlSafeJSON([]byte(bom + c.in))
			if string(got) != bom+c.want {
				t.Errorf("yamlSafeJSON(%q) = %q, want %q", bom+c.in, got, bom+c.want)
			}
		}
	}
	spec := "\uFEFF" + `{"openapi":"3.0.3","info":{"title":"T","version":"1","description":"a` + "\u2028" + `b"},` + "\n" +
		`"paths":{"/a/{id}":{"get":{"parameters":[{"name":"id","in":"path","schema":{"type":"string"}}],"responses":{"204":{"description":"ok"}}}}}}`
	_, err := loadSpec(t, "bom.json", spec)
	if err == nil || !strings.Contains(err.Error(), `bom.json:2:43: GET /a/{id}: path parameter "id" must be required`) {
		t.Errorf("got %v, want the parameter located at bom.json:2:43", err)
	}
}

// A one-line JSON document whose strings the YAML parser must be given otherwise (a
// surrogate pair, a lone surrogate, a line separator, DEL) loads as encoding/json reads
// it, and what comes after them on the line is located at the file's own column.
func TestJSONEscapesLocated(t *testing.T) {
	line := `{"openapi":"3.0.3","info":{"title":"T","version":"1","description":"Hello! \ud83d\udc4d \udc4d` + "\u2028\x7f" + `é"},` +
		`"paths":{"/a/{id}":{"get":{"parameters":[{"name":"id","in":"path","schema":{"type":"string"}}],"responses":{"204":{"description":"ok"}}}}}}`
	col := utf8.RuneCountInString(line[:strings.Index(line, `"name":"id"`)]) + 1
	_, err := loadSpec(t, "one.json", line)
	want := fmt.Sprintf(`one.json:1:%d: GET /a/{id}: path parameter "id" must be required`, col)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	spec, err := loadSpec(t, "ok.json", strings.Replace(line, `"in":"path",`, `"in":"path","required":true,`, 1))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := spec.Doc.Info.Description, "Hello! \U0001F44D \uFFFD\u2028\x7fé"; got != want {
		t.Errorf("description = %q, want %q, as encoding/json reads it", got, want)
	}
}

// A document that gives both versions is refused at the later key, rather than read as
// Swagger 2.0 without its OpenAPI 3 parts; a nested "swagger" key is only a key.
func TestCheckVersionFields(t *testing.T) {
	const paths = `"paths":{"/a":{"get":{"operationId":"a","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"string"}}}}}}}}`
	for _, c := range []struct{ name, text, want string }{
		{"both.json", `{"openapi":"3.0.3","info":{"title":"T","version":"1"},` + "\n" + `"swagger":"2.0",` + paths + `}`,
			`both.json:2:1: malformed document: both "swagger" and "openapi" give the version`},
		{"null.json", `{"openapi":"3.0.3","swagger":null,"info":{"title":"T","version":"1"},` + paths + `}`,
			`null.json:1:20: malformed document: both "swagger" and "openapi" give the version`},
		{"both.yaml", "swagger: \"2.0\"\ninfo: {title: T, version: \"1\"}\nopenapi: 3.0.3\npaths: {}\n",
			`both.yaml:3:1: malformed document: both "swagger" and "openapi" give the version`},
	} {
		_, err := loadSpec(t, c.name, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	nested := `{"openapi":"3.0.3","info":{"title":"T","version":"1","x-meta":{"swagger":"2.0"}},` + paths + `}`
	if _, err := loadSpec(t, "nested.json", nested); err != nil {
		t.Errorf("nested.json: %v", err)
	}
}

// Every dangling $ref is reported once, where it is written, and no $ref that resolves:
// one whose pointer is percent-encoded (as a URI fragment may be), one in another file,
// one of a Swagger 2.0 document (which the loader names as converted), and beside one
// whose key is written with an escape, which the rest of the document is still read
// without.
func TestDanglingRefsReported(t *testing.T) {
	const head = "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string
		doc   bool // the Spec is returned with the errors, for later stages to add theirs
	}{
		{"percent-encoded", map[string]string{"api.yaml": head +
			"  /users/{id}:\n    parameters:\n      - {name: id, in: path, required: true, schema: {type: string}}\n" +
			"    get:\n      responses:\n        \"200\": {description: ok}\n" +
			"  /users/{id}/x:\n    parameters:\n      - $ref: \"#/paths/~1users~1%7Bid%7D/parameters/0\"\n" +
			"    get:\n      responses:\n        \"404\": {$ref: \"#/components/responses/Nope\"}\n"},
			[]string{`api.yaml:15:17: unresolved $ref "#/components/responses/Nope"`}, true},
		{"in another file", map[string]string{
			"api.yaml": head + "  /a:\n    get:\n      responses:\n" +
				"        \"200\": {description: ok, content: {application/json: {schema: {$ref: \"other.yaml#/Thing\"}}}}\n" +
				"        \"201\": {description: ok, content: {application/json: {schema: {$ref: \"#/components/schemas/Nope\"}}}}\n",
			"other.yaml": "Thing:\n  type: object\n  properties:\n    x: {$ref: \"#/Missing\"}\n"},
			[]string{`api.yaml:8:72: unresolved $ref "#/components/schemas/Nope"`, `other.yaml:4:9: GET /a: unresolved $ref "#/Missing"`}, true},
		{"escaped key", map[string]string{"api.json": `{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{"/a":{"get":{"responses":{` +
			`"200":{"description":"ok","content":{"application/json":{"schema":{"$r\u0065f":"#/components/schemas/A"}}}},` +
			`"201":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/B"}}}}}}}}}`},
			[]string{`api.json:1:157: unresolved $ref "#/components/schemas/A"`, `api.json:1:265: unresolved $ref "#/components/schemas/B"`}, true},
		{"swagger 2.0", map[string]string{"api.yaml": "swagger: \"2.0\"\ninfo: {title: T, version: \"1\"}\npaths:\n" +
			"  /a:\n    get:\n      parameters:\n        - $ref: \"#/parameters/Missing\"\n" +
			"      responses:\n        \"200\": {$ref: \"#/responses/Missing\"}\n"},
			[]string{`api.yaml:7:11: unresolved $ref "#/parameters/Missing"`, `api.yaml:9:17: unresolved $ref "#/responses/Missing"`}, true},
		{"after a byte order mark", map[string]string{"api.json": "\uFEFF" + `{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{"/a":{"get":{"responses":{` +
			`"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}},` +
			`"201":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/B"}}}}}}}}}`},
			[]string{`api.json:1:157: unresolved $ref "#/components/schemas/A"`, `api.json:1:260: unresolved $ref "#/components/schemas/B"`}, true},
	} {
		dir := t.TempDir()
		spectest.WriteFiles(t, dir, c.files)
		root := "api.yaml"
		if _, ok := c.files[root]; !ok {
			root = "api.json"
		}
		s, err := Load(filepath.Join(dir, root), Options{AllowExternalRefs: true})
		got := strings.ReplaceAll(fmt.Sprint(err), dir+string(filepath.Separator), "")
		var lines []string
		for _, l := range strings.Split(got, "\n") {
			if !strings.HasPrefix(l, "\t") {
				l, _, _ = strings.Cut(l, ": nothing")
				lines = append(lines, l)
			}
		}
		if strings.Join(lines, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, strings.Join(lines, "\n"), strings.Join(c.want, "\n"))
		}
		if (s != nil) != c.doc {
			t.Errorf("%s: Spec returned %v, want %v", c.name, s != nil, c.doc)
		}
	}
}

// A discriminator mapping entry that names no schema of the file, by $ref or by name, is
// an error at its key: the generated client could never decode the variant it stands
// for. Entries that name one, an extension among them, and a property that happens to be
// called discriminator pass.
func TestDanglingDiscriminatorMapping(t *testing.T) {
	_, err := loadSpec(t, "api.yaml", `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /pets:
    get:
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Pet"}}}}
components:
  schemas:
    Pet:
      oneOf: [{$ref: "#/components/schemas/Cat"}, {$ref: "#/components/schemas/Dog"}]
      discriminator:
        propertyName: kind
        mapping:
          cat: "#/components/schemas/Cat"
          dog: Dog
          hen: "#/components/schemas/Hen"
          cow: Cow
          x-speakeasy-unknown-values: allow
    Cat: {type: object, properties: {kind: {type: string}}}
    Dog:
      type: object
      properties:
        kind: {type: string}
        discriminator: {type: object, properties: {mapping: {type: object, properties: {a: {type: string, example: nope}}}}}
`)
	got := fmt.Sprint(err)
	for _, want := range []string{
		`api.yaml:17:11: discriminator mapping "hen": "#/components/schemas/Hen" names no schema`,
		`api.yaml:18:11: discriminator mapping "cow": "Cow" names no schema`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant it to hold %s", got, want)
		}
	}
	if n := strings.Count(got, "names no schema"); n != 2 {
		t.Errorf("%d mapping errors, want 2:\n%s", n, got)
	}
}
