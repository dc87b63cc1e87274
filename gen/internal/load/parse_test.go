package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// sameTree returns where two trees first differ in what the guard reads of a node
// (kind, scalar value, position, children), or "" if they do not. cmp.Diff would
// take seconds on a large description.
func sameTree(want, got *yaml.Node, at string) string {
	if want.Kind != got.Kind || want.Line != got.Line || want.Column != got.Column ||
		(want.Kind == yaml.ScalarNode && want.Value != got.Value) || len(want.Content) != len(got.Content) {
		return fmt.Sprintf("%s: YAML reads kind %v %q at %d:%d with %d children; parseJSON kind %v %q at %d:%d with %d",
			at, want.Kind, want.Value, want.Line, want.Column, len(want.Content),
			got.Kind, got.Value, got.Line, got.Column, len(got.Content))
	}
	for i := range want.Content {
		if d := sameTree(want.Content[i], got.Content[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// yamlTree is the tree preflight reads with the YAML parser, columns the file's own.
func yamlTree(t testing.TB, data []byte) (*yaml.Node, bool) {
	s := &Spec{Path: "x.json", Files: source.NewFiles("x.json")}
	var doc yaml.Node
	if yaml.Unmarshal(s.forParser(data), &doc) != nil || len(doc.Content) == 0 {
		return nil, false
	}
	s.unshift(doc.Content[0])
	return doc.Content[0], true
}

func TestParseJSONMatchesYAML(t *testing.T) {
	docs := map[string]string{
		"scalars":   `{"a": 1, "b": -2.5e3, "c": true, "d": false, "e": null, "f": "x"}`,
		"nested":    "{\n  \"paths\": {\n    \"/p\": {\"get\": {\"$ref\": \"#/x\"}}\n  },\n  \"l\": [1, [2, []], {}]\n}\n",
		"wide":      "{\"é\": \"ünï\", \"k\": \"日本語\", \"z\": 1}",
		"escapes":   `{"a\"b": "x\ny\t\\\/ \u00e9 \u0041", "c": "é\u00e9é", "d": 2}`,
		"crlf":      "{\r\n\t\"a\": [\r\n\t\t1,\r\n\t\t2\r\n\t]\r\n}\r\n",
		"bom":       "\uFEFF{\"a\": {\"b\": 1}}",
		"indented":  "\n\n   {\"a\": 1,\n \"b\": 2}",
		"minified":  `{"a":[1,2,{"b":"c"}],"d":{"e":{"f":null}}}`,
		"array":     `[{"a": 1}, "b"]`,
		"tabbed":    "{\"a\":\t1,\t\"b\"\t:\t[\t2\t]}",
		"long line": `{"a": "` + strings.Repeat("é", 300) + `", "b": [` + strings.Repeat(`"x", `, 50) + `1]}`,
	}
	for _, name := range []string{"github.json", "dub.json", "superset.json"} {
		data, err := os.ReadFile(filepath.Join(sharedSpecs, name))
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = string(escapeJSONLineBreaks(data))
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			want, ok := yamlTree(t, []byte(doc))
			if !ok {
				t.Fatal("the YAML parser refuses the document")
			}
			got, ok := parseJSON([]byte(doc))
			if !ok {
				t.Fatal("parseJSON refuses the document")
			}
			if d := sameTree(want, got, ""); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestParseJSONRefusesWhatIsNotJSON(t *testing.T) {
	// Nesting past json.Valid's 10,000 levels is refused too: parseJSON recurses as deep
	// as the document nests.
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	for _, doc := range []string{"a: 1\n", `{"a": 1,}`, `{"a": *x}`, `{"a": 1} {"b": 2}`, "", `{"a": 1 # c` + "\n}", deep} {
		if _, ok := parseJSON([]byte(doc)); ok {
			t.Errorf("parseJSON(%.40q) accepted it", doc)
		}
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, "é", {"b": null}]}`, "{\r\n\"a\":\t\"\\u00e9\"}", `[]`, `"x"`, `{"a\\n": 1e5}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		got, ok := parseJSON([]byte(doc))
		if !ok {
			return
		}
		want, ok := yamlTree(t, []byte(doc))
		if !ok || strings.ContainsAny(doc, "\u0085\u2028\u2029") || strings.Contains(doc, `\u`) {
			// The YAML parser reads some JSON otherwise (long keys, line
			// separators, surrogate escapes): preflight then checks what it read.
			return
		}
		if d := sameTree(want, got, ""); d != "" {
			t.Errorf("parseJSON(%q): %s", doc, d)
		}
	})
}
