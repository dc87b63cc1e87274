package build

import (
	"slices"
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
	a, b := api.Operations[0].Errors, api.Operations[1].Errors
	if a == b || a.Cases[0].Type.Decl == b.Cases[0].Type.Decl {
		t.Errorf("getA and getB share %s, decoding into %s", a.GoName, a.Cases[0].Type)
	}
	for _, set := range []*model.ErrorSet{a, b} {
		if set.GoName != "errors"+set.Cases[0].Type.String() {
			t.Errorf("%s returns %s", set.GoName, set.Cases[0].Type)
		}
	}
}

// A step does not repeat the words the name it follows ends with: MessageObject's
// object is MessageObjectEnum, GitTree's tree items GitTreeItem, ValidationError's
// errors items ValidationErrorItem, the property static of the variant Static is
// StaticObject, the property fixed of the variant Fixed is StoreChunkingFixedObject
// (not StoreChunkingFixedFixed), a parameter that repeats its operation's last word adds it
// once.
func TestStepsDoNotRepeatWords(t *testing.T) {
	api, err := buildSpec(t, `openapi: 3.0.3
info: {title: R, version: "1"}
paths:
  /workflows/{workflow_id}:
    get:
      operationId: actions/getWorkflow
      parameters:
        - {name: workflow_id, in: path, required: true, schema: {oneOf: [{type: integer}, {type: string}]}}
      responses: {"204": {description: ok}}
components:
  schemas:
    MessageObject:
      type: object
      properties:
        object: {type: string, enum: [thread.message, other]}
    GitTree:
      type: object
      properties:
        tree: {type: array, items: {type: object, properties: {path: {type: string}}}}
    ValidationError:
      type: object
      properties:
        errors: {type: array, items: {type: object, properties: {code: {type: string}}}}
    ChunkingStrategy:
      type: object
      properties:
        static:
          oneOf:
            - {type: object, title: Static, properties: {static: {type: object, properties: {n: {type: integer}}}}}
            - {type: string}
    Store:
      type: object
      properties:
        chunking:
          oneOf:
            - {type: object, properties: {type: {type: string, enum: [fixed]}, fixed: {type: object, properties: {n: {type: integer}}}}}
            - {type: string}
`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range api.Decls {
		got = append(got, d.GoName)
	}
	slices.Sort(got)
	want := []string{"ActionsGetWorkflowID", "ChunkingStrategy", "ChunkingStrategyStatic",
		"GitTree", "GitTreeItem", "MessageObject", "MessageObjectEnum", "Static", "StaticObject",
		"Store", "StoreChunking", "StoreChunkingFixed", "StoreChunkingFixedObject", "StoreChunkingType", "ValidationError", "ValidationErrorItem"}
	if !slices.Equal(got, want) {
		t.Errorf("names:\n got %q\nwant %q", got, want)
	}
}

// An operation's 404 and default models that ask for one name are two cases: the 404 is
// decoded into its own model.
func TestErrorCasesByModelNotName(t *testing.T) {
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
        default:
          description: other
          content:
            application/json:
              schema: {type: object, title: PROBLEM, properties: {message: {type: string}}}
`)
	if err != nil {
		t.Fatal(err)
	}
	if cases := api.Operations[0].Errors.Cases; len(cases) != 2 {
		t.Errorf("%d error cases, want 404 and default", len(cases))
	}
}
