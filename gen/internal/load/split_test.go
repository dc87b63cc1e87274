package load

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
	"go.yaml.in/yaml/v4"
)

// sameNode returns where two trees first differ in any field of a node (kind, style,
// tag, value, anchor, alias, comments, position, children), or "" if they do not.
func sameNode(want, got *yaml.Node, at string) string {
	if want.Kind != got.Kind || want.Style != got.Style || want.Tag != got.Tag || want.Value != got.Value ||
		want.Anchor != got.Anchor || (want.Alias == nil) != (got.Alias == nil) ||
		want.HeadComment != got.HeadComment || want.LineComment != got.LineComment || want.FootComment != got.FootComment ||
		want.Line != got.Line || want.Column != got.Column || len(want.Content) != len(got.Content) {
		return fmt.Sprintf("%s: whole: kind %v %s (style %v) %q &%q comments %q %q %q at %d:%d with %d children; split: kind %v %s (style %v) %q &%q comments %q %q %q at %d:%d with %d",
			at, want.Kind, want.Tag, want.Style, want.Value, want.Anchor, want.HeadComment, want.LineComment, want.FootComment, want.Line, want.Column, len(want.Content),
			got.Kind, got.Tag, got.Style, got.Value, got.Anchor, got.HeadComment, got.LineComment, got.FootComment, got.Line, got.Column, len(got.Content))
	}
	for i := range want.Content {
		if d := sameNode(want.Content[i], got.Content[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// wholeTree is the tree the YAML parser reads of data in one piece, or nil when it
// refuses it.
func wholeTree(data []byte) *yaml.Node {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// checkSplit cuts data after each offset of froms, at the next line that can be and at
// the best line in the next 4 KiB, and reports a joined tree that is not the whole
// document's (or is given for a document the parser refuses). It returns how many cuts
// were taken.
func checkSplit(t *testing.T, name string, data []byte, froms []int) int {
	t.Helper()
	var whole *yaml.Node
	taken := 0
	for i := range 2 * len(froms) {
		from, window := froms[i/2], 1
		if i%2 == 1 {
			window = 4096
		}
		split := splitTree(data, from, window)
		if split == nil {
			continue
		}
		if taken++; taken == 1 {
			whole = wholeTree(data)
		}
		if whole == nil {
			t.Fatalf("%s cut after byte %d: joined a tree of a document the parser refuses:\n%s", name, from, data)
		}
		if d := sameNode(whole, split, ""); d != "" {
			t.Fatalf("%s cut after byte %d: %s\n%s", name, from, d, data)
		}
	}
	return taken
}

// lineStarts returns the offsets of the lines of data (the first excepted: a cut is after
// from), at most max of them, evenly spread.
func lineStarts(data []byte, max int) []int {
	var starts []int
	for i, b := range data {
		if b == '\n' && i+1 < len(data) {
			starts = append(starts, i)
		}
	}
	if len(starts) <= max {
		return starts
	}
	out := make([]int, 0, max)
	for i := range max {
		out = append(out, starts[i*len(starts)/max])
	}
	return out
}

// The tree parsed in two pieces and joined is the tree parsed whole, node by node, for
// every spec of the corpus and of the repository's test data, cut at many lines; and
// stripe.yaml, the reason for the split, is cut in the middle.
func TestSplitParseMatchesWhole(t *testing.T) {
	dir, haveCorpus := corpus.Find()
	files := specFiles(t)
	taken := 0
	for _, path := range files {
		if !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") && !strings.HasSuffix(path, ".json") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// A file over 1 MiB (a tenth of a second a parse, ten times that under the race
		// detector) is cut in the middle, or at three places with RETRYGEN_LONG=1; a
		// smaller one at 20 places, or 50.
		froms := []int{len(data) / 2}
		switch big := len(data) >= 1<<20; {
		case longtest.On() && big:
			froms = lineStarts(data, 3)
		case longtest.On():
			froms = lineStarts(data, 50)
		case !big:
			froms = lineStarts(data, 20)
		}
		taken += checkSplit(t, path, data, froms)
	}
	if taken == 0 {
		t.Errorf("no spec of %d was cut", len(files))
	}
	if haveCorpus {
		data, err := os.ReadFile(filepath.Join(dir, "stripe.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !splitWorth(data) {
			t.Skip("one processor: parseTree parses whole")
		}
		if splitTree(data, len(data)/2, len(data)/16) == nil {
			t.Errorf("stripe.yaml is not cut in the middle")
		}
	}
}

// The cut is not taken, or gives the whole document's tree, on texts that put what is
// not a key at the start of a line that looks like one, or an anchor, alias, comment or
// something else the cut does not account for near it.
func TestSplitParseHazards(t *testing.T) {
	for _, text := range splitSeeds {
		data := []byte(text)
		checkSplit(t, fmt.Sprintf("%q", text), data, lineStarts(data, 1000))
	}
	// The cut is taken where it can be: before d, e and f.
	data := []byte("a:\n  b:\n    c: 1\n    d: 2\n  e: 3\nf: 4\n")
	var taken []bool
	for _, from := range lineStarts(data, 100) {
		taken = append(taken, splitTree(data, from, 1) != nil)
	}
	if fmt.Sprint(taken) != "[false false true true true]" {
		t.Errorf("nested: cut after each line: %v, want [false false true true true]", taken)
	}
}

// splitSeeds are texts built to defeat the cut.
var splitSeeds = []string{
	"a:\n  b:\n    c: 1\n    d: 2\n  e: 3\nf: 4\n",
	"a: |\n  b: 1\n  c: 2\nd: 3\n",
	"a:\n  b: |\n    c: 1\n  d: 2\n",
	"a:\n  b: |2\n     c: 1\n    d: 1\n  e: 2\n",
	"a:\n  b: >-\n\n    c: 1\n\n  d: 2\n",
	"a:\n  b: |+\n    x\n\n\n  d: 2\n",
	"a: \"x\nb: 1\ny\"\nc: 2\n",
	"a:\n  b: \"x\n  c: 1\n  y\"\n  d: 2\n",
	"a:\n  b: 'x\n  c: 1'\n  d: 2\n",
	"a: {x: 1,\nb: 2}\nc: 3\n",
	"a:\n  b: [1,\n  c: 2]\n  d: 3\n",
	"a:\n  b: x\n    y\n  c: 1\n",
	"a:\n  b: x\n  c y\n  d: 1\n",
	"a:\n  b:\n  - 1\n  - 2\n  c: 3\n",
	"a:\n- b: 1\n  c: 2\nd: 3\n",
	"a:\n  ? b\n  : 1\n  c: 2\n",
	"a:\n  ? b\n  c: 2\n",
	"? a\n: b\nc: 1\n",
	"a: &x\n  b: 1\nc: *x\n",
	"a:\n  b: &x 1\n  c: *x\n",
	"a:\n  <<: {x: 1}\n  b: 2\n",
	"# head\na:\n  b: 1\n  # foot\n  c: 2\n",
	"a:\n  b: 1 # line\n  c: 2\n",
	"a:\n  b: 1\n\n  # between\n\n  c: 2\nd: 3\n",
	"a:\n  b: 1\n# out\n  c: 2\n",
	"a:\n\tb: 1\n  c: 2\n",
	"a:\n  b:\t1\n  c: 2\n",
	"a:\r\n  b: 1\r\n  c: 2\r\n",
	"a:\r  b: 1\r  c: 2\n",
	"a:\n  b: x\u2028  c: 1\n  d: 2\n",
	"a:\n  b: x\u0085  c: 1\n  d: 2\n",
	"\uFEFFa:\n  b: 1\n  c: 2\n",
	"%YAML 1.1\n---\na:\n  b: 1\n  c: 2\n",
	"%TAG !e! tag:e.com,2000:\n---\na:\n  b: !e!x 1\n  c: !e!y 2\n",
	"a:\n  b: 1\n---\nc: 2\n",
	"a:\n  b: 1\n...\nc: 2\n",
	"a:\n  b: !!str 1\n  c: !t 2\n",
	"a:\n  b: 1\n  b: 2\nb: 3\n",
	"  a:\n    b: 1\n    c: 2\n  d: 3\n",
	"a:\n  b:\n      c: 1\n    d: 2\n",
	"a:\n    b: 1\n  c: 2\n",
	"a:\n  b: 1\n   c: 2\n",
	"a b:\n  c: 1\n  d: 2\n",
	"'a':\n  c: 1\n  d: 2\n",
	"\"a\":\n  c: 1\n  d: 2\n",
	"a:\n  c: 1\n  \"d\": 2\n  e: 3\n",
	"a: x\n  b: 1\n  c: 2\n",
	"a:\n  b: 1\nc:\n  d: \"x\ne:\n  f: y\"\n  g: 1\n",
	"a:\n  b:\n    c:\n      d: 1\n      e: 2\n    f: 3\n  g: 4\nh: 5\n",
	"a:\n  b: {\n  c: 1}\n  d: 2\n",
	"a:\n  b: `x\n  c: 2\n",
	"a:\n  b: @x\n  c: 2\n",
	"a:\n  b: -\n  c: 2\n",
	"a:\n  b:\n  c:\n",
	"a:\n  b: 1\n  c: 2",
	"a:\n  b: 1\n  c: 2\n  :\n",
	"#0\n: \n0: \n",
	"a:\n  # c\n  ? \n  b: 1\n",
	"a:\n  - # c\n  b: 1\n",
	"a:\n  b: # c\n  c: 1\n",
	"\n\n \n!0\n 000: !00\n0:\n",
	"a: !t\n   b: 1\n  c: 2\n",
	"!!map\n a: 1\nb: 2\n",
}

// splitDoc writes a random block-style document with what may defeat the cut: block
// scalars and quoted and plain scalars over lines holding lines that look like keys,
// flow collections over lines, sequences, complex keys, anchors and aliases, comments,
// tabs, indents that do not line up, and sometimes line breaks of another kind.
func splitDoc(r *rand.Rand) string {
	var b strings.Builder
	keys := []string{"a", "b", "c", "/v1/x/{id}", "x-y", "k_1", "$ref", "a b", "0", "true", "null", "'q'", "\"d\""}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	pad := func(n int) string { return strings.Repeat(" ", n) }
	var mapping func(ind, depth int)
	mapping = func(ind, depth int) {
		for range 1 + r.IntN(4) {
			if r.IntN(12) == 0 {
				b.WriteString(pad(ind) + "# c\n")
			}
			if r.IntN(30) == 0 {
				b.WriteString("\n")
			}
			k := pick(keys)
			if r.IntN(25) == 0 {
				b.WriteString(pad(ind) + "? " + k + "\n" + pad(ind) + ":")
			} else {
				b.WriteString(pad(ind) + k + ":")
			}
			if r.IntN(20) == 0 {
				b.WriteString(" &" + pick([]string{"x", "y"}))
			}
			switch c := r.IntN(16); {
			case depth < 4 && c < 6:
				b.WriteString("\n")
				step := pick([]string{"2", "2", "2", "1", "4", "0"})
				mapping(ind+int(step[0]-'0'), depth+1)
			case c == 6:
				b.WriteString(" " + pick([]string{"|", ">-", "|+", "|2", ">"}) + "\n")
				for range 1 + r.IntN(3) {
					b.WriteString(pad(ind+pick2(r, 0, 2, 3)) + pick([]string{"k: v", "text", "", "- x", "# h"}) + "\n")
				}
			case c == 7:
				b.WriteString(" \"x\n" + pad(r.IntN(ind+3)) + pick(keys) + ": v\n" + pad(r.IntN(ind+3)) + "y\"\n")
			case c == 8:
				b.WriteString(" 'x\n" + pad(r.IntN(ind+3)) + pick(keys) + ": v'\n")
			case c == 9:
				b.WriteString(" {p: 1,\n" + pad(r.IntN(ind+3)) + pick(keys) + ": 2}\n")
			case c == 10:
				b.WriteString(" [1,\n" + pad(r.IntN(ind+3)) + pick(keys) + ": 2]\n")
			case c == 11:
				b.WriteString(" word\n" + pad(ind+r.IntN(3)) + pick([]string{"more", "k: v", "#x"}) + "\n")
			case c == 12:
				b.WriteString("\n")
				for range 1 + r.IntN(2) {
					b.WriteString(pad(ind+pick2(r, 0, 2, 2)) + "- " + pick([]string{"1", "k: v", "*x", "[1, 2]"}) + "\n")
				}
			case c == 13:
				b.WriteString(" *" + pick([]string{"x", "y"}) + "\n")
			case c == 14:
				b.WriteString(pick([]string{" 1 # n", "\t1", " !!str 2", " !t v", " 'a''b'", " \"\\t\""}) + "\n")
			default:
				b.WriteString(" " + pick([]string{"1", "v", "x: y", "true", "~", "2.5", "a # b"}) + "\n")
			}
		}
	}
	if r.IntN(20) == 0 {
		b.WriteString(pick([]string{"%YAML 1.1\n---\n", "---\n", "# top\n"}))
	}
	mapping(0, 0)
	if r.IntN(20) == 0 {
		b.WriteString(pick([]string{"...\n", "---\nz: 1\n", "# end\n"}))
	}
	s := b.String()
	switch r.IntN(30) {
	case 0:
		s = strings.ReplaceAll(s, "\n", "\r\n")
	case 1:
		s = strings.Replace(s, "\n", "\u2028", 1)
	case 2:
		s = strings.Replace(s, "  ", "\t", 1)
	}
	return s
}

// pick2 returns one of its choices.
func pick2(r *rand.Rand, choices ...int) int { return choices[r.IntN(len(choices))] }

// Random documents, each cut at every line.
func TestSplitParseRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	taken, parsed := 0, 0
	for range 1000 {
		data := []byte(splitDoc(r))
		if wholeTree(data) != nil {
			parsed++
		}
		taken += checkSplit(t, "random", data, lineStarts(data, 1000))
	}
	// The documents are varied enough that both the parser and the cut take some of
	// them, and refuse others.
	if parsed < 100 || parsed > 900 || taken < 100 {
		t.Errorf("of 1000 random documents the parser read %d and %d cuts were taken", parsed, taken)
	}
}

// FuzzSplitParse compares the joined tree with the whole document's on any text, cut at
// each line.
func FuzzSplitParse(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add([]byte(s))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		f.Add([]byte(splitDoc(r)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 || bytes.Count(data, []byte("\n")) > 200 {
			return
		}
		checkSplit(t, "fuzz", data, lineStarts(data, 200))
	})
}

// BenchmarkParseTree parses stripe.yaml whole and, as parseTree does, in two pieces at
// once.
func BenchmarkParseTree(b *testing.B) {
	data, err := os.ReadFile(corpus.Path(b, "stripe.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if wholeTree(data) == nil {
				b.Fatal("refused")
			}
		}
	})
	b.Run("split", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if root, err := parseTree(data); err != nil || root == nil {
				b.Fatal(err)
			}
		}
	})
}
