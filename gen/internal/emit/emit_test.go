package emit

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/build"
	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/spectest"
)

// A policy variable's doc names every method that uses it, the <Op>Stream method of an
// operation that also answers JSON included, and Do.
func TestItemsPolicyUsers(t *testing.T) {
	const spec = `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /chat:
    get:
      operationId: chat
      responses:
        "200":
          description: ok
          content:
            application/json: {schema: {type: object, properties: {a: {type: string}}}}
            text/event-stream: {schema: {type: object, properties: {a: {type: string}}}}
`
	src := generate(t, "chat.yaml", spec)
	if !strings.Contains(string(src), "&policyIdempotent, wire.StreamConfig{") {
		t.Fatalf("ChatStream does not use policyIdempotent:\n%s", src)
	}
	if want := "// policyIdempotent is the retry policy of Chat, ChatStream and Do (GET, PUT...).\n"; !strings.Contains(string(src), want) {
		t.Errorf("want %q in:\n%s", want, src)
	}
}

// A policy many methods share names the first few and counts the others, so that the
// doc of a large API's policy stays a few lines.
func TestItemsPolicyUsersCounted(t *testing.T) {
	spec := "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n"
	for i := range 12 {
		spec += fmt.Sprintf("  /p%d:\n    get:\n      operationId: op%02d\n      responses: {\"204\": {description: ok}}\n", i, i)
	}
	src := generate(t, "many.yaml", spec)
	want := "// policyIdempotent is the retry policy of Op00, Op01, Op10, Op11, Op02, Op03, Op04 and 6 other\n// methods.\n"
	if !strings.Contains(string(src), want) {
		t.Errorf("want %q in:\n%s", want, src)
	}
}

// generate writes spec to a file called name and returns the client it generates, in
// package p.
func generate(t *testing.T, name, spec string) []byte {
	t.Helper()
	s, err := load.Load(spectest.Write(t, name, spec), load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api, err := build.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Generate(api, Options{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// A method whose spec types the errors of some statuses only says how to read the others:
// a plain *APIError, whose DecodeBody reads the body; one with a default error model has
// no other status to read.
func TestMethodDocSaysHowToReadUntypedErrors(t *testing.T) {
	const spec = `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /some:
    get:
      operationId: some
      responses:
        "204": {description: ok}
        "404":
          description: missing
          content: {application/json: {schema: {$ref: "#/components/schemas/Problem"}}}
  /every:
    get:
      operationId: every
      responses:
        "204": {description: ok}
        default:
          description: any error
          content: {application/json: {schema: {$ref: "#/components/schemas/Problem"}}}
components:
  schemas:
    Problem: {type: object, properties: {message: {type: string}}}
`
	src := string(generate(t, "errors.yaml", spec))
	docOf := func(method string) string {
		end := strings.Index(src, "\nfunc (c *Client) "+method+"(")
		if end < 0 {
			t.Fatalf("no method %s in:\n%s", method, src)
		}
		return src[strings.LastIndex(src[:end], "\n\n"):end]
	}
	if some := docOf("Some"); !strings.Contains(some, "404: Problem. Another status (a 401, say) is a plain *APIError: its\n// text carries the server's message, and its DecodeBody reads the body's JSON.") {
		t.Errorf("Some's doc:%s", some)
	}
	if every := docOf("Every"); strings.Contains(every, "DecodeBody") {
		t.Errorf("Every's doc:%s", every)
	}
}

// The package doc of a description without operations, only webhooks, speaks of no
// method, there is none, but of the receiver of its webhooks.
func TestPackageDocWithoutOperations(t *testing.T) {
	const spec = `openapi: 3.1.0
info: {title: Hooks, version: "2"}
webhooks:
  newPet:
    post:
      requestBody:
        content:
          application/json: {schema: {type: object, properties: {id: {type: integer}}}}
      responses: {"200": {description: ok}}
`
	src := string(generate(t, "hooks.yaml", spec))
	doc, _, _ := strings.Cut(src[strings.Index(src, "\n// Package "):], "\npackage ")
	if strings.Contains(doc, "method of Client") || strings.Contains(doc, "The methods retry") {
		t.Errorf("the package doc speaks of methods:\n%s", doc)
	}
	if !strings.Contains(strings.Join(strings.Fields(doc), " "), "Package p holds the types of Hooks, version 2, whose description declares no operation") {
		t.Errorf("the package doc does not say what the package holds:\n%s", doc)
	}
	if !strings.Contains(flatDoc(doc), "NewWebhookReceiver returns the http.Handler that checks each delivery and calls the method of a WebhookHandler") {
		t.Errorf("the package doc does not name the webhook receiver:\n%s", doc)
	}
	if m := clientMethods(src); !slices.Equal(m, []string{"Do", "DoRaw", "Err"}) {
		t.Errorf("Client has the methods %v, want Do, DoRaw and Err alone", m)
	}
	if !strings.Contains(flatDoc(doc), "Client has no method of an operation, and its Do and DoRaw call an endpoint by its path") {
		t.Errorf("the package doc does not say what Client has:\n%s", doc)
	}
	if !strings.Contains(src, "func NewWebhookReceiver(") {
		t.Error("no NewWebhookReceiver")
	}
}

// The package doc of a description of components alone names no webhook receiver: it
// has none.
func TestPackageDocOfComponentsAlone(t *testing.T) {
	const spec = `openapi: 3.1.0
info: {title: Shapes, version: "1"}
paths: {}
components:
  schemas:
    Pet: {type: object, properties: {id: {type: integer}}}
`
	src := string(generate(t, "shapes.yaml", spec))
	doc, _, _ := strings.Cut(src[strings.Index(src, "\n// Package "):], "\npackage ")
	flat := flatDoc(doc)
	if !strings.Contains(flat, "Package p holds the types of Shapes, version 1, whose description declares no operation: the types are for decoding and encoding") ||
		!strings.Contains(flat, "Client has no method of an operation, and its Do and DoRaw call an endpoint by its path") {
		t.Errorf("the package doc does not say what the package holds:\n%s", doc)
	}
	if strings.Contains(flat, "webhook") || strings.Contains(src, "func NewWebhookReceiver(") {
		t.Errorf("the package doc or the package speaks of webhooks:\n%s", doc)
	}
}

// flatDoc is the text of the comment lines doc, on one line.
func flatDoc(doc string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(doc, "\n//", "\n")), " ")
}

// clientMethods are the names of the methods of Client that src declares, sorted.
func clientMethods(src string) []string {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		if rest, ok := strings.CutPrefix(line, "func (c *Client) "); ok {
			name, _, _ := strings.Cut(rest, "(")
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
