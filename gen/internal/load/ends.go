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
// node, and a map of the nodes, and walks the lines after each node one by one; the
// ends are the same in one pass, kept by node index, the lines a node grows over found
// in a tree of the lines' indents (lineIndex).

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
	st.index(0, math.MaxInt32, newLineIndex(indent))
}

// lineIndex answers, in time logarithmic in the lines, where the lines after a node stop
// belonging to it; nodeindex walks them line by line for every node, so that a run of
// blank lines after many nodes took minutes.
type lineIndex struct {
	indent []int32 // each line's leading spaces, -1 for blanks only
	// lastFull[i] is the index of the last line before line i that is not blank, -1 for none.
	lastFull []int32
	// least is a segment tree over the lines of the least indent in each range, blank
	// lines counting as math.MaxInt32; leaves from size on.
	least []int32
	size  int
}

func newLineIndex(indent []int32) *lineIndex {
	ix := &lineIndex{indent: indent, lastFull: make([]int32, len(indent)+1), size: 1}
	last := int32(-1)
	for i, ind := range indent {
		ix.lastFull[i] = last
		if ind >= 0 {
			last = int32(i)
		}
	}
	ix.lastFull[len(indent)] = last
	for ix.size < len(indent) {
		ix.size *= 2
	}
	ix.least = make([]int32, 2*ix.size)
	for i := range ix.size {
		ix.least[ix.size+i] = math.MaxInt32
		if i < len(indent) && indent[i] >= 0 {
			ix.least[ix.size+i] = indent[i]
		}
	}
	for i := ix.size - 1; i >= 1; i-- {
		ix.least[i] = min(ix.least[2*i], ix.least[2*i+1])
	}
	return ix
}

// firstAtMost returns the index of the first line from line from on that is not blank
// and indented at most col, or the number of lines when none is.
func (ix *lineIndex) firstAtMost(from, col int32) int32 {
	if i := ix.first(1, 0, int32(ix.size), from, col); i >= 0 && i < int32(len(ix.indent)) {
		return i
	}
	return int32(len(ix.indent))
}

// first is firstAtMost within the tree node at, which covers the lines [lo, hi); -1 for none.
func (ix *lineIndex) first(at int, lo, hi, from, col int32) int32 {
	if hi <= from || ix.least[at] > col {
		return -1
	}
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	if i := ix.first(2*at, lo, mid, from, col); i >= 0 {
		return i
	}
	return ix.first(2*at+1, mid, hi, from, col)
}

// grow returns the end of a node whose block is indented deeper than col and reaches line
// e (1-based), grown over the lines after it that belong to it: those indented deeper
// than col, and blank lines followed by such a line. Lines e+1 on are indexes e on.
func (ix *lineIndex) grow(e, col int32) int32 {
	if e < 0 {
		return e
	}
	stop := ix.firstAtMost(e, col) // the first line not indented deeper, blanks aside
	if last := ix.lastFull[stop]; last >= e {
		return last + 1
	}
	return e
}

// implicitNull reports whether n is a value the document left out, which the parser
// makes an empty null scalar.
func (st *stamper) implicitNull(n node) bool {
	return st.t.Kind(n) == yaml.ScalarNode && st.t.Null(n) && st.t.Value(n) == ""
}

// index records the end of n and of the nodes under it, none past bound, and returns
// n's end before bounds apply.
func (st *stamper) index(n node, bound int32, lines *lineIndex) int32 {
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
		if ce := st.index(st.t.Child(n, i), b, lines); ce > e {
			e = ce
		}
	}
	if null {
		return 0
	}
	e = lines.grow(e, int32(st.column(n)-1))
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
