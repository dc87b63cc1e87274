package load

import (
	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// The normalize step of Load: the root file's text for the YAML parser, and its node tree,
// parsed once and guarded (guard.go) against what would take too long or too much memory.

// normalize writes the file's text for the YAML parser (yamlSafeJSON), records it for
// locating, and parses and guards the node tree (preflight): the text kin-openapi will
// read, and the tree, nil when the YAML parser refuses the file (the loader then says why).
// What locating needs of a tree that passed the guard is kept (source.Files.SetTree) while
// the steps that read the tree and neither locate through source.Files nor change it run;
// kept waits for it, and may be called again.
func (s *Spec) normalize(data []byte) (text []byte, root *yaml.Node, kept func(), err error) {
	text, edits := yamlSafeJSON(data)
	s.Files.Add(source.URIOf(s.Path), text)
	s.Files.SetEdits(edits)
	s.edited = len(edits) > 0
	kept = func() {}
	root, e := s.preflight(data)
	if e != nil {
		return nil, nil, kept, source.ErrorList{e}
	}
	if root != nil {
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.Files.SetTree(source.URIOf(s.Path), root)
		}()
		kept = func() { <-done }
	}
	return text, root, kept, nil
}

// preflight refuses, located, a root file that holds several YAML documents, or whose
// node tree exceeds the limits of guard.go. It returns the tree, columns the file's own, for
// the checks that follow; nil for a file the YAML parser refuses, which is left to
// kin-openapi to report.
func (s *Spec) preflight(data []byte) (*yaml.Node, *source.Error) {
	if e := checkDocuments(s.Path, data); e != nil {
		return nil, e
	}
	root := s.parse(data)
	if root == nil {
		return nil, nil
	}
	return root, newGuard(s.nodePos).check(root)
}

// parseWritten parses text, the description written out by the bundle or overlay step,
// and keeps what locating needs of its tree: its places are the text's, which the
// layout turns into places in the files it was written from. It returns the tree, or nil
// when the parser refuses the text (the loader then says why).
func (s *Spec) parseWritten(text []byte) *yaml.Node {
	s.edited = false // the root file's edits are not the text's
	root, err := parseTree(text)
	if err != nil {
		return nil
	}
	s.Files.SetTree(source.URIOf(s.Path), root)
	return root
}
