package load

import (
	"bytes"
	"math"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// The ends of the blocks the keys of a decoded document head (Origin.Key's EndLine and
// EndColumn), derived from the tree and the text it was parsed from as kin-openapi's
// nodeindex derives them: a node's last line is the last line any node under it starts
// on, grown over the lines after it indented deeper than it that hold no node (a block
// scalar's; blank lines only when the block resumes after them), and held before the
// line its next entry in a block collection starts on, as every node under it is.
// nodeindex takes three passes over the tree, the last as deep as the tree for every
// node, and a map of the nodes; the ends are the same in one pass, kept by node index.

// indexEnds records the last line of every node's block in st.ends, and the length of
// each line of text, the text the loader reads.
func (st *stamper) indexEnds(text []byte) {
	lines := bytes.Count(text, []byte("\n")) + 1
	st.lineLen = make([]int32, 0, lines)
	indent := make([]int32, 0, lines) // each line's leading spaces, -1 for blanks only
	addLine := func(line []byte) {
		st.lineLen = append(st.lineLen, int32(len(line)))
		if t := bytes.TrimRight(line, " \t"); len(t) == 0 {
			indent = append(indent, -1)
		} else {
			indent = append(indent, int32(len(t)-len(bytes.TrimLeft(t, " "))))
		}
	}
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue // the pair is one break, taken on the line feed
			}
		default:
			continue
		}
		end := i
		if text[i] == '\n' && end > start && text[end-1] == '\r' {
			end--
		}
		addLine(text[start:end])
		start = i + 1
	}
	addLine(text[start:])
	st.ends = make([]int32, st.t.Len())
	st.index(0, math.MaxInt32, indent)
}

// implicitNull reports whether n is a value the document left out, which the parser
// makes an empty null scalar.
func (st *stamper) implicitNull(n node) bool {
	return st.t.Kind(n) == yaml.ScalarNode && st.t.Null(n) && st.t.Value(n) == ""
}

// index records the end of n and of the nodes under it, none past bound, and returns
// n's end before bounds apply.
func (st *stamper) index(n node, bound int32, indent []int32) int32 {
	kind := st.t.Kind(n)
	block := !st.t.Flow(n) && (kind == yaml.MappingNode || kind == yaml.SequenceNode)
	step := 1
	if kind == yaml.MappingNode {
		step = 2 // a key and its value belong to the same entry
	}
	e := int32(st.t.Line(n))
	null := st.implicitNull(n)
	if null {
		e = 0
	}
	children := st.t.Children(n)
	for i := range children {
		b := bound
		if entry := i - i%step; block && entry+step < children {
			if next := st.t.Line(st.t.Child(n, entry+step)); next > st.t.Line(st.t.Child(n, entry)) {
				b = min(b, int32(next-1))
			}
		}
		if ce := st.index(st.t.Child(n, i), b, indent); ce > e {
			e = ce
		}
	}
	if null {
		return 0
	}
	indentOf := func(i int32) int32 {
		if i < 0 || i >= int32(len(indent)) {
			return -1
		}
		return indent[i]
	}
	col := int32(st.column(n) - 1)
	for {
		if ind := indentOf(e); ind > col { // line e+1 is index e
			e++
			continue
		} else if ind == -1 {
			j := e
			for j < int32(len(indent)) && indentOf(j) == -1 {
				j++
			}
			if indentOf(j) > col {
				e = j + 1
				continue
			}
		}
		break
	}
	st.ends[n] = min(e, bound)
	return e
}

// withEnd returns loc with the end of the block n heads: its last line, and the column
// after the last character of that line; none when it has no end.
func (st *stamper) withEnd(loc openapi3.Location, n node) openapi3.Location {
	if line := st.ends[n]; line >= 1 && int(line) <= len(st.lineLen) {
		loc.EndLine, loc.EndColumn = int(line), int(st.lineLen[line-1])+1
	}
	return loc
}
