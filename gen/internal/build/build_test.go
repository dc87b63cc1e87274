package build

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

func buildSpec(t *testing.T, yaml string) (*model.API, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := load.Load(path, load.Options{})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return Build(spec)
}

// D7: a header or cookie name that is not an RFC 9110 token is a located error.
func TestBadParameterNamesAreLocated(t *testing.T) {
	for _, tt := range []struct{ in, name string }{
		{"header", "X Bad"},
		{"header", "X:Colon"},
		{"cookie", "a;b"},
	} {
		_, err := buildSpec(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    get:
      operationId: getX
      parameters:
        - name: "`+tt.name+`"
          in: `+tt.in+`
          schema: {type: string}
      responses:
        "204": {description: ok}
`)
		var e *source.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s %q: want a located error, got %v", tt.in, tt.name, err)
		}
		if e.Pos.Line != 8 || e.Op != "GET /x (getX)" || !strings.Contains(e.Msg, tt.name) {
			t.Errorf("%s %q: error %q at %v", tt.in, tt.name, e.Error(), e.Pos)
		}
	}
}

func TestIdempotencyKeyParameterIsAString(t *testing.T) {
	api, err := buildSpec(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    post:
      operationId: postX
      parameters:
        - name: idempotency-key
          in: header
          required: true
          schema: {type: string, format: uuid}
      responses:
        "204": {description: ok}
`)
	if err != nil {
		t.Fatal(err)
	}
	op := api.Operations[0]
	if op.Policy.IdempotencyKey == "" || !op.Policy.Idempotent {
		t.Fatalf("policy %+v: want an idempotency key", op.Policy)
	}
	p := op.Params[0]
	if !p.IdempotencyKey || p.Type.String() != "string" {
		t.Errorf("param %+v: want the idempotency key, as a string", p)
	}
}

func TestNamingHelpers(t *testing.T) {
	for in, want := range map[string]string{"200": "200", "4xx": "4XX", "default": "Default", "2XX ": "2XX"} {
		if got := statusWord(in); got != want {
			t.Errorf("statusWord(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tt := range []struct {
		in   any
		want string
	}{
		{"available", "Available"}, {"1st", "1st"}, {"", "Empty"}, {int64(-1), "Minus1"},
		{int64(2), "2"}, {1.5, "1Point5"}, {-2.25, "Minus2Point25"}, {true, "True"}, {"Foo Bar", "FooBar"},
	} {
		if got := enumSuffix(tt.in); got != tt.want {
			t.Errorf("enumSuffix(%#v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for name, want := range map[string]bool{
		"id": true, "pet_type": true, "a-b.c": true, "ünï": true, "with space": true,
		"": false, "a,b": false, `a"b`: false, `a\b`: false, "`": false, "a\x00": false,
	} {
		if got := ValidTagName(name); got != want {
			t.Errorf("ValidTagName(%q) = %v, want %v", name, got, want)
		}
	}
}

// E3: a schema that contains itself through required properties, directly or through
// another, still gives types Go accepts (a pointer breaks each cycle).
func TestValueCyclesBecomePointers(t *testing.T) {
	api, err := buildSpec(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    A:
      type: object
      required: [b, self]
      properties:
        b: {$ref: "#/components/schemas/B"}
        self: {$ref: "#/components/schemas/A"}
    B:
      type: object
      required: [a]
      properties:
        a: {$ref: "#/components/schemas/A"}
`)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, d := range api.Decls {
		for _, f := range d.Fields {
			types[d.GoName+"."+f.GoName] = f.Type.String()
		}
	}
	if types["A.Self"] != "*A" {
		t.Errorf("A.Self is %s, want *A", types["A.Self"])
	}
	if types["A.B"] != "*B" && types["B.A"] != "*A" {
		t.Errorf("neither A.B (%s) nor B.A (%s) is a pointer", types["A.B"], types["B.A"])
	}
}

// The model says what goes on the wire: which fields are read-only, const, additional,
// nullable; which parameters are arguments; which 2xx statuses are declared.
func TestWireSemanticsInTheModel(t *testing.T) {
	api, err := buildSpec(t, `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /r:
    get:
      operationId: getR
      parameters:
        - {name: q, in: query, required: true, schema: {type: integer}}
        - {name: page, in: query, schema: {type: integer, default: 1}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/R"}
        "204": {description: none}
components:
  schemas:
    R:
      type: object
      required: [id, tags]
      properties:
        id: {type: string, readOnly: true}
        tags: {type: array, items: {type: string}}
        kind: {const: r}
        day: {type: string, format: date}
        note: {type: [string, "null"]}
        size: {type: [integer, "null"]}
      additionalProperties: {type: integer}
`)
	if err != nil {
		t.Fatal(err)
	}
	op := api.Operations[0]
	if got := strings.Join(op.SuccessStatuses, ","); got != "200,204" {
		t.Errorf("success statuses %q", got)
	}
	if q, page := op.Params[0], op.Params[1]; !q.Argument() || q.LocalName != "q" || page.Argument() || op.ParamsType != "GetRParams" {
		t.Errorf("q argument %v (%q), page argument %v, params type %q", q.Argument(), q.LocalName, page.Argument(), op.ParamsType)
	}
	if !strings.Contains(op.Params[1].Doc, "Default: 1.") {
		t.Errorf("page doc %q", op.Params[1].Doc)
	}
	var r *model.Decl
	for _, d := range api.Decls {
		if d.GoName == "R" {
			r = d
		}
	}
	fields := map[string]*model.Field{}
	for _, f := range r.Fields {
		fields[f.GoName] = f
	}
	for name, want := range map[string]string{
		"ID": "string", "Tags": "[]string", "Kind": "string", "Day": "*Date",
		"Note": "Nullable[string]", "Size": "Nullable[int64]", "AdditionalProperties": "map[string]int64",
	} {
		if f := fields[name]; f == nil || f.Type.String() != want {
			t.Errorf("field %s: %v, want type %s", name, f, want)
		}
	}
	if !fields["ID"].ReadOnly || fields["Kind"].Const != "r" || !fields["AdditionalProperties"].Additional || fields["Tags"].FillEmpty() == nil {
		t.Errorf("id read-only %v, kind const %v, additional %v, tags fill %v",
			fields["ID"].ReadOnly, fields["Kind"].Const, fields["AdditionalProperties"].Additional, fields["Tags"].FillEmpty())
	}
	if !r.NeedsMarshal() {
		t.Error("R needs no MarshalJSON")
	}
}

// Methods share a policy variable exactly when their policy literals agree: each
// x-retry field and the idempotency key tells two apart, and how a method reads the
// body (wire's Fetch or Call) does not.
func TestPolicyVarsAreSharedByEqualLiterals(t *testing.T) {
	variants := []string{
		"x-retry: {maxAttempts: 7}",
		"x-retry: {initialDelay: 250ms}",
		"x-retry: {maxDelay: 20s}",
		"x-retry: {multiplier: 1.5}",
		"x-retry: {jitter: equal}",
		"x-retry: {statusCodes: [503]}",
		"x-retry: {connectionErrors: false}",
		"x-retry: {attemptTimeout: 3s}",
		"x-retry: {maxElapsed: 1m}",
		"x-retry: {retryAfter: false}",
		"x-retry: {maxRetryAfter: 5s}",
		"x-retry: {serverSignals: false}",
		"x-idempotent: false",
		"x-idempotency-key: true",
		"x-idempotency-key: X-Key",
	}
	ok := "\n      responses:\n        \"200\": {description: ok, content: {application/json: {schema: {type: string}}}}\n"
	spec := "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n" +
		"  /a:\n    put:\n      operationId: a" + ok +
		"  /b:\n    put:\n      operationId: b" + ok +
		"  /file:\n    put:\n      operationId: file\n      responses:\n        \"200\": {description: ok, content: {application/octet-stream: {schema: {type: string, format: binary}}}}\n"
	for i, v := range variants {
		spec += fmt.Sprintf("  /v%d:\n    put:\n      operationId: v%d\n      %s%s", i, i, v, ok)
	}
	api, err := buildSpec(t, spec)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, op := range api.Operations {
		vars[op.GoName] = op.PolicyVar
	}
	if vars["A"] != "policyIdempotent" || vars["B"] != "policyIdempotent" || vars["File"] != "policyIdempotent" {
		t.Errorf("A, B and File use %q, %q and %q, want policyIdempotent for all", vars["A"], vars["B"], vars["File"])
	}
	seen := map[string]string{}
	for name, v := range vars {
		if name == "B" || name == "File" {
			continue
		}
		if other, ok := seen[v]; ok {
			t.Errorf("%s and %s share %s, but their policies differ", name, other, v)
		}
		seen[v] = name
	}
	if len(vars) != len(variants)+3 {
		t.Errorf("%d operations, want %d", len(vars), len(variants)+3)
	}
}

// Every operation keeps the name of its operationId, whatever order the operations
// come in: a method another operation adds (its text form, its event stream, a request
// content type's) takes a numbered name instead.
func TestOperationNamesBeforeAddedMethods(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    post:
      operationId: a
      requestBody:
        content:
          application/json: {schema: {type: object}}
          application/x-www-form-urlencoded: {schema: {type: object}}
      responses:
        "200":
          description: ok
          content:
            application/json: {schema: {type: string}}
            text/csv: {schema: {type: string}}
            text/event-stream: {schema: {type: string}}
  /b:
    get:
      operationId: aText
      responses: {"204": {description: ok}}
  /c:
    get:
      operationId: aStream
      responses: {"204": {description: ok}}
  /d:
    get:
      operationId: aForm
      responses: {"204": {description: ok}}
`
	api, err := buildSpec(t, spec)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{}
	for _, op := range api.Operations {
		for _, m := range op.Methods() {
			paths[m.GoName] = m.Path
			if m.Stream != nil {
				paths[m.Stream.GoName] = m.Path
			}
		}
	}
	for name, path := range map[string]string{"AText": "/b", "AStream": "/c", "AForm": "/d", "AText2": "/a", "AStream2": "/a", "AForm2": "/a"} {
		if paths[name] != path {
			t.Errorf("%s calls %q, want %q (all: %v)", name, paths[name], path, paths)
		}
	}
}

// An error response whose schema is free-form (any, by a component or inline) has no
// model: a named type over any is an interface, which can carry no Error method. The
// component keeps its alias, and the other statuses keep theirs.
func TestFreeFormErrorSchemaHasNoModel(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: a
      responses:
        "204": {description: ok}
        "400": {description: e, content: {application/json: {schema: {description: anything}}}}
        "404": {description: e, content: {application/json: {schema: {$ref: "#/components/schemas/P"}}}}
        default: {description: e, content: {application/json: {schema: {$ref: "#/components/schemas/Empty"}}}}
components:
  schemas:
    Empty: {}
    P: {type: object, properties: {t: {type: string}}}
`
	api, err := buildSpec(t, spec)
	if err != nil {
		t.Fatal(err)
	}
	op := api.Operations[0]
	if op.Errors == nil || len(op.Errors.Cases) != 1 || op.Errors.Cases[0].Status != "404" {
		t.Fatalf("error cases: %+v", op.Errors)
	}
	for _, d := range api.Decls {
		if d.GoName == "Empty" && (d.Kind != model.AliasDecl || d.ErrorModel) {
			t.Errorf("Empty became kind %v, error model %v", d.Kind, d.ErrorModel)
		}
	}
}

// A policy variable is named after where its policy comes from: an operation's own
// x-retry, a path item's, else what the document and the defaults make of the method;
// so adding an operation renames no other's.
func TestPolicyVarNamesFollowOrigin(t *testing.T) {
	ok := "\n      responses:\n        \"200\": {description: ok}\n"
	spec := func(extra string) string {
		return "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n" + extra +
			"  /pets:\n    get:\n      operationId: listPets" + ok +
			"    post:\n      operationId: createPet" + ok +
			"  /pets/{id}:\n    x-retry: {maxAttempts: 2}\n    parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n" +
			"    get:\n      operationId: getPet" + ok +
			"    patch:\n      operationId: patchPet" + ok +
			"  /orders:\n    post:\n      operationId: placeOrder\n      x-idempotency-key: true\n      x-retry: {maxAttempts: 5}" + ok
	}
	want := map[string]string{
		"ListPets": "policyIdempotent", "CreatePet": "policyNotIdempotent",
		"GetPet": "policyPathPetsIDIdempotent", "PatchPet": "policyPathPetsIDNotIdempotent",
		"PlaceOrder": "policyPlaceOrder",
	}
	for _, extra := range []string{"", "  /aaa:\n    get:\n      operationId: first\n      x-retry: {maxAttempts: 2}" + ok} {
		api, err := buildSpec(t, spec(extra))
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range api.Operations {
			if w, ok := want[op.GoName]; ok && op.PolicyVar != w {
				t.Errorf("with %d operations, %s uses %s, want %s", len(api.Operations), op.GoName, op.PolicyVar, w)
			}
		}
	}
}

// A fragment in the path key tells apart operations on one path and method; the
// request path ends before it.
func TestPathKeyFragmentIsNotSent(t *testing.T) {
	api, err := buildSpec(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /files/{file_id}:
    put:
      operationId: updateFile
      parameters:
        - {name: file_id, in: path, required: true, schema: {type: string}}
      responses:
        "204": {description: ok}
  /files/{file_id}#update_shared_link:
    put:
      parameters:
        - {name: file_id, in: path, required: true, schema: {type: string}}
        - {name: fields, in: query, required: true, schema: {type: string}}
      responses:
        "204": {description: ok}
  /shared_items#folders?kind=x:
    get:
      responses:
        "204": {description: ok}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"/files/{file_id}":                    "/files/{file_id}",
		"/files/{file_id}#update_shared_link": "/files/{file_id}",
		"/shared_items#folders?kind=x":        "/shared_items",
	}
	for _, op := range api.Operations {
		var sent string
		for _, p := range op.PathParts {
			if p.Param != nil {
				sent += "{" + p.Param.Name + "}"
			} else {
				sent += p.Literal
			}
		}
		if sent != want[op.Path] || len(op.FixedQuery) != 0 {
			t.Errorf("%s %s sends %q with query %v, want %q and none", op.Method, op.Path, sent, op.FixedQuery, want[op.Path])
		}
	}
	names := map[string]bool{}
	for _, op := range api.Operations {
		names[op.GoName] = true
	}
	if len(names) != 3 {
		t.Errorf("method names %v, want three distinct", names)
	}
}
