package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/internal/corpus"
	"go.yaml.in/yaml/v4"
)

// sameTree returns where two trees first differ in what the guard and the decoder read
// of a node (kind, tag, style, scalar value, position, children), or "" if they do not. cmp.Diff would
// take seconds on a large description.
func sameTree(want, got *yaml.Node, at string) string {
	if want.Kind != got.Kind || want.Line != got.Line || want.Column != got.Column || want.Tag != got.Tag || want.Style != got.Style ||
		(want.Kind == yaml.ScalarNode && want.Value != got.Value) || len(want.Content) != len(got.Content) {
		return fmt.Sprintf("%s: YAML reads kind %v %s (style %v) %q at %d:%d with %d children; parseJSON kind %v %s (style %v) %q at %d:%d with %d",
			at, want.Kind, want.Tag, want.Style, want.Value, want.Line, want.Column, len(want.Content),
			got.Kind, got.Tag, got.Style, got.Value, got.Line, got.Column, len(got.Content))
	}
	for i := range want.Content {
		if d := sameTree(want.Content[i], got.Content[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// yamlTree is the tree kin-openapi's YAML parser reads of data, as Load gives it the
// document, with the columns turned back into the file's own.
func yamlTree(t testing.TB, data []byte) (*yaml.Node, bool) {
	s := &Spec{Path: "x.json", Files: source.NewFiles("x.json")}
	text, edits := yamlSafeJSON(data)
	s.Files.SetEdits(edits)
	var doc yaml.Node
	if yaml.Unmarshal(s.forParser(text), &doc) != nil || len(doc.Content) == 0 {
		return nil, false
	}
	var fileColumns func(n *yaml.Node)
	fileColumns = func(n *yaml.Node) {
		n.Column = s.Files.LoaderColumn(n.Line, n.Column)
		for _, c := range n.Content {
			fileColumns(c)
		}
	}
	fileColumns(doc.Content[0])
	return doc.Content[0], true
}

func TestParseJSONMatchesYAML(t *testing.T) {
	docs := map[string]string{
		"scalars":  `{"a": 1, "b": -2.5e3, "c": true, "d": false, "e": null, "f": "x"}`,
		"nested":   "{\n  \"paths\": {\n    \"/p\": {\"get\": {\"$ref\": \"#/x\"}}\n  },\n  \"l\": [1, [2, []], {}]\n}\n",
		"wide":     "{\"é\": \"ünï\", \"k\": \"日本語\", \"z\": 1}",
		"escapes":  `{"a\"b": "x\ny\t\\\/ \u00e9 \u0041", "c": "é\u00e9é", "d": 2}`,
		"crlf":     "{\r\n\t\"a\": [\r\n\t\t1,\r\n\t\t2\r\n\t]\r\n}\r\n",
		"bom":      "\uFEFF{\"a\": {\"b\": 1}}",
		"indented": "\n\n   {\"a\": 1,\n \"b\": 2}",
		"minified": `{"a":[1,2,{"b":"c"}],"d":{"e":{"f":null}}}`,
		"array":    `[{"a": 1}, "b"]`,
		"tabbed":   "{\"a\":\t1,\t\"b\"\t:\t[\t2\t]}",
		"numbers": `{"a": -0, "b": 123456789012345678901234567890, "c": 1e400, "d": 18446744073709551616, "e": -9223372036854775809,
			"f": 0.1e-400, "g": -0.0, "h": 9223372036854775807, "i": -9223372036854775808, "j": 18446744073709551615, "k": -1E-2,
			"l": 1e-400, "m": -1e400, "n": 100000000000000000000e-10, "o": 0.000, "p": -10}`,
		"long line": `{"a": "` + strings.Repeat("é", 300) + `", "b": [` + strings.Repeat(`"x", `, 50) + `1]}`,
	}
	for _, name := range []string{"github.json", "dub.json", "superset.json"} {
		dir, ok := corpus.Find()
		if !ok {
			t.Log("the spec corpus is absent: only the crafted documents are checked")
			break
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = string(data)
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

// decodedAs returns where the tree parseJSON read of data first differs from what
// encoding/json decodes of it, token by token (keys and values in document order, so
// repeated keys count), or "" if it does not.
func decodedAs(data []byte, tree *yaml.Node) string {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	dec.UseNumber()
	var walk func(n *yaml.Node, at string) string
	walk = func(n *yaml.Node, at string) string {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Sprintf("%s: encoding/json: %v", at, err)
		}
		var want string
		switch v := tok.(type) {
		case json.Delim:
			kind := yaml.MappingNode
			if v == '[' {
				kind = yaml.SequenceNode
			}
			if n.Kind != kind {
				return fmt.Sprintf("%s: encoding/json reads %v, parseJSON kind %v", at, v, n.Kind)
			}
			for i, c := range n.Content {
				if d := walk(c, fmt.Sprintf("%s/%d", at, i)); d != "" {
					return d
				}
			}
			if tok, err := dec.Token(); err != nil || tok == nil {
				return fmt.Sprintf("%s: encoding/json reads more than parseJSON's %d children", at, len(n.Content))
			} else if _, ok := tok.(json.Delim); !ok {
				return fmt.Sprintf("%s: encoding/json reads %v after parseJSON's %d children", at, tok, len(n.Content))
			}
			return ""
		case string:
			want = v
		case json.Number:
			want = v.String()
		case bool:
			want = strconv.FormatBool(v)
		case nil:
			want = "null"
		}
		if n.Kind != yaml.ScalarNode || n.Value != want {
			return fmt.Sprintf("%s: encoding/json reads %q, parseJSON kind %v %q", at, want, n.Kind, n.Value)
		}
		return ""
	}
	return walk(tree, "")
}

// FuzzParseJSON holds parseJSON to encoding/json on every document encoding/json
// accepts, and the YAML parser, reading the document as Load gives it to kin-openapi
// (yamlSafeJSON), to parseJSON's tree: the same kinds, values, lines and columns.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, "é", {"b": null}]}`, "{\r\n\"a\":\t\"\\u00e9\"}", `[]`, `"x"`, `{"a\\n": 1e5}`,
		`{"body": "Hello! \ud83d\udc4d", "x": [true, false]}`, `{"a": "\udc4d\ud83d", "b": "x` + "\u2028\u0085\x7f" + `y", "c": 1}`,
		`{"a": 1, "a": 2}`, "\uFEFF{\"k\": \"\\uDBFF\\uDFFF\\u0000\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if !utf8.ValidString(doc) {
			return // Load refuses it before parsing (checkText)
		}
		got, ok := parseJSON([]byte(doc))
		if ok != json.Valid(bytes.TrimPrefix([]byte(doc), []byte("\uFEFF"))) {
			t.Fatalf("parseJSON(%q) reports %v, json.Valid the opposite", doc, ok)
		}
		if !ok {
			return
		}
		if d := decodedAs([]byte(doc), got); d != "" {
			t.Errorf("parseJSON(%q): %s", doc, d)
		}
		want, ok := yamlTree(t, []byte(doc))
		if !ok {
			// The YAML parser refuses repeated keys and keys longer than 1024
			// characters: preflight then checks what parseJSON read.
			return
		}
		if d := sameTree(want, got, ""); d != "" {
			t.Errorf("parseJSON(%q): %s", doc, d)
		}
	})
}
