package load

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// A document decoded from the tree records no place of a field in its origins but an
// Example's (kin-openapi's validation reads those), and no place of a list item: the
// places are found through Files.FieldLocation, from the tree, for every origin that
// kin-openapi would give Fields. Recording them again (a Location of 64 bytes for every
// key of every mapping, a third of the memory a loaded stripe.yaml holds) fails here.
func TestOriginsRecordNoFields(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for seed := range uint64(12) {
		g := newDocGen(seed, seed%3 == 2)
		path := filepath.Join(dir, fmt.Sprintf("seed%d.yaml", seed))
		if err := os.WriteFile(path, []byte(g.render(g.document())), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	examples := filepath.Join(dir, "examples.yaml")
	if err := os.WriteFile(examples, []byte(examplesSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, examples)
	golden, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "golden", "*", "spec.yaml"))
	paths = append(paths, golden...)
	loaded, located, examplesSeen := 0, 0, 0
	for _, path := range paths {
		s, err := Load(path, Options{})
		if err != nil || s.Doc == nil || s.Version == "2.0" {
			continue
		}
		loaded++
		walkOrigins(reflect.ValueOf(s.Doc), reflect.TypeFor[openapi3.T](), map[uintptr]bool{}, func(owner reflect.Type, o *openapi3.Origin) {
			if o.Fields != nil && owner != exampleType {
				t.Errorf("%s: the origin of a %v records %d fields", path, owner, len(o.Fields))
			}
			if owner == exampleType {
				examplesSeen++
				if o.Fields == nil {
					t.Errorf("%s: an Example's origin records no fields; kin-openapi's validation locates its value by them", path)
				}
			}
			if o.Sequences != nil {
				t.Errorf("%s: the origin of a %v records the items of %d lists", path, owner, len(o.Sequences))
			}
			if fields := s.Files.OriginFields(o); o.Fields == nil && len(fields) > 0 {
				located++
				if loc, ok := s.Files.FieldLocation(o, fields[0].Name); !ok || loc != fields[0] {
					t.Errorf("%s: field %q found at %+v (%v), want %+v", path, fields[0].Name, loc, ok, fields[0])
				}
			}
		})
	}
	t.Logf("%d descriptions loaded, %d origins located through the tree, %d examples", loaded, located, examplesSeen)
	if loaded < 10 || located < 100 || examplesSeen < 2 {
		t.Errorf("%d descriptions loaded, %d origins' fields found through the tree, %d examples; want more", loaded, located, examplesSeen)
	}
}

// examplesSpec holds Examples, inline and as components.
const examplesSpec = `openapi: 3.0.3
info: {title: Examples, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      parameters:
        - name: limit
          in: query
          schema: {type: integer}
          examples:
            small: {summary: a few, value: 3}
            large: {$ref: "#/components/examples/Large"}
      responses:
        "200": {description: ok}
components:
  examples:
    Large:
      summary: many
      value: 100
`

// walkOrigins calls fn with every origin reachable from v, and the type of the struct
// that holds it.
func walkOrigins(v reflect.Value, owner reflect.Type, seen map[uintptr]bool, fn func(reflect.Type, *openapi3.Origin)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		if v.Type() == originPtrType {
			fn(owner, (*openapi3.Origin)(v.UnsafePointer()))
			return
		}
		walkOrigins(v.Elem(), v.Type().Elem(), seen, fn)
	case reflect.Interface:
		if !v.IsNil() {
			walkOrigins(v.Elem(), owner, seen, fn)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			walkOrigins(v.Field(i), v.Type(), seen, fn)
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkOrigins(v.Index(i), owner, seen, fn)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			walkOrigins(it.Value(), owner, seen, fn)
		}
	}
}
