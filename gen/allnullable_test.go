package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A list whose items are nullable objects (OpenAPI 3.1 type: [object, "null"], as
// openrouter's PresetDesignatedVersion) holds pointers already: <Op>All must yield them
// as they are, not a pointer to each pointer.
const nullableItemsSpec = `openapi: 3.1.0
info: {title: Versions, version: "1"}
paths:
  /versions:
    get:
      operationId: listVersions
      parameters:
        - {name: starting_after, in: query, schema: {type: string}}
      responses:
        "200":
          description: A page.
          content:
            application/json:
              schema:
                type: object
                required: [data, has_more]
                properties:
                  has_more: {type: boolean}
                  data: {type: array, items: {$ref: "#/components/schemas/Version"}}
components:
  schemas:
    Version:
      type: [object, "null"]
      required: [id]
      properties:
        id: {type: string}
`

const nullableItemsTest = `package versions

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestAllYieldsTheItemsPointers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("starting_after") == "" {
			io.WriteString(w, ` + "`" + `{"has_more": true, "data": [{"id": "a"}, null, {"id": "b"}]}` + "`" + `)
			return
		}
		io.WriteString(w, ` + "`" + `{"has_more": false, "data": [{"id": "c"}]}` + "`" + `)
	}))
	defer srv.Close()
	c := NewClient(WithBaseURL(srv.URL))
	var got []string
	for v, err := range c.ListVersionsAll(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if v == nil {
			got = append(got, "null")
			continue
		}
		got = append(got, v.ID)
	}
	if want := "[a null b c]"; fmt.Sprint(got) != want {
		t.Errorf("All yielded %v; want %v", got, want)
	}
}
`

func TestAllOfNullableObjectItemsCompiles(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(nullableItemsSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(spec, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Generate(s, GenerateOptions{Package: "versions"})
	if err != nil {
		t.Fatal(err)
	}
	mod := tempModule(t)
	test := []byte(nullableItemsTest)
	test = []byte(strings.Replace(string(test), "\"context\"", "\"context\"\n\t\"fmt\"", 1))
	writePackage(t, mod, "versions", map[string][]byte{"client_gen.go": out, "client_test.go": test})
	goCmd(t, mod, "vet", "./...")
	goCmd(t, mod, "test", "-count=1", "./...")
}
