package gen

// C9 of docs/reliability.md: the same spec gives the same bytes, whatever the order of its
// mappings, the time zone, the locale and the run.

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
	"go.yaml.in/yaml/v4"
)

// determinismEnv, when set, makes TestRegenerationIsByteIdentical generate the specs its
// value lists (one path a line) into path+".go" instead of testing: it is how the test
// runs generations in other environments.
const determinismEnv = "RETRYGEN_TEST_GENERATE_LIST"

// determinismEnvironments are the environments regenerations run in.
var determinismEnvironments = [][]string{
	{"TZ=UTC", "LANG=C", "LC_ALL=C"},
	{"TZ=Asia/Kolkata", "LANG=tr_TR.UTF-8", "LC_ALL=tr_TR.UTF-8"},
	{"TZ=America/St_Johns", "LANG=ja_JP.UTF-8", "LC_ALL=ja_JP.UTF-8", "GOMAXPROCS=1"},
	{"TZ=Pacific/Chatham", "LANG=de_DE.UTF-8", "LC_ALL=de_DE.UTF-8", "GODEBUG=randautoseed=0"},
}

// shuffleMappings reorders the keys of every mapping of n, leaving sequences in order.
func shuffleMappings(n *yaml.Node, r *rand.Rand) {
	if n.Kind == yaml.MappingNode {
		pairs := len(n.Content) / 2
		r.Shuffle(pairs, func(i, j int) {
			n.Content[2*i], n.Content[2*j] = n.Content[2*j], n.Content[2*i]
			n.Content[2*i+1], n.Content[2*j+1] = n.Content[2*j+1], n.Content[2*i+1]
		})
	}
	for _, c := range n.Content {
		shuffleMappings(c, r)
	}
}

// keepSpellingOrder puts the component schemas of the document root whose names spell
// one Go name (foo_bar, FooBar; or FooBar and FooBarObject, the name the word of its shape
// gives another) back in the order the spec wrote them, in the places the shuffle gave
// them: the first written keeps the name, so that order is part of the spec.
func keepSpellingOrder(root *yaml.Node) {
	schemas := mappingAt(root, "components", "schemas")
	if schemas == nil {
		return
	}
	goNames := map[string]int{}
	for i := 0; i+1 < len(schemas.Content); i += 2 {
		goNames[names.GoName(schemas.Content[i].Value)]++
	}
	spells := func(key string) bool {
		name := names.GoName(key)
		if goNames[name] > 1 {
			return true
		}
		for _, w := range []string{"Object", "Enum", "Union", "Type"} {
			if goNames[name+w] > 0 || goNames[strings.TrimSuffix(name, w)] > 0 && strings.HasSuffix(name, w) {
				return true
			}
		}
		return false
	}
	var places []int
	for i := 0; i+1 < len(schemas.Content); i += 2 {
		if spells(schemas.Content[i].Value) {
			places = append(places, i)
		}
	}
	pairs := make([][2]*yaml.Node, len(places))
	for k, i := range places {
		pairs[k] = [2]*yaml.Node{schemas.Content[i], schemas.Content[i+1]}
	}
	slices.SortStableFunc(pairs, func(a, b [2]*yaml.Node) int { return cmp.Compare(a[0].Line, b[0].Line) })
	for k, i := range places {
		schemas.Content[i], schemas.Content[i+1] = pairs[k][0], pairs[k][1]
	}
}

// mappingAt is the mapping at the path of keys below the document node root, or nil.
func mappingAt(root *yaml.Node, path ...string) *yaml.Node {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, key := range path {
		var next *yaml.Node
		for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
			}
		}
		if next == nil || next.Kind != yaml.MappingNode {
			return nil
		}
		n = next
	}
	return n
}

// TestRegenerationIsByteIdentical writes 20 variants of each spec, its mappings
// shuffled differently in each (but for the order of components that spell one Go name,
// see keepSpellingOrder), and generates them in four environments (time zones,
// locales, GOMAXPROCS) in child processes, five variants each: every output must be
// byte for byte the client generated here from the spec as written.
func TestRegenerationIsByteIdentical(t *testing.T) {
	if list := os.Getenv(determinismEnv); list != "" {
		generateListed(t, list)
		return
	}
	longtest.Heavy(t)
	specs := []string{
		filepath.Join("..", "examples", "petstore", "petstore.yaml"),
		filepath.Join("..", "testdata", "hostile", "recursive.yaml"),
		filepath.Join("..", "testdata", "hostile", "wire.yaml"),
	}
	if dir, ok := corpus.Find(); ok {
		specs = append(specs, filepath.Join(dir, "oai-tictactoe-31.yaml"), filepath.Join(dir, "swagger2-uber.yaml"))
	} else {
		t.Log("the spec corpus is absent: only the repository's specs are checked")
	}
	for _, name := range goldenCases(t) {
		specs = append(specs, filepath.Join(goldenDir, name, "spec.yaml"))
	}
	dir := t.TempDir()
	want := map[string][]byte{} // by variant path
	var lists [4][]string
	n := 0
	for i, spec := range specs {
		data, err := os.ReadFile(spec)
		if err != nil {
			t.Fatal(err)
		}
		expected, err := generateFile(dir, fmt.Sprintf("original%d%s", i, filepath.Ext(spec)), data, "client")
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		var root yaml.Node
		if err := yaml.Unmarshal(data, &root); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		for v := range 20 {
			shuffleMappings(&root, rand.New(rand.NewPCG(uint64(i), uint64(v))))
			keepSpellingOrder(&root)
			text, err := yaml.Marshal(&root)
			if err != nil {
				t.Fatal(err)
			}
			// The same file name for every variant, since the header names the spec.
			sub := filepath.Join(dir, fmt.Sprintf("s%d-v%d", i, v))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(sub, fmt.Sprintf("original%d.yaml", i))
			if err := os.WriteFile(path, text, 0o644); err != nil {
				t.Fatal(err)
			}
			want[path] = expected
			lists[v%4] = append(lists[v%4], path)
			n++
		}
	}
	for e, env := range determinismEnvironments {
		listFile := filepath.Join(dir, fmt.Sprintf("list%d", e))
		if err := os.WriteFile(listFile, []byte(strings.Join(lists[e], "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestRegenerationIsByteIdentical$", "-test.count=1")
		cmd.Env = append(append(os.Environ(), env...), determinismEnv+"="+listFile)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("generating in %v: %v\n%s", env, err, out)
		}
	}
	differ := 0
	for path, expected := range want {
		got, err := os.ReadFile(path + ".go")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, expected) {
			differ++
			if differ <= 3 {
				t.Errorf("%s: generated %d bytes that differ from the %d generated from the spec as written", path, len(got), len(expected))
			}
		}
	}
	t.Logf("%d regenerations (%d specs × 20 orders of their mappings, in %d environments): %d differ",
		n, n/20, len(determinismEnvironments), differ)
}

// generateListed generates each spec the file at list names into its path plus ".go".
func generateListed(t *testing.T, list string) {
	data, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range strings.Split(string(data), "\n") {
		spec, err := Load(path, LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		src, err := Generate(spec, GenerateOptions{Package: "client", Command: filepath.Base(path)})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := os.WriteFile(path+".go", src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Adding an operation whose path sorts first to the petstore changes no line of the
// generated file but its own and its policy's doc: regenerating after a spec change shows
// what changed and nothing else.
// petstoreAndOneMore returns examples/petstore/petstore.yaml, and the same with one more
// operation, getAaa, whose path sorts first.
func petstoreAndOneMore(t *testing.T) (spec, added []byte) {
	t.Helper()
	spec, err := os.ReadFile(filepath.Join("..", "examples", "petstore", "petstore.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	more := strings.Replace(string(spec), "\npaths:\n", "\npaths:\n  /aaa:\n    get:\n      operationId: getAaa\n      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n              schema: {type: string}\n", 1)
	if more == string(spec) {
		t.Fatal("petstore.yaml has no paths line")
	}
	return spec, []byte(more)
}

func TestAddedOperationChangesNothingElse(t *testing.T) {
	spec, added := petstoreAndOneMore(t)
	onlyAdded(t, spec, added)
}

// thingsSpec holds inline types of every kind of place: a request body's object with a
// nested object, an enum property and an array of objects, a query parameter's enum, a
// response's object and a union. Two places ask for CreateThingStatus (the body's
// property and the query parameter), so both have longer names already.
const thingsSpec = `openapi: 3.0.3
info: {title: Things, version: "1"}
paths:
  /things:
    post:
      operationId: createThing
      parameters:
        - {name: status, in: query, schema: {type: string, enum: [open, closed]}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                status: {type: string, enum: [draft, final]}
                owner:
                  type: object
                  properties:
                    name: {type: string}
                    address: {type: object, properties: {city: {type: string}}}
                tags:
                  type: array
                  items: {type: object, properties: {label: {type: string}}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  id: {type: string}
                  shape:
                    oneOf:
                      - {type: object, properties: {kind: {type: string, enum: [circle]}, radius: {type: number}}}
                      - {type: object, properties: {kind: {type: string, enum: [square]}, side: {type: number}}}
components:
  schemas:
    Thing:
      type: object
      properties:
        owner: {type: object, properties: {name: {type: string}}}
        sizes: {type: array, items: {type: object, properties: {w: {type: integer}}}}
`

// TestAddedTypesChangeNothingElse adds to a spec with inline types a component schema
// whose name two existing places ask for (CreateThingStatus), and an operation, whose
// path sorts first, with inline types of its own: no line of the generated file changes
// but the new declarations' and the policy doc the new operation joins. An inline type's
// name depends on its place; a component never takes a name from one that had it.
func TestAddedTypesChangeNothingElse(t *testing.T) {
	more := strings.Replace(thingsSpec, "\npaths:\n", `
paths:
  /aaa:
    post:
      operationId: createWidget
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                address: {type: object, properties: {zip: {type: string}}}
                status: {type: string, enum: [a, b]}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {owner: {type: object, properties: {id: {type: string}}}}}
`, 1)
	more = strings.Replace(more, "\n  schemas:\n", `
  schemas:
    CreateThingStatus: {type: string, enum: [x, y]}
    ThingOwnerAddress: {type: object, properties: {line: {type: string}}}
`, 1)
	if more == thingsSpec {
		t.Fatal("no paths or schemas line")
	}
	onlyAdded(t, []byte(thingsSpec), []byte(more))
}

// TestAddedSpellingKeepsTheName adds a component whose name spells the Go name of one
// already there in another way (FooBar after foo_bar, foo_bar after FooBar, and
// FooBarObject after both), in YAML and in JSON: the ones there keep their names and
// nothing else changes; the new one adds the word of its shape.
func TestAddedSpellingKeepsTheName(t *testing.T) {
	const yamlSpec = `openapi: 3.0.3
info: {title: S, version: "1"}
paths:
  /things:
    get:
      operationId: getThing
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/%s"}
components:
  schemas:
%s`
	const jsonSpec = `{"openapi": "3.0.3", "info": {"title": "S", "version": "1"},
  "paths": {"/things": {"get": {"operationId": "getThing", "responses": {"200": {"description": "ok",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/%s"}}}}}}}},
  "components": {"schemas": {%s
  }}}
`
	forms := []struct {
		name, text, entry, sep string
	}{
		{"yaml", yamlSpec, "    %s: {type: object, properties: {p%d: {type: string}}}\n", ""},
		{"json", jsonSpec, "\n    %q: {\"type\": \"object\", \"properties\": {\"p%d\": {\"type\": \"string\"}}}", ","},
	}
	for _, tc := range []struct {
		there []string
		added string
		want  string
	}{
		{[]string{"foo_bar"}, "FooBar", "FooBarObject"},
		{[]string{"FooBar"}, "foo_bar", "FooBarObject"},
		{[]string{"foo_bar", "FooBar"}, "FooBarObject", "FooBarObjectObject"},
	} {
		for _, form := range forms {
			t.Run(tc.added+" after "+strings.Join(tc.there, ", ")+" in "+form.name, func(t *testing.T) {
				var entries []string
				for i, name := range append(slices.Clone(tc.there), tc.added) {
					entries = append(entries, fmt.Sprintf(form.entry, name, i))
				}
				n := len(tc.there)
				before := fmt.Sprintf(form.text, tc.there[0], strings.Join(entries[:n], form.sep))
				after := fmt.Sprintf(form.text, tc.there[0], strings.Join(entries, form.sep))
				onlyAdded(t, []byte(before), []byte(after))
				src, err := generateFile(t.TempDir(), "spec."+form.name, []byte(after), "client")
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(src), "// "+tc.want+" is the schema at #/components/schemas/"+tc.added+".") {
					t.Errorf("%s is not %s", tc.added, tc.want)
				}
			})
		}
	}
}

// onlyAdded generates spec and added, and fails for every line of the client of spec
// that the client of added does not have, but the header and the doc of a policy
// variable (which lists the methods that use it).
func onlyAdded(t *testing.T, spec, added []byte) {
	t.Helper()
	dir := t.TempDir()
	before, err := generateFile(dir, "before.yaml", spec, "client")
	if err != nil {
		t.Fatal(err)
	}
	after, err := generateFile(dir, "after.yaml", added, "client")
	if err != nil {
		t.Fatal(err)
	}
	left := map[string]int{}
	for _, line := range strings.Split(string(after), "\n") {
		left[line]++
	}
	inPolicyDoc := false
	for _, line := range strings.Split(string(before), "\n") {
		if left[line] > 0 {
			left[line]--
			inPolicyDoc = false
			continue
		}
		// The doc of the policy variable the new operation shares lists its users.
		if strings.HasPrefix(line, "// policy") || inPolicyDoc && strings.HasPrefix(line, "// ") {
			inPolicyDoc = true
			continue
		}
		if !strings.HasPrefix(line, "// Code generated") {
			t.Errorf("the line %q changed", line)
		}
	}
}

// titleSpec holds titled inline schemas: one whose title is longer than its place's name
// (MailingAddressDetails), identical schemas whose title no type may take (Option), one
// titled Address, and two properties whose places spell one name (Pet's owner_name and
// PetOwner's name).
const titleSpec = `openapi: 3.0.3
info: {title: S, version: "1"}
paths:
  /pets:
    post:
      operationId: createPet
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                addr: {type: object, title: MailingAddressDetails, properties: {city: {type: string}}}
                shipping_address_of_pet: {type: object, title: Address, properties: {city: {type: string}}}
      responses:
        "204": {description: ok}
  /b:
    post:
      operationId: postB
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {addr: {type: object, title: Option, properties: {city: {type: string}}}}}
      responses: {"204": {description: ok}}
  /c:
    post:
      operationId: postC
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {addr: {type: object, title: Option, properties: {city: {type: string}}}}}
      responses: {"204": {description: ok}}
components:
  schemas:
    Pet:
      type: object
      properties:
        owner_name: {type: object, properties: {first: {type: string}}}
        kind: {type: string, enum: [dog, cat]}
    PetOwner:
      type: object
      properties:
        name: {type: object, properties: {given: {type: string}}}
`

// TestAddedTitlesChangeNothingElse adds operations whose inline schemas meet the
// existing ones' titles: the same title and content where the title is longer than the
// place (it names neither), the same title the client may not use (each place keeps its
// own type), the title Address with other content on a shorter place (the longer place
// keeps it); and a property whose type would take the name of an enum constant. No line
// of the client changes but the new declarations.
func TestAddedTitlesChangeNothingElse(t *testing.T) {
	more := strings.Replace(titleSpec, "\npaths:\n", `
paths:
  /a:
    post:
      operationId: postA
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {addr: {type: object, title: Option, properties: {city: {type: string}}}}}
      responses: {"204": {description: ok}}
  /owners:
    post:
      operationId: createOwner
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                mail: {type: object, title: MailingAddressDetails, properties: {city: {type: string}}}
                home: {type: object, title: Address, properties: {street: {type: string}}}
      responses:
        "204": {description: ok}
`, 1)
	if more == titleSpec {
		t.Fatal("no paths line")
	}
	onlyAdded(t, []byte(titleSpec), []byte(more))
}

// Places that spell one name are told apart by words, not numbers: the step and the
// type that holds it (OwnerNameOfPet beside NameOfPetOwner), and an enum constant that
// meets a type's name takes the word Value.
func TestNamesToldApartByWords(t *testing.T) {
	dir := t.TempDir()
	src, err := generateFile(dir, "spec.yaml", []byte(strings.Replace(titleSpec, "        kind: {type: string, enum: [dog, cat]}\n",
		"        kind: {type: string, enum: [dog, cat]}\n        kind_dog: {type: object, properties: {x: {type: string}}}\n", 1)), "client")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"type OwnerNameOfPet struct", "type NameOfPetOwner struct", "type PetKindDog struct", "PetKindDogValue PetKind = "} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the client lacks %q", want)
		}
	}
	for _, line := range strings.Split(string(src), "\n") {
		if f := strings.Fields(line); len(f) > 1 && (f[0] == "type" || len(f) > 2 && f[2] == "=") {
			if name := f[0]; f[0] == "type" {
				name = f[1]
				if r := name[len(name)-1]; r >= '0' && r <= '9' {
					t.Errorf("%s ends in a number", name)
				}
			} else if r := name[len(name)-1]; r >= '0' && r <= '9' {
				t.Errorf("%s ends in a number", name)
			}
		}
	}
}

// Places that spell one name are told apart by what the spec writes, not by numbers: the
// signs of Etc/GMT+1 and Etc/GMT-1 (and so of every value of that enum), the letter case
// of "add" and "Add", the properties "+1" and "-1", the types of union variants of one
// title, the places of variants of one shape, the statuses of error models, and where
// parameters of one name are sent.
func TestNumbersGiveWayToWords(t *testing.T) {
	const spec = `openapi: 3.0.3
info: {title: S, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {$ref: "#/components/schemas/Reactions"}}}
        "404":
          description: gone
          content: {application/json: {schema: {$ref: "#/components/schemas/Problem"}}}
  /b:
    get:
      operationId: getB
      parameters:
        - {name: limit, in: query, schema: {type: integer}}
        - {name: Limit, in: header, schema: {type: integer}}
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {$ref: "#/components/schemas/Input"}}}
        "409":
          description: conflict
          content: {application/json: {schema: {$ref: "#/components/schemas/Problem"}}}
components:
  schemas:
    Problem: {type: object, properties: {detail: {type: string}}}
    Zone: {type: string, enum: ["Etc/GMT+1", "Etc/GMT-1", "Etc/GMT-13", "GMT0"]}
    Op: {type: string, enum: [add, Add, ADD, remove]}
    Reactions:
      type: object
      properties:
        "+1": {type: integer}
        "-1": {type: integer}
        id: {type: string}
        ID: {type: string}
    Input:
      oneOf:
        - {title: array, type: array, items: {type: string}}
        - {title: array, type: array, items: {type: integer}}
        - {type: object, properties: {note: {type: string}}}
        - {type: object, properties: {content_id: {type: integer}}}
`
	src, err := generateFile(t.TempDir(), "spec.yaml", []byte(spec), "client")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`ZoneEtcGmtPlus1 Zone = "Etc/GMT+1"`, `ZoneEtcGmtMinus1 Zone = "Etc/GMT-1"`, `ZoneEtcGmtMinus13 Zone = "Etc/GMT-13"`,
		`OpAdd Op = "add"`, `OpAddCapitalized Op = "Add"`, `OpAddUpper Op = "ADD"`, `OpRemove Op = "remove"`,
		"Plus1 *int64 `json:\"+1,omitzero\"`", "Minus1 *int64 `json:\"-1,omitzero\"`",
		"ID *string `json:\"id,omitzero\"`", "IDUpper *string `json:\"ID,omitzero\"`",
		"StringList *[]string", "Int64List *[]int64", "ThirdObject *InputThirdObject", "FourthObject *InputFourthObject",
		"func errorsProblemOn404(", "func errorsProblemOn409(", "QueryLimit *int64", "HeaderLimit *int64",
	} {
		if !strings.Contains(strings.Join(strings.Fields(string(src)), " "), want) {
			t.Errorf("the client lacks %q", want)
		}
	}
	if numbered := numberedNames(t, src, spec); len(numbered) > 0 {
		t.Errorf("names told apart by a number: %v", numbered)
	}
}
