package load

import (
	"strings"
	"testing"
)

// components.pathItems is a field of 3.1's Components Object, which kin-openapi's type
// has not but resolves $refs into: no warning in 3.1, a version warning in 3.0. A
// suggestion never names the field itself.
func TestUnknownFieldWarnings(t *testing.T) {
	const pathItems = "openapi: %s\ninfo: {title: T, version: \"1\"}\npaths:\n  /pets:\n    $ref: '#/components/pathItems/Pets'\n" +
		"components:\n  pathItems:\n    Pets:\n      get:\n        operationId: listPets\n        responses: {\"200\": {description: ok}}\n"
	for name, c := range map[string]struct{ text, want string }{
		"31.yaml": {strings.Replace(pathItems, "%s", "3.1.0", 1), ""},
		"30.yaml": {strings.Replace(pathItems, "%s", "3.0.3", 1),
			"30.yaml:7:3: #/components: field pathItems is for OpenAPI >=3.1\n\tfix: declare openapi: 3.1.0, or write the path items under paths"},
		"misplaced.yaml": {"openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /a:\n    get:\n      operationId: a\n      schemas: {}\n      responses: {\"200\": {description: ok}}\n",
			`misplaced.yaml:7:7: GET /a (a): unknown field "schemas" is ignored`},
		"misspelt.yaml": {"openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /a:\n    get:\n      operationId: a\n      sumary: s\n      responses: {\"200\": {description: ok}}\n",
			"misspelt.yaml:7:7: GET /a (a): unknown field \"sumary\" is ignored\n\tfix: did you mean summary?"},
	} {
		s, err := loadSpec(t, name, c.text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := s.Warnings.Error()
		if c.want == "" && len(s.Warnings) > 0 || c.want != "" && !strings.HasSuffix(strings.TrimSpace(got), "/"+c.want) {
			t.Errorf("%s: warnings %q, want %q", name, got, c.want)
		}
	}
}

// A components key "-", the yaml tag of the fields the decoder leaves out, is one
// unknown field: nothing under it is decoded into the components' extensions.
func TestDashKeyOfComponentsIsUnknown(t *testing.T) {
	s, err := loadSpec(t, "dash.yaml", "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  x-owner: team-a\n"+
		"  \"-\":\n    x-owner: team-b\n    description: notes\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings.Error(), `dash.yaml:6:3: #/components: unknown field "-" is ignored`) {
		t.Errorf("warnings %q, want one: the field \"-\" at 6:3", s.Warnings.Error())
	}
	if got := s.Doc.Components.Extensions["x-owner"]; got != "team-a" {
		t.Errorf("x-owner = %v, want team-a", got)
	}
}
