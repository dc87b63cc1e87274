package load

import (
	"strings"
	"testing"
)

const formDataSpec = `swagger: "2.0"
info: {title: t, version: "1"}
host: api.example.com
parameters:
  shared:
    name: shared
    in: formData
    type: array
    items: {type: string}
    collectionFormat: pipes
paths:
  /forms:
    parameters:
      - {name: inherited, in: formData, type: array, items: {type: string}, collectionFormat: ssv}
    post:
      operationId: postForm
      consumes: [application/x-www-form-urlencoded]
      parameters:
        - {name: csv, in: formData, type: array, items: {type: integer}}
        - {name: multi, in: formData, type: array, items: {type: string}, collectionFormat: multi}
        - {name: tabs, in: formData, type: array, items: {type: string}, collectionFormat: tsv}
        - {name: name, in: formData, type: string, required: true}
        - $ref: "#/parameters/shared"
      responses:
        "204": {description: ok}
  /optional:
    post:
      operationId: optionalForm
      consumes: [multipart/form-data]
      parameters:
        - {name: tags, in: formData, type: array, items: {type: string}}
      responses:
        "204": {description: ok}
`

// A converted formData body is required when one of its parameters is, and each array
// parameter's collectionFormat becomes its property's encoding.
func TestSwagger2FormData(t *testing.T) {
	s, err := loadSpec(t, "swagger.yaml", formDataSpec)
	if err != nil {
		t.Fatal(err)
	}
	body := s.Doc.Paths.Value("/forms").Post.RequestBody.Value
	if !body.Required {
		t.Error("the body with a required formData parameter is optional")
	}
	mt := body.Content.Get("application/x-www-form-urlencoded")
	for name, want := range map[string]string{
		"csv": "form false", "multi": "form true", "tabs": "form false", "shared": "pipeDelimited false", "inherited": "spaceDelimited false",
	} {
		enc := mt.Encoding[name]
		if enc == nil || enc.Explode == nil {
			t.Errorf("%s: encoding %+v, want %s", name, enc, want)
			continue
		}
		if got := enc.Style + " " + map[bool]string{true: "true", false: "false"}[*enc.Explode]; got != want {
			t.Errorf("%s: encoding %s, want %s", name, got, want)
		}
	}
	if mt.Encoding["name"] != nil {
		t.Errorf("the string parameter got an encoding: %+v", mt.Encoding["name"])
	}
	if !strings.Contains(s.Warnings.Error(), `formData parameter "tabs": collectionFormat tsv`) {
		t.Errorf("no warning for tsv: %v", s.Warnings)
	}
	if opt := s.Doc.Paths.Value("/optional").Post.RequestBody.Value; opt.Required {
		t.Error("a body of optional formData parameters is required")
	}
}
