package build

import (
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/model"
)

// Two inline variants of a union that ask for the same name (two untitled objects, two
// nested unions) are two variants: a variant is dropped only when it is the very same
// type as one before it.
func TestUnionKeepsVariantsThatAskForOneName(t *testing.T) {
	api, err := buildSpec(t, `openapi: 3.0.3
info: {title: U, version: "1"}
paths: {}
components:
  schemas:
    Pet:
      type: object
      properties:
        kind:
          oneOf:
            - {type: object, properties: {a: {type: string}}}
            - {type: object, properties: {b: {type: string}}}
            - {type: string, enum: [x]}
            - {type: string, enum: [y]}
            - oneOf: [{type: integer}, {type: object, properties: {c: {type: string}}}]
            - oneOf: [{type: boolean}, {type: object, properties: {d: {type: string}}}]
            - $ref: '#/components/schemas/Dog'
            - $ref: '#/components/schemas/Dog'
        kinds:
          type: array
          items:
            oneOf:
              - {type: object, properties: {a: {type: string}}}
              - {type: object, properties: {b: {type: string}}}
    Dog: {type: object, properties: {bark: {type: string}}}
`)
	if err != nil {
		t.Fatal(err)
	}
	var kind, kinds *model.Decl
	for _, d := range api.Decls {
		if d.GoName != "Pet" {
			continue
		}
		for _, f := range d.Fields {
			tt := f.Type
			for tt.Kind != model.KindNamed {
				tt = tt.Elem
			}
			switch f.Name {
			case "kind":
				kind = tt.Decl
			case "kinds":
				kinds = tt.Decl
			}
		}
	}
	if kind == nil || kinds == nil {
		t.Fatal("no Pet.kind or Pet.kinds")
	}
	for _, c := range []struct {
		d    *model.Decl
		want int
	}{{kind, 7}, {kinds, 2}} {
		var types []string
		for _, v := range c.d.Variants {
			types = append(types, v.Type.String())
		}
		if len(types) != c.want {
			t.Errorf("%s has %d variants, want %d: %s", c.d.GoName, len(types), c.want, strings.Join(types, " "))
		}
	}
}

// Two operations whose error models ask for one name (titles that differ in case) each
// decode their own model.
func TestErrorSetsByModelNotName(t *testing.T) {
	api, err := buildSpec(t, `openapi: 3.0.3
info: {title: E, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      responses:
        "204": {description: ok}
        "404":
          description: nf
          content:
            application/json:
              schema: {type: object, title: Problem, properties: {code: {type: integer}}}
  /b:
    get:
      operationId: getB
      responses:
        "204": {description: ok}
        "404":
          description: nf
          content:
            application/json:
              schema: {type: object, title: PROBLEM, properties: {message: {type: string}}}
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(api.ErrorSets) != 2 {
		t.Fatalf("%d error sets, want 2", len(api.ErrorSets))
	}
	for _, op := range api.Operations {
		model := op.Errors.Cases[0].Type.String()
		if !strings.HasPrefix(model, op.GoName) || op.Errors.GoName != "errors"+model {
			t.Errorf("%s decodes its 404 into %s with %s", op.GoName, model, op.Errors.GoName)
		}
	}
}
