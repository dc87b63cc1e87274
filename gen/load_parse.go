package gen

import "go.yaml.in/yaml/v4"

// documentStart is put before a document that starts with "{" for the YAML parser.
// A flow mapping at the very start of a stream may be the key of a mapping, so the
// parser keeps every token of it queued until its end: for a JSON document, the whole
// file (github.json: 300 MB of tokens for 3.7 MB of text). After "--- " a key cannot
// start, and tokens are consumed as they come. The document means the same; the
// columns of its first line move right by len(documentStart), which rootColumn undoes.
const documentStart = "--- "

// forParser returns the root file's bytes as given to kin-openapi, and records the shift.
func (s *Spec) forParser(data []byte) []byte {
	if len(data) == 0 || data[0] != '{' {
		return data
	}
	s.shift = len(documentStart)
	return append([]byte(documentStart), data...)
}

// rootColumn turns a column the parser reported for the root file into the file's own.
func (s *Spec) rootColumn(line, col int) int {
	if line == 1 && col > s.shift {
		return col - s.shift
	}
	return col
}

// unshift moves the nodes of the root file's first line back to the file's columns.
func (s *Spec) unshift(n *yaml.Node) {
	if s.shift == 0 || n == nil || n.Line != 1 {
		return
	}
	n.Column = s.rootColumn(n.Line, n.Column)
	for _, c := range n.Content {
		s.unshift(c)
	}
}
