package gen

import (
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/spectest"
)

// A misspelled fixed field and an extension that looks like a retry setting are located
// warnings with a hint; -strict makes them errors.
func TestWarningsAndStrict(t *testing.T) {
	path := spectest.Write(t, "api.yaml", `openapi: 3.0.3
info: {title: T, version: "1"}
x-retry-strategy: {retries: 3}
paths:
  /x:
    get:
      sumary: hello
      operationId: getX
      x-retries: 5
      responses:
        "200": {description: ok}
`)
	want := []string{
		"api.yaml:3:1: #/x-retry-strategy: x-retry-strategy is not read: retrygen reads x-retry",
		"api.yaml:7:7: GET /x (getX): unknown field \"sumary\" is ignored\n\tfix: did you mean summary?",
		"api.yaml:9:7: GET /x (getX): x-retries is not read",
	}
	s, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := s.Warnings.Error()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("warnings lack %q:\n%s", w, text)
		}
	}
	_, err = Load(path, LoadOptions{Strict: true})
	if err == nil {
		t.Fatal("strict: accepted")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("strict errors lack %q:\n%s", w, err)
		}
	}
}

// oneOf beside properties is not turned into code: -v says so, where, and what is lost.
func TestOneOfBesidePropertiesIsWarned(t *testing.T) {
	path := spectest.Write(t, "api.yaml", `openapi: 3.0.3
info: {title: T, version: "1"}
paths: {}
components:
  schemas:
    A: {type: object, properties: {a: {type: string}}}
    B: {type: object, properties: {b: {type: string}}}
    O:
      type: object
      oneOf: [{$ref: '#/components/schemas/A'}, {$ref: '#/components/schemas/B'}]
      properties:
        common: {type: string}
`)
	s, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "api.yaml:10:7: #/components/schemas/O: oneOf beside properties is not turned into code: O holds the properties only"
	if !strings.Contains(s.Warnings.Error(), want) {
		t.Errorf("warnings lack %q:\n%s", want, s.Warnings.Error())
	}
}

// A GET or DELETE request body that can carry nothing is dropped, with one located
// warning for all of them; a DELETE body with properties is kept.
func TestEmptyRequestBodiesDropped(t *testing.T) {
	path := spectest.Write(t, "api.yaml", `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /charges:
    get:
      operationId: getCharges
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema: {type: object, properties: {}, additionalProperties: false}
      responses:
        "200": {description: ok}
    delete:
      operationId: deleteCharges
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {reason: {type: string}}}
      responses:
        "204": {description: ok}
  /things:
    get:
      operationId: getThings
      requestBody:
        content:
          application/json: {}
      responses:
        "200": {description: ok}
`)
	s, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "api.yaml:7:7: a request body with no properties is dropped from 2 GET, HEAD or DELETE operations (GET /charges, GET /things): their methods take no body argument"
	if !strings.Contains(s.Warnings.Error(), want) {
		t.Errorf("warnings lack %q:\n%s", want, s.Warnings.Error())
	}
	src, err := Generate(s, GenerateOptions{Package: "api"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []string{
		"func (c *Client) GetCharges(ctx context.Context, opts ...CallOption) error",
		"func (c *Client) GetThings(ctx context.Context, opts ...CallOption) error",
		"func (c *Client) DeleteCharges(ctx context.Context, body *DeleteChargesRequest, opts ...CallOption) error",
	} {
		if !strings.Contains(string(src), sig) {
			t.Errorf("no %s", sig)
		}
	}
}
