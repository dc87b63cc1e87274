package load

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/internal/spectest"
)

// multiFileSpec is a description written across files as vendors write theirs: an
// operation, a path item and a tag's description by $ref, each file's $refs relative to
// it, a discriminator mapping that names a file.
var multiFileSpec = map[string]string{
	"api/api.yaml": `openapi: 3.0.3
info: {title: T, version: "1"}
tags:
  - name: pets
    description: {$ref: "docs/text.yaml#/pets"}
paths:
  /pets/{id}:
    get: {$ref: "ops/get_pet.yaml"}
  /things:
    $ref: "ops/things.yaml"
`,
	"api/docs/text.yaml": "pets: Pets live here.\n",
	"api/ops/get_pet.yaml": `operationId: getPet
description: {$ref: "../docs/text.yaml#/pets"}
parameters:
  - $ref: "params.yaml#/id"
responses:
  "200": {$ref: "../responses/pet.yaml"}
`,
	"api/ops/params.yaml": "id: {name: id, in: path, required: true, schema: {type: string}}\n",
	"api/ops/things.yaml": `get:
  operationId: listThings
  responses:
    "200":
      description: ok
      content:
        application/json:
          schema: {type: array, items: {$ref: "../models/pet.yaml"}}
`,
	"api/responses/pet.yaml": `description: ok
content:
  application/json:
    schema: {$ref: "../models/pet.yaml"}
`,
	"api/models/pet.yaml": `oneOf:
  - $ref: "cat.yaml"
  - $ref: "shared.yaml#/Dog"
discriminator:
  propertyName: kind
  mapping:
    cat: "cat.yaml"
    dog: "shared.yaml#/Dog"
`,
	"api/models/cat.yaml": "type: object\nproperties:\n  kind: {type: string}\n  owner: {$ref: 'shared.yaml#/Owner'}\n",
	"api/models/shared.yaml": `Dog:
  type: object
  properties:
    kind: {type: string}
Owner:
  type: object
  properties:
    name: {type: string}
    pets: {type: array, items: {$ref: "#/Dog"}}
`,
}

func TestMultiFileDescription(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, multiFileSpec)
	s, err := Load(filepath.Join(dir, "api", "api.yaml"), Options{AllowExternalRefs: true})
	if err != nil {
		t.Fatal(err)
	}
	doc := s.Doc
	if got := doc.Tags[0].Description; got != "Pets live here." {
		t.Errorf("tag description %q", got)
	}
	get := doc.Paths.Value("/pets/{id}").Get
	if get == nil || get.OperationID != "getPet" || get.Description != "Pets live here." || len(get.Parameters) != 1 || get.Parameters[0].Value.Name != "id" {
		t.Fatalf("operation by $ref: %+v", get)
	}
	if things := doc.Paths.Value("/things"); things == nil || things.Get == nil || things.Get.OperationID != "listThings" {
		t.Fatalf("path item by $ref: %+v", things)
	}
	// The components, named as Redocly names them.
	var names []string
	for name := range doc.Components.Schemas {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{"Dog", "Owner", "cat", "pet"}; !slices.Equal(names, want) {
		t.Errorf("schemas %v, want %v", names, want)
	}
	if r := get.Responses.Value("200"); r == nil || r.Ref != "#/components/responses/pet" {
		t.Errorf("response 200: %+v", r)
	}
	mapping := doc.Components.Schemas["pet"].Value.Discriminator.Mapping
	if mapping["cat"].Ref != "#/components/schemas/cat" || mapping["dog"].Ref != "#/components/schemas/Dog" {
		t.Errorf("mapping %+v", mapping)
	}
	// Each place is located in the file it was read from.
	pos := s.Files.PosOf(doc.Components.Schemas["Owner"].Value.Origin)
	if !strings.HasSuffix(pos.File, filepath.Join("models", "shared.yaml")) || pos.Line != 5 {
		t.Errorf("Owner located at %v, want models/shared.yaml:5", pos)
	}
	pos = s.Files.PosOfField(get.Origin, "operationId")
	if !strings.HasSuffix(pos.File, filepath.Join("ops", "get_pet.yaml")) || pos.Line != 1 {
		t.Errorf("getPet's operationId located at %v, want ops/get_pet.yaml:1", pos)
	}
}

// Without -allow-external-refs, a description in several files is refused as before.
func TestMultiFileNeedsAllowExternalRefs(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, multiFileSpec)
	_, err := Load(filepath.Join(dir, "api", "api.yaml"), Options{})
	if err == nil || !strings.Contains(err.Error(), `api.yaml:5:19: $ref "docs/text.yaml#/pets" names another file`) || !strings.Contains(err.Error(), "(3 $refs name other files)") {
		t.Errorf("got %v, want the $ref refused", err)
	}
}

// Every problem of the $refs is reported in one run, in the file that holds the $ref,
// with the operation and a fix: a file outside the folder, a file that is not there, a
// place that is not there, a cycle of $refs written out in each other.
func TestMultiFileProblemsAllReported(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{
		"secret.yaml": "x: 1\n",
		"api/api.yaml": `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /a:
    get: {$ref: "ops/a.yaml"}
  /b:
    get: {$ref: "ops/b.yaml"}
`,
		"api/ops/a.yaml": `operationId: getA
description: {$ref: "../../secret.yaml#/x"}
responses:
  "200": {$ref: "missing.yaml"}
  "201": {$ref: "b.yaml#/responses/nope"}
`,
		"api/ops/b.yaml": `operationId: getB
responses:
  "200":
    description: {$ref: "c.yaml"}
`,
		"api/ops/c.yaml": `{$ref: "b.yaml#/responses/200/description"}` + "\n",
	})
	_, err := Load(filepath.Join(dir, "api", "api.yaml"), Options{AllowExternalRefs: true})
	list, ok := err.(source.ErrorList)
	if !ok {
		t.Fatalf("got %v, want a list", err)
	}
	var got []string
	for _, e := range list {
		line := fmt.Sprintf("%s: %s: %s", e.Pos, e.Op, e.Msg)
		got = append(got, filepath.ToSlash(strings.ReplaceAll(line, dir+string(filepath.Separator), "")))
		if e.Fix == "" {
			t.Errorf("%s: no fix", e.Error())
		}
	}
	for _, want := range []string{
		`api/ops/a.yaml:2:15: GET /a (getA): $ref to "../../secret.yaml#/x" is not allowed: it is outside the spec's folder`,
		`api/ops/a.yaml:4:11: GET /a (getA): $ref "missing.yaml": no such file api/ops/missing.yaml`,
		`api/ops/a.yaml:5:11: GET /a (getA): unresolved $ref "b.yaml#/responses/nope": nothing is defined there`,
		`api/ops/b.yaml:4:19: GET /b (getB): $ref cycle: api/ops/c.yaml → api/ops/b.yaml#/responses/200/description → api/ops/c.yaml: what it names contains itself`,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, strings.Join(got, "\n"))
		}
	}
}

// A description whose $refs write out more than MaxNodes is refused at the $ref that
// goes past it, after copying at most MaxNodes nodes, however many it stands for.
func TestMultiFileExpansionBounded(t *testing.T) {
	files := map[string]string{
		"api.yaml": "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ntags: {$ref: \"l0.yaml\"}\n",
	}
	// Each level lists the next 20 times: 20^8 nodes written out.
	for i := range 8 {
		var b strings.Builder
		for range 20 {
			fmt.Fprintf(&b, "- {$ref: \"l%d.yaml\"}\n", i+1)
		}
		files[fmt.Sprintf("l%d.yaml", i)] = b.String()
	}
	files["l8.yaml"] = "[a, b, c]\n"
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, files)
	_, err := Load(filepath.Join(dir, "api.yaml"), Options{AllowExternalRefs: true})
	if err == nil || !strings.Contains(err.Error(), "limit exceeded: the description, its $refs to other files written out, has more than") {
		t.Errorf("got %v, want the node limit", err)
	}
}
