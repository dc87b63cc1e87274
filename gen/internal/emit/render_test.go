package emit

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
)

// An unindenter drops what bytes.ReplaceAll(text, "\n ", "\n") drops, however the text
// is cut into writes.
func TestUnindenter(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("\n a")
	for range 2000 {
		text := make([]byte, r.IntN(24))
		for i := range text {
			text[i] = alphabet[r.IntN(len(alphabet))]
		}
		var w unindenter
		for rest := text; len(rest) > 0; {
			n := 1 + r.IntN(len(rest))
			if got, err := w.Write(rest[:n]); got != n || err != nil {
				t.Fatalf("Write returned %d, %v for %d bytes", got, err, n)
			}
			rest = rest[n:]
		}
		if want := bytes.ReplaceAll(text, []byte("\n "), []byte("\n")); !bytes.Equal(w.out, want) {
			t.Fatalf("%q: got %q, want %q", text, w.out, want)
		}
	}
}

// docTexts are spec texts that go/doc/comment rewrites, or leaves, in assorted ways.
var docTexts = []string{
	"One line.",
	"A paragraph\nof two lines.\n\nAnd another.",
	"Heading\n\nA paragraph after an old-style heading.",
	"# Heading\n\nText.",
	"A list:\n  - one\n  - two\n\nAfter.",
	"Numbered:\n 1. one\n 2) two",
	"Code:\n\n    x := 1\n    y := 2\n\nDone.",
	"See [the docs].\n\n[the docs]: https://example.com/docs",
	"Links https://example.com/a and [Name] and [pkg.Name].",
	"Trailing spaces   \nand\ttabs\there.",
	"//go:generate nothing\n// line 1\nextern x",
	"  indented first\nthen not",
	"- a\n- b\n\n* c\n+ d",
	"A very long line " + strings.Repeat("word ", 40),
}

// A doc comment that code writes formatted already, indented so that go/format leaves
// it, comes out of go/format as the same comment written plainly, which go/format rewrites.
func TestDocFormattedAsGoFormatWould(t *testing.T) {
	for _, text := range docTexts {
		checkDoc(t, text)
	}
}

func FuzzDoc(f *testing.F) {
	for _, text := range docTexts {
		f.Add(text)
	}
	f.Fuzz(checkDoc)
}

func checkDoc(t *testing.T, text string) {
	beginDocs()
	defer endDocs()
	var d doc
	d.para(text)
	d.para("Second paragraph of " + text)
	plain := jen.Null()
	for _, l := range d.lines {
		plain.Add(comment(l)).Line()
	}
	for _, twice := range []bool{false, true} { // worked out, then from memory
		formatted := declDoc(t, d.code())
		if want := declDoc(t, plain); formatted != want {
			t.Fatalf("%q (again: %v): code writes\n%s\ngo/format makes\n%s", text, twice, formatted, want)
		}
	}
}

// declDoc returns the formatted file of a type and a field documented by doc.
func declDoc(t *testing.T, doc *jen.Statement) string {
	f := newFile("p")
	f.Add(jen.Add(doc).Type().Id("T").StructFunc(func(g *jen.Group) {
		g.Add(jen.Add(doc).Id("X").Int())
	}))
	src, err := formatFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}
