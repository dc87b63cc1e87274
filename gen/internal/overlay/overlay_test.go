package overlay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/theory/jsonpath"
	"go.yaml.in/yaml/v4"
)

// tree parses YAML text.
func tree(t testing.TB, text string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Content) == 0 {
		return &doc
	}
	return doc.Content[0]
}

// dump writes a tree in flow style, keys in document order, for comparisons.
func dump(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		var parts []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			parts = append(parts, n.Content[i].Value+": "+dump(n.Content[i+1]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case yaml.SequenceNode:
		var parts []string
		for _, c := range n.Content {
			parts = append(parts, dump(c))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return n.Value
}

const petstore = `openapi: 3.0.0
info: {title: Pets, version: "1"}
paths:
  /pets:
    get: {operationId: listPets, tags: [pets]}
    post: {operationId: createPet}
  /pets/{id}:
    get: {operationId: getPet}
    delete: {operationId: deletePet}
`

// apply parses the overlay text and applies it to a fresh petstore document.
func apply(t *testing.T, overlayText string) (*Document, source.ErrorList, source.ErrorList) {
	t.Helper()
	o, errs := Parse("o.yaml", tree(t, overlayText))
	if errs != nil {
		t.Fatalf("parse: %v", errs)
	}
	d := NewDocument("api.yaml", tree(t, petstore), 1000)
	var warns source.ErrorList
	d.Apply(o, &errs, &warns)
	return d, errs, warns
}

func overlayOf(version string, actions ...string) string {
	return fmt.Sprintf("overlay: %s\ninfo: {title: t, version: '1'}\nactions:\n%s", version, strings.Join(actions, ""))
}

func TestUpdateMergesIntoEachSelectedObject(t *testing.T) {
	d, errs, warns := apply(t, overlayOf("1.0.0", `
  - target: $.paths.*.post
    update:
      x-idempotency-key: Idempotency-Key
  - target: $.paths.*.get
    update:
      tags: [retried]
      x-retry: {maxAttempts: 2}
`))
	if errs != nil || warns != nil {
		t.Fatalf("errors %v, warnings %v", errs, warns)
	}
	want := "{openapi: 3.0.0, info: {title: Pets, version: 1}, paths: {/pets: {get: {operationId: listPets, tags: [pets, retried], x-retry: {maxAttempts: 2}}, " +
		"post: {operationId: createPet, x-idempotency-key: Idempotency-Key}}, /pets/{id}: {get: {operationId: getPet, tags: [retried], x-retry: {maxAttempts: 2}}, delete: {operationId: deletePet}}}}"
	if got := dump(d.Root); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// What the overlay added is located in the overlay; what it merged into keeps its place.
	post := value(value(value(d.Root, "paths"), "/pets"), "post")
	key := source.MappingKey(post, "x-idempotency-key")
	if f := d.File(key); f != "o.yaml" || key.Line != 7 || key.Column != 7 {
		t.Errorf("added key at %s:%d:%d, want o.yaml:7:7", f, key.Line, key.Column)
	}
	if f := d.File(post); f != "api.yaml" || post.Line != 6 {
		t.Errorf("the operation moved to %s:%d", f, post.Line)
	}
}

// action writes one action in block style: its target, then the given lines.
func action(target string, lines ...string) string {
	return fmt.Sprintf("  - target: %q\n", target) + "    " + strings.Join(lines, "\n    ") + "\n"
}

func TestUpdateKinds(t *testing.T) {
	get := "$.paths['/pets'].get"
	for _, tt := range []struct {
		name, version, action string
		want                  string // the /pets GET afterwards, or the error
	}{
		{"array appended to", "1.0.0", action(get+".tags", "update: dogs"),
			"{operationId: listPets, tags: [pets, dogs]}"},
		{"array concatenated", "1.0.0", action(get+".tags", "update: [dogs, cats]"),
			"{operationId: listPets, tags: [pets, dogs, cats]}"},
		{"primitive replaced in 1.1", "1.1.0", action(get+".operationId", "update: allPets"),
			"{operationId: allPets, tags: [pets]}"},
		{"primitive field replaced", "1.0.0", action(get, "update: {operationId: allPets}"),
			"{operationId: allPets, tags: [pets]}"},
		{"null does not replace an array", "1.0.0", action(get, "update: {tags: null}"),
			"{operationId: listPets, tags: [pets]}"},
		{"null replaced", "1.0.0", action(get, "update: {x-a: null}") + action(get, "update: {x-a: {b: 1}}"),
			"{operationId: listPets, tags: [pets], x-a: {b: 1}}"},
		{"primitive target in 1.0", "1.0.0", action(get+".operationId", "update: allPets"),
			`o.yaml:4:13: action 1: target "$.paths['/pets'].get.operationId" selects primitive values, which only Overlay 1.1 replaces; this overlay declares 1.0.0`},
		{"object into array field", "1.0.0", action(get, "update: {tags: {a: b}}"),
			`o.yaml:5:14: action 1: "tags" is an object in the update but an array in the document (api.yaml:5:40); an update merges objects, concatenates arrays and replaces primitive values`},
		{"array into objects", "1.0.0", action("$.paths.*.get", "update: [a]"),
			`o.yaml:5:13: action 1: target "$.paths.*.get" selects objects, so the value must be an object of the fields to merge into each, got an array`},
		{"mixed kinds", "1.0.0", action(get+".*", "update: {a: b}"),
			`o.yaml:4:13: action 1: target "$.paths['/pets'].get.*" selects primitive values and arrays together; an update or copy needs nodes of one kind`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, errs, _ := apply(t, overlayOf(tt.version, tt.action))
			got := ""
			if errs != nil {
				got = errs[0].Pos.String() + ": " + errs[0].Msg
			} else {
				got = dump(value(value(value(d.Root, "paths"), "/pets"), "get"))
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	d, errs, _ := apply(t, overlayOf("1.0.0",
		action("$.paths.*.delete", "remove: true"),
		action("$.paths['/pets'].get.tags[?@ == 'pets']", "remove: true"),
	))
	if errs != nil {
		t.Fatal(errs)
	}
	want := "{/pets: {get: {operationId: listPets, tags: []}, post: {operationId: createPet}}, /pets/{id}: {get: {operationId: getPet}}}"
	if got := dump(value(d.Root, "paths")); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// The mirror follows: a filter sees what is left.
	_, errs, warns := apply(t, overlayOf("1.0.0",
		action("$.paths.*.delete", "remove: true"),
		action("$.paths[?@.delete]", "update: {x-a: 1}"),
	))
	if errs != nil || len(warns) != 1 || !strings.Contains(warns[0].Msg, "selects nothing") {
		t.Errorf("after the removal a filter on what was removed: errors %v, warnings %v", errs, warns)
	}
	_, errs, _ = apply(t, overlayOf("1.0.0", "  - {target: '$', remove: true}\n"))
	if errs == nil || !strings.Contains(errs[0].Msg, "cannot remove the root") || errs[0].Pos.String() != "o.yaml:4:14" {
		t.Errorf("removing the root: %v", errs)
	}
}

func TestCopy(t *testing.T) {
	d, errs, _ := apply(t, overlayOf("1.1.0", `
  - target: $.paths
    update: {/dogs: {}}
  - target: $.paths['/dogs']
    copy: $.paths['/pets']
  - target: $.paths['/pets']
    remove: true
`))
	if errs != nil {
		t.Fatal(errs)
	}
	want := "{/pets/{id}: {get: {operationId: getPet}, delete: {operationId: deletePet}}, /dogs: {get: {operationId: listPets, tags: [pets]}, post: {operationId: createPet}}}"
	if got := dump(value(d.Root, "paths")); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A copy keeps the place of what it copied: here the description's.
	get := value(value(value(d.Root, "paths"), "/dogs"), "get")
	if f := d.File(get); f != "api.yaml" || get.Line != 5 {
		t.Errorf("copied operation at %s:%d, want api.yaml:5", f, get.Line)
	}
	_, errs, _ = apply(t, overlayOf("1.1.0", action("$.paths['/pets']", "copy: $.paths.*")))
	if errs == nil || !strings.Contains(errs[0].Msg, "selects 2 nodes") {
		t.Errorf("a copy of two nodes: %v", errs)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"openapi: 3.0.0\npaths: {}\n", "o.yaml:1:1: not an overlay: it is an OpenAPI description, not an overlay of one"},
		{"[1, 2]\n", "o.yaml:1:1: not an overlay: the file holds an array, not an object with overlay, info and actions"},
		{"# nothing\n", "o.yaml: not an overlay: the file holds nothing, not an object with overlay, info and actions"},
		{"overlay: 2.0.0\n", `o.yaml:1:10: unsupported overlay version a string "2.0.0": retrygen applies Overlay 1.0 and 1.1`},
		{"overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions: []\n", "o.yaml:3:10: actions must be a non-empty list, got an array"},
		{overlayOf("1.0.0", "  - {target: '$.paths'}\n"), "o.yaml:4:5: action 1 does nothing: it has no update, copy or remove: true"},
		{overlayOf("1.0.0", "  - {update: {a: 1}}\n"), "o.yaml:4:5: action 1 has no target"},
		{overlayOf("1.0.0", "  - {target: '$.paths[', remove: true}\n"), `o.yaml:4:14: action 1: target "$.paths[" is not a JSONPath: unexpected eof at position 9`},
		{overlayOf("1.0.0", "  - {target: 'paths', remove: true}\n"), `o.yaml:4:14: action 1: target "paths" is not a JSONPath: unexpected identifier at position 1`},
		{overlayOf("1.0.0", "  - {target: '$.paths', remove: true, update: {a: 1}}\n"), "o.yaml:4:5: action 1 has more than one of update, copy and remove: true"},
		{overlayOf("1.0.0", "  - {target: '$.paths', remove: yes}\n"), `o.yaml:4:33: action 1: remove must be true or false, got a string "yes"`},
		{overlayOf("1.0.0", "  - {target: '$.paths', updat: {a: 1}}\n"), "o.yaml:4:25: unknown field updat"},
		{overlayOf("1.0.0", "  - {target: '$.paths', copy: '$.info'}\n"), "o.yaml:4:25: action 1: copy is an Overlay 1.1 action; this overlay declares 1.0.0"},
		{overlayOf("1.0.0", "  - {target: '$[?count($..*) > 0]', remove: true}\n"), `o.yaml:4:14: action 1: target "$[?count($..*) > 0]" searches the whole document (with $.* or $..) inside a filter, once for every node the filter tests`},
		{"overlay: 1.0.0\nactions: [{target: '$', remove: true}]\n", "o.yaml:1:1: the overlay has no info object"},
	} {
		_, errs := Parse("o.yaml", tree(t, tt.text))
		if len(errs) == 0 {
			t.Errorf("%q: no error, want %s", tt.text, tt.want)
			continue
		}
		if got := errs[0].Pos.String() + ": " + errs[0].Msg; got != tt.want {
			t.Errorf("%q:\ngot  %s\nwant %s", tt.text, got, tt.want)
		}
	}
}

// A query selects each node once per segment, however many paths lead to it, and a
// descendant segment walks each node once: `$..*..*` over a tree of n nodes does not do
// n×depth work nor return duplicates.
func TestQueriesSelectEachNodeOnce(t *testing.T) {
	d := NewDocument("api.yaml", tree(t, petstore), 1000)
	for _, q := range []string{"$..*", "$..*..*", "$..*..*..*", "$[*,*,*]..*"} {
		p := mustParse(t, q)
		ms, err := d.selectNodes(p.target)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[*yaml.Node]bool{}
		for _, m := range ms {
			if seen[m.node] {
				t.Errorf("%s selects a node twice", q)
			}
			seen[m.node] = true
		}
		if q == "$..*" && len(ms) != d.Nodes()-1-countKeys(d.Root) {
			t.Errorf("$..* selects %d nodes, want every node but the root and the keys (%d)", len(ms), d.Nodes()-1-countKeys(d.Root))
		}
	}
}

func countKeys(n *yaml.Node) int {
	c := 0
	if n.Kind == yaml.MappingNode {
		c = len(n.Content) / 2
	}
	for _, ch := range n.Content {
		c += countKeys(ch)
	}
	return c
}

func mustParse(t *testing.T, q string) *Action {
	t.Helper()
	o, errs := Parse("o.yaml", tree(t, overlayOf("1.0.0", fmt.Sprintf("  - {target: %q, remove: true}\n", q))))
	if errs != nil {
		t.Fatal(errs)
	}
	return o.Actions[0]
}

// An update that would grow the document past its limit is refused before anything is
// copied, located at the target.
func TestGrowthLimit(t *testing.T) {
	o, errs := Parse("o.yaml", tree(t, overlayOf("1.0.0", "  - {target: '$..*', update: [a, b, c, d, e, f, g, h, i, j]}\n")))
	if errs != nil {
		t.Fatal(errs)
	}
	d := NewDocument("api.yaml", tree(t, "a: [[], [], [], [], [], [], [], [], [], []]\n"), 100)
	var warns source.ErrorList
	d.Apply(o, &errs, &warns)
	if len(errs) != 1 || !strings.Contains(errs[0].Msg, "would grow the document past 100 nodes") || errs[0].Pos.String() != "o.yaml:4:14" {
		t.Fatalf("got %v", errs)
	}
	if n := d.Nodes(); n != 13 {
		t.Errorf("the document has %d nodes after the refusal, want the 13 it had", n)
	}
}

// Aliases in the description are written out: an update through one place does not
// change the other.
func TestAliasesAreWrittenOut(t *testing.T) {
	o, errs := Parse("o.yaml", tree(t, overlayOf("1.0.0", "  - {target: '$.b', update: {x: 2}}\n")))
	if errs != nil {
		t.Fatal(errs)
	}
	d := NewDocument("api.yaml", tree(t, "a: &v {x: 1}\nb: *v\n"), 100)
	var warns source.ErrorList
	d.Apply(o, &errs, &warns)
	if got := dump(d.Root); got != "{a: {x: 1}, b: {x: 2}}" {
		t.Errorf("got %s", got)
	}
}

func TestFilterSearches(t *testing.T) {
	for _, tt := range []struct {
		query    string
		searches int
		refused  string
	}{
		{query: "$.paths.*.post"},
		{query: "$..*..*..*"},
		{query: "$.paths.*.get.parameters[?@.name=='filter' && @.in=='query']"},
		{query: "$.paths[?@.get['x-oai-traits'][?@ == 'paged']].get", searches: 1},
		{query: "$.paths[?@.get.tags[?@ == 'a'] || @.post.tags[?@ == 'b']]", searches: 2},
		{query: "$..*[?@..x]", searches: 1},
		{query: "$..*[?count(@.*) > 3 && length(@.a) > 1]", searches: 1},
		{query: "$..*[?@.a == $.info.version]"},
		{query: "$..*[?@.a == '@..x']"},
		{query: `$..*[?@["a..b"] == 1]`},
		{query: "$..*[?@..x && @..y]", refused: "more than one descendant segment"},
		{query: "$..*[?@.*[?@.*]]", refused: "nests a search"},
		{query: "$..*[?count($.*) > 1]", refused: "searches the whole document"},
		{query: "$[?@.*&&@.*&&@.*&&@.*&&@.*&&@.*&&@.*&&@.*&&@.*]", refused: "9 searches inside filters, more than 8"},
	} {
		p, err := jsonpath.Parse(tt.query)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		n, msg := filterSearches(p)
		if n != tt.searches || !strings.Contains(msg, tt.refused) || (tt.refused == "") != (msg == "") {
			t.Errorf("%s: %d searches, refused %q; want %d, %q", tt.query, n, msg, tt.searches, tt.refused)
		}
	}
}

// Many actions cannot together do what one may not: the work of every query counts
// against one budget.
func TestTotalWork(t *testing.T) {
	var b strings.Builder
	b.WriteString("a:\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "  k%d: {b: [1, 2, 3]}\n", i)
	}
	d := NewDocument("api.yaml", tree(t, b.String()), 1_000_000)
	actions := strings.Repeat("  - {target: '$..b', update: 4}\n", 1000)
	o, errs := Parse("o.yaml", tree(t, overlayOf("1.0.0", actions)))
	if errs != nil {
		t.Fatal(errs)
	}
	var warns source.ErrorList
	d.Apply(o, &errs, &warns)
	if len(errs) != 1 || !strings.Contains(errs[0].Msg, "the overlays' queries together take more than") {
		t.Fatalf("got %v", errs)
	}
	t.Log(errs[0])
}
