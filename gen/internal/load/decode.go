package load

import (
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// The load step of Load: the document decoded from the root file's tree (native.go), or
// by kin-openapi from the text, its $refs resolved, then checked (checks.go) and
// validated (validate.go).

// load is the pipeline's last step: the document is decoded and its $refs resolved, and
// it is validated. A document whose only loading problem is dangling $refs is
// read again without them, so that its other problems are reported along.
//
// tree is the tree text was parsed from (nil when text was written after), which the
// document is decoded from when it can be (native.go); load lets go of it.
func (s *Spec) load(data, text []byte, tree *yaml.Node, swagger2 bool, opts Options, budget *int64) (*Spec, error) {
	doc, err := s.decode(text, tree, swagger2, opts, budget)
	if err != nil {
		return s.loadWithoutDanglingRefs(data, swagger2, opts, budget, err)
	}
	s.setDoc(doc)
	var errs source.ErrorList
	s.checkVersion(&errs)
	s.checkOperationCount(&errs)
	if len(errs) > 0 {
		return nil, errs.Err()
	}
	s.validate(&errs)
	s.checkServers(&errs)
	s.danglingMappings(&errs)
	s.checkDepth(opts.MaxDepth, &errs)
	return s, errs.Err()
}

// loadWithoutDanglingRefs reports err, the loader's, and when it is a dangling $ref every
// dangling $ref of the root file (which may be elsewhere than the one the loader stopped
// at); then it reads the rest of the document with those $refs left out, so that the
// later stages report its other problems (the retry extensions') in the same run.
func (s *Spec) loadWithoutDanglingRefs(data []byte, swagger2 bool, opts Options, budget *int64, err error) (*Spec, error) {
	var errs source.ErrorList
	e := s.loadError(err)
	dangling := s.danglingRefs()
	if len(dangling) == 0 || !strings.HasPrefix(e.Msg, "unresolved $ref") {
		errs.Add(e)
		return nil, errs.Err()
	}
	errs = append(errs, dangling...)
	addElsewhere(&errs, e)
	doc, err := s.decode(s.textWithoutRefs(data, dangling), nil, swagger2, opts, budget)
	if err != nil {
		addElsewhere(&errs, s.loadError(err))
		return nil, errs.Err()
	}
	s.setDoc(doc)
	return s, errs.Err()
}

// setDoc keeps the decoded document, and its version when the file's was not read.
func (s *Spec) setDoc(doc *openapi3.T) {
	s.Doc = doc
	if s.Version == "" {
		s.Version = doc.OpenAPI
	}
}

// decode reads the document text with kin-openapi, resolving its $refs, and converts a
// Swagger 2.0 document to OpenAPI 3. The document is decoded from tree, the tree text
// was parsed from, when that is not nil and decodeTree can (native.go).
func (s *Spec) decode(text []byte, tree *yaml.Node, swagger2 bool, opts Options, budget *int64) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.IncludeOrigin = true
	location := &url.URL{Path: filepath.ToSlash(s.Path)}
	parserText := text
	if !swagger2 {
		parserText = s.forParser(text)
	}
	if opts.AllowExternalRefs {
		loader.IsExternalRefsAllowed = true
		r, err := newConfinedReader(s, s.Path, budget)
		if err != nil {
			return nil, err
		}
		loader.ReadFromURIFunc = r.read
	}
	if s.doc != nil {
		loader.ReadFromURIFunc = s.rootAs(parserText, location, loader.ReadFromURIFunc)
	}
	if swagger2 {
		return s.loadSwagger2(loader, text, location)
	}
	if compact, ok := s.Files.Tree(source.URIOf(s.Path)); ok && tree != nil && !s.edited && decodeNatively {
		if doc, ok, err := decodeTree(loader, tree, s.Files, compact, text, parserText, location); ok {
			return doc, err
		}
	}
	return loader.LoadFromDataWithPath(parserText, location)
}

// decodeNatively lets decode decode the root file's tree (decodeTree); tests turn it off
// to compare with kin-openapi's own decode.
var decodeNatively = true

// rootAs returns the function the loader reads files with when the root file's text is
// not the file's bytes, but the description as overlays changed it: the root file is
// that text (kin-openapi reads it again to find what a $ref names outside the places it
// decodes, and must not find there what an overlay removed), and any other file is read
// by other or, when other is nil, refused as kin-openapi refuses it, naming the $ref as
// written.
func (s *Spec) rootAs(text []byte, root *url.URL, other openapi3.ReadFromURIFunc) openapi3.ReadFromURIFunc {
	return func(l *openapi3.Loader, u *url.URL) ([]byte, error) {
		if u.Scheme == "" && u.Host == "" && u.Opaque == "" && path.Clean(u.Path) == path.Clean(root.Path) {
			return text, nil
		}
		if other != nil {
			return other(l, u)
		}
		ref := u.String()
		if _, written := s.Files.FindRef(func(v string) bool { return refNames(v, root, u) }); written != "" {
			ref = written
		}
		return nil, &openapi3.DisallowedExternalRefError{Ref: ref}
	}
}

// refNames reports whether the $ref ref, written in the file at root, names the file u.
func refNames(ref string, root, u *url.URL) bool {
	r, err := url.Parse(ref)
	if err != nil || r.Path == "" && r.Host == "" {
		return false
	}
	if r.IsAbs() || r.Host != "" {
		r.Fragment = ""
		return r.String() == u.String()
	}
	if path.IsAbs(r.Path) {
		return path.Clean(r.Path) == path.Clean(u.Path)
	}
	return path.Clean(path.Join(path.Dir(root.Path), r.Path)) == path.Clean(u.Path)
}

// addElsewhere adds e, a loader error besides errs, when it is located at a place none
// of errs is: one that is not (a Swagger 2.0 document's $ref, which the loader names as
// converted) or that shares a place says nothing more.
func addElsewhere(errs *source.ErrorList, e *source.Error) {
	if e.Pos.Line > 0 && !slices.ContainsFunc(*errs, func(o *source.Error) bool { return o.Pos == e.Pos }) {
		errs.Add(e)
	}
}
