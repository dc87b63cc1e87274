package load

import (
	"bytes"
	"runtime"

	"go.yaml.in/yaml/v4"
)

// A large block-style YAML document is parsed in two pieces at once, cut before a line
// that starts a key of a block mapping whose ancestors are block mappings too (say
// "    account:" under "components:" and "  schemas:"), and the two trees are joined.
// The first piece is the text before the cut; the second is the cut's ancestor key
// lines, copied, then the text from the cut on, so that its parser is in the state the
// whole document's is at the cut (inside the same mappings, at a key) and reads the rest
// as it does. Its lines are moved back to the file's, and its columns are the file's
// already. The join is taken only when both pieces parse, each tree has the ancestor
// mappings where the cut says, in block style at their columns, and neither holds an
// anchor, an alias or a comment; otherwise, and for text with what the cut does not
// account for (line breaks other than "\n", a byte order mark, directives, document
// markers), the document is parsed whole, so that the parser's errors are the whole
// document's. TestSplitParseMatchesWhole compares the two on every spec and on texts
// built to defeat the cut.

// splitMin is the least size of a document parseTree parses in two pieces.
const splitMin = 256 << 10

// maxCutTries caps the lines splitTree tries as a cut, and maxCutIndent their indent.
const (
	maxCutTries  = 64
	maxCutIndent = 16
)

// cut is where splitTree cuts a document: before line line, at byte at, a key of the
// mapping at indent indent, whose ancestors' keys are heads.
type cut struct {
	at, line, indent int
	heads            []head
}

// head is an ancestor key line of a cut: `<indent spaces>key:`.
type head struct {
	text             []byte // the line, its "\n" left out
	at, line, indent int
	key              string
}

// splitTree parses data in two pieces at once, cut at a line after from that can be
// (see findCut, which looks window bytes on), and returns the joined tree; nil when it
// cannot tell that the tree is the one parsing data whole gives.
func splitTree(data []byte, from, window int) *yaml.Node {
	if !splittable(data) {
		return nil
	}
	c, ok := findCut(data, from, window)
	if !ok {
		return nil
	}
	var rest *yaml.Node
	done := make(chan struct{})
	go func() {
		defer close(done)
		rest = parseRest(data, c)
	}()
	first := parsePiece(data[:c.at])
	if first != nil && (!c.firstSpine(first) || !c.plainFirst(first)) {
		first = nil
	}
	<-done
	if first == nil || rest == nil {
		return nil
	}
	c.join(first, rest)
	return first
}

// splittable reports whether data has none of what findCut does not account for: line
// breaks other than "\n" (the parser breaks lines at "\r", NEL, LS and PS too), a byte
// order mark, directives, and document markers.
func splittable(data []byte) bool {
	if bytes.IndexByte(data, '\r') >= 0 || bytes.HasPrefix(data, []byte("\uFEFF")) ||
		bytes.HasPrefix(data, []byte("%")) || bytes.HasPrefix(data, []byte("---")) || bytes.HasPrefix(data, []byte("...")) {
		return false
	}
	for _, s := range []string{"\u0085", "\u2028", "\u2029", "\n%", "\n---", "\n..."} {
		if bytes.Contains(data, []byte(s)) {
			return false
		}
	}
	return true
}

// findCut returns a line after byte from that starts a key, follows a line of content,
// and whose ancestors, found by indent, are key lines with no value on the line: the
// first at indent 0 that starts in the next window bytes, else the first at indent 2 or
// less, and so on up to maxCutIndent. It tries at most maxCutTries lines, and reads data back
// from them for at most len(data) bytes in all.
func findCut(data []byte, from, window int) (cut, bool) {
	start := 0
	if from > 0 {
		nl := bytes.IndexByte(data[min(from, len(data)):], '\n')
		if nl < 0 {
			return cut{}, false
		}
		start = from + nl + 1
	}
	budget, tries := len(data), 0
	for _, most := range []int{0, 2, 4, 8, maxCutIndent} {
		for off := start; off < len(data) && off-start < window && tries < maxCutTries; {
			end := bytes.IndexByte(data[off:], '\n')
			if end < 0 {
				break
			}
			line := data[off : off+end]
			d := indent(line)
			if off > 0 && d <= most && d < len(line) && plainStart(line[d]) && bytes.IndexByte(line, ':') >= 0 && contentBefore(data, off) {
				tries++
				if heads, ok := headsOf(data, off, d, &budget); ok {
					c := cut{at: off, line: bytes.Count(data[:off], []byte("\n")) + 1, indent: d, heads: heads}
					for i, h := range c.heads {
						c.heads[i].line = c.line - bytes.Count(data[h.at:off], []byte("\n"))
					}
					return c, true
				}
			}
			off += end + 1
		}
	}
	return cut{}, false
}

// indent is the number of spaces line starts with.
func indent(line []byte) int {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	return i
}

// plainStart reports whether b starts a plain scalar and nothing else.
func plainStart(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '/' || b == '$'
}

// contentBefore reports whether the line before the one at off starts, after spaces,
// as a plain scalar does: a comment before it is the head comment of a node of the first
// piece, not one the parser keeps for a node after the cut.
func contentBefore(data []byte, off int) bool {
	start := bytes.LastIndexByte(data[:off-1], '\n') + 1
	line := data[start : off-1]
	d := indent(line)
	return d < len(line) && plainStart(line[d])
}

// headsOf returns the ancestor key lines of the line at off, indented d, outermost
// first: the nearest line before it indented less than d, and so on up to indent 0;
// false when one of them is not `<spaces>key:`, or reading them would take more than
// budget bytes (which it takes from).
func headsOf(data []byte, off, d int, budget *int) ([]head, bool) {
	var heads []head
	for p, want := off, d; want > 0; {
		if p == 0 || *budget <= 0 {
			return nil, false
		}
		start := bytes.LastIndexByte(data[:p-1], '\n') + 1
		*budget -= p - start
		line := data[start : p-1]
		p = start
		i := indent(line)
		if i == len(line) || i >= want {
			continue
		}
		key := bytes.TrimRight(line[i:], " ")
		if len(key) < 2 || key[len(key)-1] != ':' || !plainStart(key[0]) {
			return nil, false
		}
		key = key[:len(key)-1]
		if bytes.ContainsAny(key, " \t#:\"'") {
			return nil, false
		}
		heads = append(heads, head{text: line, at: start, indent: i, key: string(key)})
		want = i
	}
	for i, j := 0, len(heads)-1; i < j; i, j = i+1, j-1 {
		heads[i], heads[j] = heads[j], heads[i]
	}
	return heads, true
}

// parsePiece parses a piece of a document; nil when the parser refuses it.
func parsePiece(text []byte) *yaml.Node {
	var doc yaml.Node
	if yaml.Unmarshal(text, &doc) != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 ||
		doc.HeadComment != "" || doc.LineComment != "" || doc.FootComment != "" {
		return nil
	}
	return doc.Content[0]
}

// parseRest parses the second piece of a cut document, the cut's heads then the text
// from the cut on, and moves its lines to the file's; nil when the parser refuses it,
// or its tree is not as the cut says or holds an anchor, an alias or a comment.
func parseRest(data []byte, c cut) *yaml.Node {
	size := len(data) - c.at
	for _, h := range c.heads {
		size += len(h.text) + 1
	}
	text := make([]byte, 0, size)
	for _, h := range c.heads {
		text = append(append(text, h.text...), '\n')
	}
	text = append(text, data[c.at:]...)
	root := parsePiece(text)
	if root == nil || !c.restSpine(root) || !plain(root) {
		return nil
	}
	moveLines(root, c.line-1-len(c.heads))
	return root
}

// blockMapping reports whether n is a block mapping indented col-1: it starts at its
// first key (no tag on a line before), which is at column col.
func blockMapping(n *yaml.Node, col int) bool {
	return n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 && len(n.Content) >= 2 &&
		n.Line == n.Content[0].Line && n.Column == col && n.Content[0].Column == col
}

// isHead reports whether n is the key of head h at line line.
func isHead(n *yaml.Node, h head, line int) bool {
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.Tag == "!!str" && n.Value == h.key && n.Line == line && n.Column == h.indent+1
}

// firstSpine reports whether the first piece's tree ends in the cut's mappings: the root
// a block mapping whose last key is the first head, its value a block mapping whose last
// key is the second, and so on, the last head's value a block mapping at the cut's
// column.
func (c cut) firstSpine(n *yaml.Node) bool {
	for _, h := range c.heads {
		if !blockMapping(n, h.indent+1) || !isHead(n.Content[len(n.Content)-2], h, h.line) {
			return false
		}
		n = n.Content[len(n.Content)-1]
	}
	return blockMapping(n, c.indent+1)
}

// restSpine reports whether the second piece's tree, lines its own, starts with the
// cut's mappings: the root a block mapping whose first key is the first head, and so on,
// the last head's value a block mapping at the cut's column, starting on the cut's line.
func (c cut) restSpine(n *yaml.Node) bool {
	for i, h := range c.heads {
		if !blockMapping(n, h.indent+1) || !isHead(n.Content[0], h, i+1) {
			return false
		}
		n = n.Content[1]
	}
	return blockMapping(n, c.indent+1) && n.Line == len(c.heads)+1
}

// join adds the second piece's entries to the first piece's mappings: those of the
// mapping at the cut to the last head's value, those after each head to that head's
// mapping.
func (c cut) join(first, rest *yaml.Node) {
	for range c.heads {
		next := first.Content[len(first.Content)-1]
		first.Content = append(first.Content, rest.Content[2:]...)
		first, rest = next, rest.Content[1]
	}
	first.Content = append(first.Content, rest.Content...)
}

// plain reports whether the tree at n holds no anchor, alias or comment.
func plain(n *yaml.Node) bool {
	if n.Anchor != "" || n.Kind == yaml.AliasNode || n.HeadComment != "" || n.LineComment != "" || n.FootComment != "" {
		return false
	}
	for _, c := range n.Content {
		if !plain(c) {
			return false
		}
	}
	return true
}

// plainFirst reports whether the first piece's tree at n holds no anchor, alias or
// comment, and gives the nodes the parser made at the piece's end (empty values, placed
// at the token that follows them) the place of the cut's key, where the parser of the
// whole document puts them.
func (c cut) plainFirst(n *yaml.Node) bool {
	if n.Anchor != "" || n.Kind == yaml.AliasNode || n.HeadComment != "" || n.LineComment != "" || n.FootComment != "" {
		return false
	}
	if n.Line >= c.line {
		n.Line, n.Column = c.line, c.indent+1
	}
	for _, k := range n.Content {
		if !c.plainFirst(k) {
			return false
		}
	}
	return true
}

// moveLines moves the lines of the tree at n by by.
func moveLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		moveLines(c, by)
	}
}

// splitWorth reports whether parseTree parses data in two pieces: it is large and a
// second processor can take one.
func splitWorth(data []byte) bool {
	return len(data) >= splitMin && runtime.GOMAXPROCS(0) > 1
}
