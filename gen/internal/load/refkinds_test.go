package load

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/spectest"
)

// vendorMistakes holds two problems kin-openapi reports one at a time, without the
// operation or a fix: a response $ref that names a request body, at two places, and a
// discriminator mapping entry that names a response.
const vendorMistakes = `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200": {$ref: "#/components/requestBodies/Thing"}
  /b:
    post:
      operationId: postB
      responses:
        "200": {$ref: "#/components/requestBodies/Thing"}
  /c:
    get:
      operationId: getC
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Pet"}
components:
  requestBodies:
    Thing:
      content:
        application/json:
          schema: {type: object}
  responses:
    NotASchema: {description: x}
  schemas:
    Pet:
      oneOf: [{$ref: "#/components/schemas/Cat"}, {$ref: "#/components/schemas/Dog"}]
      discriminator:
        propertyName: kind
        mapping:
          cat: "#/components/schemas/Cat"
          dog: "#/components/responses/NotASchema"
    Cat: {type: object, properties: {kind: {type: string}}}
    Dog: {type: object, properties: {kind: {type: string}}}
`

// Every problem is reported in one run, located, with the operation and a fix.
func TestVendorMistakesAllReported(t *testing.T) {
	_, err := loadSpec(t, "api.yaml", vendorMistakes)
	got := fmt.Sprint(err)
	for _, want := range []string{
		`api.yaml:8:17: GET /a (getA): $ref "#/components/requestBodies/Thing" names a request body, where a response belongs` + "\n\tfix: name a response of components/responses here",
		`api.yaml:13:17: POST /b (postB): $ref "#/components/requestBodies/Thing" names a request body, where a response belongs` + "\n\tfix: name a response of components/responses here",
		`api.yaml:38:11: discriminator mapping "dog": "#/components/responses/NotASchema" names a response, not a schema` + "\n\tfix: name a schema of components/schemas",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant it to hold\n%s", got, want)
		}
	}
	if n := strings.Count(got, "\n\tfix:"); n != 3 {
		t.Errorf("%d problems, want 3:\n%s", n, got)
	}
}

// A mapping entry that names no schema beside a single variant, or is a description
// where a $ref belongs, changes nothing in the client: a warning, located, with the
// overlay that removes it; the description loads.
func TestSingleVariantMappingIsAWarning(t *testing.T) {
	s, err := loadSpec(t, "api.yaml", `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /c:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Pet"}
components:
  responses:
    NotASchema: {description: x}
  schemas:
    Pet:
      oneOf: [{$ref: "#/components/schemas/Cat"}]
      discriminator:
        propertyName: kind
        mapping:
          cat: "#/components/schemas/Cat"
          dog: "#/components/responses/NotASchema"
          hen: The hen, when there is one.
    Cat: {type: object, properties: {kind: {type: string}}}
`)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Warnings.Error()
	for _, want := range []string{
		`api.yaml:22:11: discriminator mapping "dog": "#/components/responses/NotASchema" names a response, not a schema; beside a single variant, it changes nothing in the client` +
			"\n\tfix: remove the entry with an overlay action {target: \"$.components.schemas.Pet.discriminator.mapping.dog\", remove: true}",
		`api.yaml:23:11: discriminator mapping "hen": "The hen, when there is one." is a description where a $ref or a schema's name belongs; beside a single variant`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings\n%s\nlack\n%s", got, want)
		}
	}
}

// $refs that name only each other, or the object they are written in, are reported once
// as what they are, with a fix, and nothing else is said of them; a schema that holds a
// $ref to itself further down is no such cycle. A $ref with a bad percent-escape is
// malformed, with external $refs allowed or not.
func TestRefCyclesAndMalformedRefsAreNamed(t *testing.T) {
	const head = "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /a:\n    get:\n      operationId: getA\n"
	for name, c := range map[string]struct{ text, want string }{
		"pair.yaml": {head + "      parameters: [{$ref: '#/components/parameters/P1'}]\n      responses: {\"200\": {description: ok}}\n" +
			"components:\n  parameters:\n    P1: {$ref: '#/components/parameters/P2'}\n    P2: {$ref: '#/components/parameters/P1'}\n",
			`pair.yaml:11:10: $ref cycle: "#/components/parameters/P2" → "#/components/parameters/P1" → "#/components/parameters/P2": these $refs name only each other, so none names a parameter` +
				"\n\tfix: write the definition in place of one of them"},
		"three.yaml": {head + "      responses: {\"200\": {$ref: '#/components/responses/R1'}}\n" +
			"components:\n  responses:\n    R1: {$ref: '#/components/responses/R2'}\n    R2: {$ref: '#/components/responses/R3'}\n    R3: {$ref: '#/components/responses/R1'}\n",
			`three.yaml:10:10: $ref cycle: "#/components/responses/R2" → "#/components/responses/R3" → "#/components/responses/R1" → "#/components/responses/R2": these $refs name only each other, so none names a response`},
		"self.yaml": {head + "      responses:\n        \"200\": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/A/properties/b/items'}}}}\n" +
			"components:\n  schemas:\n    A: {type: object, properties: {b: {type: array, items: {$ref: '#/components/schemas/A/properties/b/items'}}}}\n",
			`self.yaml:11:61: $ref "#/components/schemas/A/properties/b/items" names the object it is written in, so it names nothing` +
				"\n\tfix: name the definition itself"},
		"escape.yaml": {head + "      responses: {\"200\": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/A%zz'}}}}}\n" +
			"components:\n  schemas:\n    A: {type: string}\n",
			`escape.yaml:7:82: GET /a (getA): malformed $ref "#/components/schemas/A%zz": "%zz" is not a percent-escape` +
				"\n\tfix: write a % as %25, and any other escape as % and two hexadecimal digits"},
	} {
		for _, external := range []bool{false, true} {
			_, err := Load(spectest.Write(t, name, c.text), Options{AllowExternalRefs: external})
			if err == nil || !strings.HasSuffix(err.Error(), "/"+c.want) && !strings.Contains(err.Error(), "/"+c.want+"\n\tfix") || strings.Count(err.Error(), "\n\tfix") != 1 {
				t.Errorf("%s (external $refs %v): got %v, want one error: %s", name, external, err, c.want)
			}
		}
	}
	recursive := head + "      responses: {\"200\": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}}}\n" +
		"components:\n  schemas:\n    A: {type: object, properties: {next: {$ref: '#/components/schemas/A'}, all: {type: array, items: {$ref: '#/components/schemas/A/properties/next'}}}}\n"
	if _, err := loadSpec(t, "recursive.yaml", recursive); err != nil {
		t.Errorf("recursive.yaml: %v", err)
	}
}
