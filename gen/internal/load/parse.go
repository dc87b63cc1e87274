package load

import (
	"bytes"

	"go.yaml.in/yaml/v4"
)

// documentStart is put before a document whose first node is a "{" for the YAML
// parser. A flow mapping at the very start of a stream may be the key of a mapping, so
// the parser keeps every token of it queued until its end: for a JSON document, the
// whole file (github.json: 300 MB of tokens for 3.7 MB of text). After "--- " a key
// cannot start, and tokens are consumed as they come. It also keeps kin-openapi from
// reading the document again as JSON when the YAML parser refuses it, as JSON lets a
// repeated key silently replace the first. The document means the same; the columns
// of the line the marker is put on move right by len(documentStart), which rootColumn
// undoes.
const documentStart = "--- "

// forParser returns the root file's bytes as given to the YAML parser, and records the
// shift.
func (s *Spec) forParser(data []byte) []byte {
	start := 0
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		start = 3
	}
	at := start + len(data[start:]) - len(bytes.TrimLeft(data[start:], " \t\r\n"))
	if at >= len(data) || data[at] != '{' {
		return data
	}
	lineStart := bytes.LastIndexByte(data[:at], '\n') + 1
	if lineStart != at || lineStart < start {
		at = start // an indented "{": the marker goes on the first line
	}
	s.shift = len(documentStart)
	s.shiftLine = bytes.Count(data[:at], []byte("\n")) + 1
	s.Files.ShiftColumns(s.shiftLine, s.shift)
	out := make([]byte, 0, len(data)+len(documentStart))
	out = append(out, data[:at]...)
	out = append(out, documentStart...)
	return append(out, data[at:]...)
}

// rootColumn turns a column the parser reported for the root file into the file's own.
func (s *Spec) rootColumn(line, col int) int {
	if s.shift > 0 && line == s.shiftLine && col > s.shift {
		return col - s.shift
	}
	return col
}

// unshift moves the nodes on the shifted line back to the file's columns.
func (s *Spec) unshift(n *yaml.Node) {
	if s.shift == 0 || n == nil || n.Line > s.shiftLine {
		return
	}
	if n.Line == s.shiftLine {
		n.Column = s.rootColumn(n.Line, n.Column)
	}
	for _, c := range n.Content {
		s.unshift(c)
	}
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
