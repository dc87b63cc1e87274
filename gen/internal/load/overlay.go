package load

import (
	"fmt"
	"regexp"

	"github.com/retrygen/retrygen/gen/internal/overlay"
	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// overlay applies the overlays, in order, to a document whose root is an object: the
// text and tree kin-openapi reads from then on.
func (s *Spec) overlay(text []byte, root *yaml.Node, overlays []string, budget *int64) ([]byte, *yaml.Node, error) {
	if len(overlays) == 0 || root == nil || root.Kind != yaml.MappingNode {
		return text, root, nil
	}
	text, errs := s.applyOverlays(root, overlays, budget)
	if errs != nil {
		errs.Sort()
		return nil, nil, errs
	}
	return text, s.doc.Root, nil
}

// applyOverlays is the overlay step of Load, between reading the description and parsing
// it with kin-openapi. It reads each overlay file (counted in the budget, checked like the
// description: text, documents, size of its tree), applies them in order to root, the
// description's tree, checks the result against the limits the description was checked
// against, and returns the text kin-openapi is to read instead of the file: root's
// tree, overlays applied, written out by writeText. The text's layout goes to s.Files, so
// that every place in it is reported in the file it was written from: the description's
// own parts where they are in the description, what an overlay added in the overlay.
func (s *Spec) applyOverlays(root *yaml.Node, paths []string, budget *int64) ([]byte, source.ErrorList) {
	doc := s.doc // the description bundled from several files
	if doc == nil {
		doc = overlay.NewDocument(s.Path, root, MaxNodes)
	}
	var errs source.ErrorList
	for _, path := range paths {
		o, e := s.readOverlay(path, budget)
		if e != nil {
			return nil, e
		}
		s.Overlays = append(s.Overlays, path)
		doc.Apply(o, &errs, &s.Warnings)
		if len(errs) > 0 {
			return nil, errs
		}
	}
	s.doc = doc
	if e := newGuard(s.nodePos).check(doc.Root); e != nil {
		return nil, source.ErrorList{e}
	}
	text, layout, e := writeText(doc)
	if e != nil {
		return nil, source.ErrorList{e}
	}
	s.Files.Add(source.URIOf(s.Path), text)
	s.Files.SetLayout(layout)
	return text, nil
}

// readOverlay reads and checks the overlay file at path.
func (s *Spec) readOverlay(path string, budget *int64) (*overlay.Overlay, source.ErrorList) {
	fail := func(line, col int, msg, fix string) source.ErrorList {
		return source.ErrorList{{Pos: source.Pos{File: path, Line: line, Col: col}, Msg: msg, Fix: fix}}
	}
	data, err := readCapped(path, budget)
	if err != nil {
		return nil, fail(0, 0, "overlay: "+err.Error(), "")
	}
	if enc := utf32(data); enc != "" {
		return nil, fail(1, 1, "malformed overlay: the file looks like "+enc, "save the file as UTF-8 text")
	}
	if line, col, msg := checkText(data); msg != "" {
		return nil, fail(line, col, "malformed overlay: "+msg, "save the file as UTF-8 text, writing control characters as escapes")
	}
	if e := checkDocuments(path, data); e != nil {
		return nil, source.ErrorList{e}
	}
	root, err := parseTree(data)
	if err != nil {
		msg, line, col := yamlErrorAt(err)
		return nil, fail(line, col, "malformed overlay: "+msg, "")
	}
	g := newGuard(func(n *yaml.Node) source.Pos { return source.Pos{File: path, Line: n.Line, Col: n.Column} })
	if e := g.walk(root, nil, 0); e != nil {
		return nil, source.ErrorList{e}
	}
	if e := g.checkKeyPairs(); e != nil {
		return nil, source.ErrorList{e}
	}
	if k, first := repeatedKey(root, 0); k != nil {
		return nil, fail(k.Line, k.Column, fmt.Sprintf("malformed overlay: mapping key %q already defined at line %d", k.Value, first.Line),
			"remove one of them: tools disagree on which one counts")
	}
	s.Files.Add(source.URIOf(path), data)
	return overlay.Parse(path, root)
}

// nodePos returns the place a node of the description's tree was written: in the
// description, or in an overlay.
func (s *Spec) nodePos(n *yaml.Node) source.Pos {
	file := s.Path
	if s.doc != nil {
		file = s.doc.File(n)
	}
	return source.Pos{File: file, Line: n.Line, Col: n.Column}
}

// lineRef matches "line 12" in a parser's message.
var lineRef = regexp.MustCompile(`\bline (\d+)\b`)

// placesInMessage rewrites the lines of the root text that a parser's message names
// ("already defined at line 12") as the lines of the description they were written
// from, or as places in an overlay ("at keys.yaml:9:7").
func (s *Spec) placesInMessage(msg string) string {
	if s.doc == nil {
		return msg
	}
	return lineRef.ReplaceAllStringFunc(msg, func(m string) string {
		var line int
		fmt.Sscanf(m, "line %d", &line)
		pos := s.Files.LoaderPos(line, 1)
		if pos.File == s.Path {
			return fmt.Sprintf("line %d", pos.Line)
		}
		return pos.String()
	})
}
