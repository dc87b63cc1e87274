package gen_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen"
)

// The root file declares components/schemas/Pet2, and two other files each define a
// schema Pet, hoisted as Pet and Pet-2. Pet-2 sorts before Pet2 but is named in Go after
// the description's own components: Pet2 keeps its Go name, and Pet-2 becomes Pet2_2.
func TestRootComponentKeepsItsGoName(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.yaml": "Pet: {type: object, properties: {a: {type: string}}}\n",
		"b.yaml": "Pet: {type: object, properties: {b: {type: integer}}}\n",
		"spec.yaml": `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /o:
    get:
      operationId: getO
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  a: {$ref: "a.yaml#/Pet"}
                  b: {$ref: "b.yaml#/Pet"}
                  c: {$ref: "#/components/schemas/Pet2"}
components:
  schemas:
    Pet2: {type: object, properties: {c: {type: boolean}}}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec, err := gen.Load(filepath.Join(dir, "spec.yaml"), gen.LoadOptions{AllowExternalRefs: true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(spec, gen.GenerateOptions{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"// Pet2 is the schema at #/components/schemas/Pet2.",
		"// Pet2_2 is the schema at #/components/schemas/Pet-2.",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// A description written across files, with components of the same name and of the same
// content in several of them, gives the same client on every run.
func TestMultiFileClientDeterministic(t *testing.T) {
	dir := t.TempDir()
	spec := "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /o:\n    get:\n      operationId: getO\n" +
		"      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n" +
		"              schema:\n                type: object\n                properties:\n"
	for i := range 12 {
		file := fmt.Sprintf("p%d.yaml", i)
		text := fmt.Sprintf("Pet: {type: object, properties: {v%d: {type: string}}}\nOwner: {type: object, properties: {pet: {$ref: \"#/Pet\"}}}\n", i%5)
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		spec += fmt.Sprintf("                  o%d: {$ref: %q}\n", i, file+"#/Owner")
	}
	if err := os.WriteFile(filepath.Join(dir, "spec.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	// Five different Pets, and so five different Owners: Pet, Pet-2 ... Pet-5.
	var first []byte
	for range 5 {
		s, err := gen.Load(filepath.Join(dir, "spec.yaml"), gen.LoadOptions{AllowExternalRefs: true})
		if err != nil {
			t.Fatal(err)
		}
		out, err := gen.Generate(s, gen.GenerateOptions{Package: "p"})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = out
		} else if string(out) != string(first) {
			t.Fatal("two runs wrote different clients")
		}
	}
	for _, want := range []string{"type Pet5 struct", "type Owner5 struct"} {
		if !strings.Contains(string(first), want) {
			t.Errorf("no %q", want)
		}
	}
	if strings.Contains(string(first), "type Pet6 ") {
		t.Error("a Pet of the same content as another kept twice")
	}
}
