package load

import (
	"fmt"
	"strings"
	"testing"
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
