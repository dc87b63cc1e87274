package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// documentStart is put before a document whose first node is a "{" for the YAML
// parser. A flow mapping at the very start of a stream may be the key of a mapping, so
// the parser keeps every token of it queued until its end: for a JSON document, the
// whole file (github.json: 300 MB of tokens for 3.7 MB of text). After "--- " a key
// cannot start, and tokens are consumed as they come. It also keeps kin-openapi from
// reading the document again as JSON when the YAML parser refuses it, as JSON lets a
// repeated key silently replace the first. The document means the same; the columns
// of the line the marker is put on move right by len(documentStart), which
// source.Files.LoaderPos undoes.
const documentStart = "--- "

// forParser returns the root file's bytes as given to the YAML parser, and records the
// shift.
func (s *Spec) forParser(data []byte) []byte {
	out, line, shift := withDocumentStart(data)
	if shift > 0 {
		s.Files.MarkStart(line, shift)
	}
	return out
}

// withDocumentStart returns data with documentStart put before its first node when that
// is a "{", and the line it was put on and the columns it moved that line right by (0
// when data is returned as it is).
func withDocumentStart(data []byte) (out []byte, line, shift int) {
	at, line := documentStartAt(data)
	if at < 0 {
		return data, 0, 0
	}
	out = make([]byte, 0, len(data)+len(documentStart))
	out = append(out, data[:at]...)
	out = append(out, documentStart...)
	return append(out, data[at:]...), line, len(documentStart)
}

// documentStartAt returns where withDocumentStart puts documentStart in data, and on
// which line; -1 when it puts none.
func documentStartAt(data []byte) (at, line int) {
	start := 0
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		start = 3
	}
	at = start + len(data[start:]) - len(bytes.TrimLeft(data[start:], " \t\r\n"))
	if at >= len(data) || data[at] != '{' {
		return -1, 0
	}
	lineStart := bytes.LastIndexByte(data[:at], '\n') + 1
	if lineStart != at || lineStart < start {
		at = start // an indented "{": the marker goes on the first line
	}
	return at, bytes.Count(data[:at], []byte("\n")) + 1
}

// unshift moves the nodes on line, which the parser read shifted right by shift columns,
// back to the file's columns.
func unshift(n *yaml.Node, line, shift int) {
	if shift == 0 || n == nil || n.Line > line {
		return
	}
	if n.Line == line {
		n.Column = max(n.Column-shift, 1)
	}
	for _, c := range n.Content {
		unshift(c, line, shift)
	}
}

// parse returns the root file's node tree with the file's own columns, or nil when the
// YAML parser refuses the file.
func (s *Spec) parse(data []byte) *yaml.Node {
	root, _ := parseTree(data)
	return root
}

// parseTree returns the node tree of a file's data with the file's own columns, or the
// YAML parser's error, its columns the file's too. A JSON document is read by parseJSON;
// a large YAML document in two pieces at once when it can be (split.go).
func parseTree(data []byte) (*yaml.Node, error) {
	if root, ok := parseJSON(data); ok {
		return root, nil
	}
	if splitWorth(data) {
		if root := splitTree(data, len(data)/2, len(data)/16); root != nil {
			return root, nil
		}
	}
	text, line, shift := withDocumentStart(data)
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, &shiftedError{err: err, line: line, shift: shift}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	unshift(root, line, shift)
	return root, nil
}

// shiftedError is a YAML parser's error for text that withDocumentStart shifted.
type shiftedError struct {
	err         error
	line, shift int
}

func (e *shiftedError) Error() string { return e.err.Error() }
func (e *shiftedError) Unwrap() error { return e.err }

// yamlErrorAt returns the message of a YAML parser's error and the line and column (the
// file's own) it names, 0 when it names none.
func yamlErrorAt(err error) (msg string, line, col int) {
	var (
		le  *yaml.LoadError
		les *yaml.LoadErrors
		se  *shiftedError
	)
	switch {
	case errors.As(err, &le):
		msg, line, col = le.Message, le.Mark.Line, le.Mark.Column
	case errors.As(err, &les) && len(les.Errors) > 0:
		msg, line, col = les.Errors[0].Message, les.Errors[0].Mark.Line, les.Errors[0].Mark.Column
	default:
		msg = strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLineMsg.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = msg[len(m[0]):]
		}
	}
	if errors.As(err, &se) && se.shift > 0 && line == se.line && col > se.shift {
		col -= se.shift
	}
	return msg, line, col
}

// hasSwaggerLine reports whether a line of data starts with the key swagger, maybe
// quoted: `swagger:`, `"swagger" :`.
func hasSwaggerLine(data []byte) bool {
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		line := data[off : off+end]
		off += end + 1
		if len(line) > 0 && (line[0] == '"' || line[0] == '\'') {
			line = line[1:]
		}
		rest, ok := bytes.CutPrefix(line, []byte("swagger"))
		if !ok {
			continue
		}
		if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
			rest = rest[1:]
		}
		if r := bytes.TrimLeft(rest, " \t"); len(r) > 0 && r[0] == ':' {
			return true
		}
	}
	return false
}

// parseJSON returns the node tree the YAML parser builds for a JSON document, with the
// kinds, tags, values, lines and columns the guard and the overlay step read, at a fraction of its cost (github.json:
// a quarter of the time). Columns count characters, as the YAML parser's do, and are the
// file's own (no documentStart shift). It reports false for data encoding/json refuses,
// which the YAML parser reads instead.
func parseJSON(data []byte) (*yaml.Node, bool) {
	body := bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !json.Valid(body) {
		return nil, false
	}
	p := &jsonParser{data: data, i: len(data) - len(body), line: 1, col: 1}
	p.space()
	return p.value(), true
}

// jsonTag is the tag the YAML parser resolves a JSON number, true, false or null to:
// a number is an int when it has no fraction or exponent and fits 64 bits, signed or
// not, else a float; a float out of range is a string to it, and -0 a float. What the
// common forms do not settle is asked of the parser itself.
func jsonTag(v string) string {
	switch v {
	case "true", "false":
		return "!!bool"
	case "null":
		return "!!null"
	}
	if strings.ContainsAny(v, ".eE") {
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return "!!float"
		}
	} else if digits := strings.TrimPrefix(v, "-"); len(digits) < 19 && v != "-0" {
		return "!!int"
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(v), &doc) != nil || len(doc.Content) == 0 {
		return "!!str"
	}
	return doc.Content[0].Tag
}

// jsonParser reads a document json.Valid accepted, so it checks nothing; its recursion
// is as deep as the document nests, which json.Valid bounds at 10,000.
type jsonParser struct {
	data      []byte
	i         int
	line, col int
	nodes     []yaml.Node // allocated in blocks
	refs      []*yaml.Node
}

func (p *jsonParser) node(kind yaml.Kind) *yaml.Node {
	if len(p.nodes) == cap(p.nodes) {
		p.nodes = make([]yaml.Node, 0, 1024)
	}
	p.nodes = append(p.nodes, yaml.Node{Kind: kind, Line: p.line, Column: p.col})
	return &p.nodes[len(p.nodes)-1]
}

// content returns a slice of its own holding the nodes from.
func (p *jsonParser) content(from int) []*yaml.Node {
	out := make([]*yaml.Node, len(p.refs)-from)
	copy(out, p.refs[from:])
	p.refs = p.refs[:from]
	return out
}

// space skips white space, counting lines as the YAML parser does: "\r\n" is one break.
func (p *jsonParser) space() {
	for ; p.i < len(p.data); p.i++ {
		switch p.data[p.i] {
		case ' ', '\t':
			p.col++
		case '\n':
			p.line, p.col = p.line+1, 1
		case '\r':
			if p.i+1 < len(p.data) && p.data[p.i+1] == '\n' {
				p.i++
			}
			p.line, p.col = p.line+1, 1
		default:
			return
		}
	}
}

func (p *jsonParser) value() *yaml.Node {
	switch c := p.data[p.i]; c {
	case '{', '[':
		kind, end := yaml.MappingNode, byte('}')
		if c == '[' {
			kind, end = yaml.SequenceNode, ']'
		}
		n := p.node(kind)
		n.Tag, n.Style = "!!map", yaml.FlowStyle
		if kind == yaml.SequenceNode {
			n.Tag = "!!seq"
		}
		from := len(p.refs)
		p.i, p.col = p.i+1, p.col+1
		p.space()
		for p.data[p.i] != end {
			p.refs = append(p.refs, p.value())
			p.space()
			if kind == yaml.MappingNode { // the key's colon, then its value
				p.i, p.col = p.i+1, p.col+1
				p.space()
				p.refs = append(p.refs, p.value())
				p.space()
			}
			if p.data[p.i] == ',' {
				p.i, p.col = p.i+1, p.col+1
				p.space()
			}
		}
		p.i, p.col = p.i+1, p.col+1
		n.Content = p.content(from)
		return n
	case '"':
		n := p.node(yaml.ScalarNode)
		n.Tag, n.Style = "!!str", yaml.DoubleQuotedStyle
		start, escaped := p.i, false
		for p.i++; p.data[p.i] != '"'; p.i++ {
			switch b := p.data[p.i]; {
			case b == '\\':
				escaped = true
				p.i++
				p.col += 2
			case b&0xC0 != 0x80: // not a continuation byte: a character starts here
				p.col++
			}
		}
		p.i, p.col = p.i+1, p.col+2
		raw := p.data[start:p.i]
		if escaped {
			json.Unmarshal(raw, &n.Value) // valid, so it cannot fail
		} else {
			n.Value = string(raw[1 : len(raw)-1])
		}
		return n
	default: // a number, true, false or null
		n := p.node(yaml.ScalarNode)
		start := p.i
		for p.i < len(p.data) && !strings.ContainsRune(" \t\r\n,:]}", rune(p.data[p.i])) {
			p.i++
		}
		n.Value = string(p.data[start:p.i])
		n.Tag = jsonTag(n.Value)
		p.col += p.i - start
		return n
	}
}
