package load

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/overlay"
	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// writeText writes the document's tree as the text kin-openapi reads: YAML in flow style,
// JSON-like, each mapping key and each sequence item on a line of its own, e.g.
//
//	--- {
//	"openapi": "3.0.0",
//	"paths": {
//	"/pets": {
//	...
//
// and a layout that locates the start of every key and value in that text at the place
// of the node it was written from, in the description or an overlay. Scalars keep their
// YAML types: a string is quoted, a number, boolean or null written as it was, anything
// else with its tag. A key that is not a scalar cannot be written so, and is an error.
func writeText(doc *overlay.Document) ([]byte, *source.Layout, *source.Error) {
	w := &textWriter{doc: doc, line: 1, col: 1, layout: &source.Layout{}}
	w.buf.Grow(doc.Nodes() * 24)
	w.write(documentStart)
	w.node(doc.Root, 0)
	w.write("\n")
	if w.err != nil {
		return nil, nil, w.err
	}
	return w.buf.Bytes(), w.layout, nil
}

// textWriter writes a tree and counts lines and columns (in characters, as the YAML
// parser does) as it goes.
type textWriter struct {
	doc       *overlay.Document
	buf       bytes.Buffer
	line, col int
	layout    *source.Layout
	err       *source.Error
}

func (w *textWriter) write(s string) {
	w.buf.WriteString(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		w.line += strings.Count(s, "\n")
		w.col = 1 + utf8.RuneCountInString(s[i+1:])
		return
	}
	w.col += utf8.RuneCountInString(s)
}

// mark records that what is written next comes from n.
func (w *textWriter) mark(n *yaml.Node) {
	w.layout.Mark(w.line, w.col, w.place(n))
}

func (w *textWriter) place(n *yaml.Node) source.Pos {
	return source.Pos{File: w.doc.File(n), Line: n.Line, Col: n.Column}
}

func (w *textWriter) node(n *yaml.Node, depth int) {
	w.mark(n)
	switch {
	case depth > 10000:
		w.write("null")
	case n.Kind == yaml.MappingNode:
		if len(n.Content) == 0 {
			w.write("{}")
			return
		}
		w.write("{")
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				w.write(",")
			}
			w.write("\n")
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				if w.err == nil {
					w.err = &source.Error{Pos: w.place(k), Msg: "malformed document: a mapping key that is not a string",
						Fix: "write the key as a string"}
				}
				return
			}
			w.mark(k)
			w.scalar(k)
			w.write(": ")
			w.node(n.Content[i+1], depth+1)
		}
		w.write("\n}")
	case n.Kind == yaml.SequenceNode:
		if len(n.Content) == 0 {
			w.write("[]")
			return
		}
		w.write("[")
		for i, c := range n.Content {
			if i > 0 {
				w.write(",")
			}
			w.write("\n")
			w.node(c, depth+1)
		}
		w.write("\n]")
	default:
		w.scalar(n)
	}
}

// scalar writes a scalar so that the YAML parser reads the same value with the same tag.
// A plain scalar whose tag the parser resolved from its text (a number, a boolean, null,
// the merge key <<) is written as it was, which resolves the same way; every other one
// is quoted, after its tag unless it is a string. A tag written in the file keeps its
// text quoted too: `!!int 1,"x-idempotent":true` is one scalar, which the parser refuses
// as an int, not the text of a second key.
func (w *textWriter) scalar(n *yaml.Node) {
	resolved := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle|yaml.TaggedStyle) == 0
	switch {
	case n.Tag == "!!str":
		w.write(quoteYAML(n.Value))
	case n.Tag == "!!null" && resolved:
		w.write("null")
	case (n.Tag == "!!int" || n.Tag == "!!float" || n.Tag == "!!bool" || n.Tag == "!!merge") && resolved && n.Value != "":
		w.write(n.Value)
	default:
		w.write(shortTag(n.Tag) + " " + quoteYAML(n.Value))
	}
}

// shortTag writes a tag as a YAML document may: "!!timestamp", a local "!tag", or
// "!<tag:example.com,2000:x>".
func shortTag(tag string) string {
	if rest, ok := strings.CutPrefix(tag, "tag:yaml.org,2002:"); ok {
		return "!!" + rest
	}
	if strings.HasPrefix(tag, "!") || tag == "" {
		if tag == "" {
			return "!!str"
		}
		return tag
	}
	return "!<" + tag + ">"
}

// quoteYAML writes s as a YAML double-quoted scalar on one line: quotes, backslashes,
// control characters, the characters YAML does not print and its line separators
// escaped.
func quoteYAML(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || !yamlPrints(r):
			if r > 0xFFFF {
				fmt.Fprintf(&b, `\U%08X`, r)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
