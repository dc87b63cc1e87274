package conformance

import (
	"context"
	"regexp"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func TestFromPattern(t *testing.T) {
	for _, pattern := range []string{
		`^[a-z]{3}-\d{2,4}$`,
		`^(cus|acct)_[A-Za-z0-9]+$`,
		`^\+?[1-9]\d{1,14}$`,
		`[0-9a-f]{8}`,
		`^#[0-9A-F]{6}$`,
		`^(?:v\d+\.)?\d+$`,
	} {
		got, ok := fromPattern(pattern, 0)
		if !ok || !regexp.MustCompile(pattern).MatchString(got) {
			t.Errorf("fromPattern(%q) = %q, %v; want a match", pattern, got, ok)
		}
	}
}

// TestSamplesValidate builds samples for schemas with the keywords the sampler reads and
// checks them with kin-openapi, as the suite does.
func TestSamplesValidate(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(`openapi: 3.0.3
info: {title: T, version: "1"}
paths: {}
components:
  schemas:
    Bounded:
      type: object
      required: [n, x, s, e, d, list, ro]
      properties:
        n: {type: integer, minimum: 10, maximum: 20, multipleOf: 7}
        x: {type: number, minimum: 0, exclusiveMinimum: true, maximum: 1}
        s: {type: string, minLength: 12, maxLength: 12, pattern: "^[a-z]+$"}
        e: {type: string, enum: [b, c]}
        d: {type: string, format: date-time}
        list: {type: array, items: {type: string, format: uuid}, minItems: 2, uniqueItems: true}
        ro: {type: string, readOnly: true}
        wo: {type: string, writeOnly: true}
    Pet:
      oneOf:
        - $ref: "#/components/schemas/Cat"
        - $ref: "#/components/schemas/Dog"
      discriminator:
        propertyName: kind
        mapping:
          cat: "#/components/schemas/Cat"
          dog: "#/components/schemas/Dog"
    Cat:
      type: object
      required: [kind, lives]
      properties:
        kind: {type: string}
        lives: {type: integer, minimum: 1, maximum: 9}
    Dog:
      type: object
      required: [kind, bark]
      properties:
        kind: {type: string}
        bark: {type: boolean}
    Merged:
      allOf:
        - $ref: "#/components/schemas/Cat"
        - type: object
          required: [name]
          properties:
            name: {type: string, example: Tom}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, request := range []bool{false, true} {
		s := sampler{request: request}
		for _, name := range sortedKeys(doc.Components.Schemas) {
			ref := doc.Components.Schemas[name]
			v, err := s.sample(ref)
			if err != nil {
				t.Errorf("%s (request %v): %v; sample %v", name, request, err, string(mustJSON(v)))
			}
		}
	}
}
