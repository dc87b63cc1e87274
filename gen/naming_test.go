package gen

// C4 and C5 of docs/reliability.md: names that collide after cleaning, keywords, predeclared
// names, digits, Unicode and empty names all get distinct, valid identifiers, and none
// of what they name is lost.

import (
	"go/ast"
	"go/token"
	"maps"
	"slices"
	"strings"
	"testing"
)

// identifiers lists every identifier of f, declared or used.
func identifiers(f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			out = append(out, id.Name)
		}
		return true
	})
	return out
}

const collidingNames = `openapi: 3.0.3
info: {title: Names, version: "1"}
paths:
  /a:
    get: {operationId: get-user, responses: {"204": {description: ok}}}
    put: {operationId: get_user, responses: {"204": {description: ok}}}
    post: {operationId: getUser, x-idempotent: true, responses: {"204": {description: ok}}}
    delete: {operationId: GetUser, responses: {"204": {description: ok}}}
    patch: {operationId: "get user", x-idempotent: true, responses: {"204": {description: ok}}}
    options: {operationId: "", responses: {"204": {description: ok}}}
  /b:
    get: {operationId: type, responses: {"204": {description: ok}}}
    put: {operationId: func, responses: {"204": {description: ok}}}
    post: {operationId: go, x-idempotent: true, responses: {"204": {description: ok}}}
    delete: {operationId: string, responses: {"204": {description: ok}}}
    patch: {operationId: "1st", x-idempotent: true, responses: {"204": {description: ok}}}
    head: {operationId: "名前", responses: {"204": {description: ok}}}
    options: {operationId: "NewClient", responses: {"204": {description: ok}}}
    trace: {operationId: "do", responses: {"204": {description: ok}}}
  /c/{type}/{func}/{ctx}/{url}:
    get:
      operationId: params
      parameters:
        - {name: type, in: path, required: true, schema: {type: string}}
        - {name: func, in: path, required: true, schema: {type: string}}
        - {name: ctx, in: path, required: true, schema: {type: string}}
        - {name: url, in: path, required: true, schema: {type: string}}
        - {name: a-b, in: query, schema: {type: string}}
        - {name: a_b, in: query, schema: {type: string}}
        - {name: aB, in: query, schema: {type: string}}
        - {name: AB, in: header, schema: {type: string}}
        - {name: "1", in: query, schema: {type: string}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Foo'}
components:
  schemas:
    Foo:
      type: object
      properties:
        a-b: {type: string}
        a_b: {type: string}
        aB: {type: string}
        AB: {type: string}
        "": {type: string}
        "1": {type: string}
        type: {type: string}
        func: {type: string}
        café: {type: string}
        Café: {type: string}
        MarshalJSON: {type: string}
        enum:
          type: string
          enum: ["Foo Bar", "Foo-Bar", "foo_bar", "FooBar", "1Foo", " Foo", " Foo ", "", "type", "名前", "-", "+", "_"]
    foo: {type: string}
    FOO: {type: integer}
    foo_: {type: number}
    -foo: {type: boolean}
    foo-: {type: string}
    1Foo: {type: string}
    Client: {type: string}
    Option: {type: string}
    string: {type: string}
    error: {type: string}
    _: {type: string}
`

// TestCollidingNames generates a client from names that clean to the same identifier,
// keywords, predeclared and generated names, digits, Unicode and empty names. It must
// type-check (so every identifier is valid and unique in its scope), keep a method per
// operation, a type per schema, a field per property and a constant per enum value,
// and name them the same way every time.
func TestCollidingNames(t *testing.T) {
	path := writeSpec(t, "names.yaml", collidingNames)
	src, err := loadAndGenerate(t, path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := typeCheckClient(src); err != nil {
		t.Fatal(err)
	}
	f, err := clientChecks(t, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range identifiers(f) {
		if !token.IsIdentifier(id) || token.IsKeyword(id) {
			t.Errorf("%q is not an identifier", id)
		}
	}
	// What the model decided, to find the declarations in the client.
	spec, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	api := spec.API
	var methodNames []string
	for _, op := range api.Operations {
		methodNames = append(methodNames, op.GoName)
	}
	if n := len(slices.Compact(slices.Sorted(slices.Values(methodNames)))); n != 15 || len(api.Operations) != 15 {
		t.Errorf("%d distinct method names for %d operations, want 15: %v", n, len(api.Operations), methodNames)
	}
	schemas, foo := map[string]bool{}, ""
	for _, d := range api.Decls {
		if name, ok := strings.CutPrefix(d.Pointer, "#/components/schemas/"); ok {
			schemas[d.GoName] = true
			if name == "Foo" {
				foo = d.GoName
			}
		}
	}
	if len(schemas) != 12 {
		t.Errorf("%d distinct type names for 12 schemas: %v", len(schemas), slices.Sorted(maps.Keys(schemas)))
	}

	methods := map[string]bool{}
	types := map[string]bool{}
	fields := map[string]int{}
	consts := 0
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && recvType(d) == "Client" {
				methods[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					types[s.Name.Name] = true
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								if n.Name != "_" { // the noCompare marker
									fields[s.Name.Name]++
								}
							}
						}
					}
				case *ast.ValueSpec:
					if id, ok := s.Type.(*ast.Ident); ok && id.Name == foo+"Enum" {
						consts += len(s.Names)
					}
				}
			}
		}
	}
	for _, name := range methodNames {
		if !methods[name] {
			t.Errorf("no method %s", name)
		}
	}
	for name := range schemas {
		if !types[name] {
			t.Errorf("no type %s", name)
		}
	}
	if fields[foo] != 12 {
		t.Errorf("%s has %d fields, want 12 (one per property)", foo, fields[foo])
	}
	if consts != 13 {
		t.Errorf("%sEnum has %d constants, want 13 (one per value)", foo, consts)
	}
	again, err := loadAndGenerate(t, path, LoadOptions{})
	if err != nil || string(again) != string(src) {
		t.Errorf("a second generation differs (err %v)", err)
	}
}

func recvType(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
