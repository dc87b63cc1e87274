// Package load reads an OpenAPI description, confines its $refs, converts Swagger 2.0,
// and validates it with kin-openapi, reporting every problem located. It is the first
// stage of the generator; only it and the build stage see kin-openapi types.
package load

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/overlay"
	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// Limits applied when LoadOptions leaves them zero.
const (
	// DefaultMaxBytes caps the bytes read for one spec, its external files included.
	DefaultMaxBytes = 64 << 20
	// DefaultMaxDepth caps how deeply schemas may nest inline (properties, items, allOf
	// and the like); a $ref starts a new count. Real specs stay far below it.
	DefaultMaxDepth = 64
	// MaxOperations caps the operations of one spec. The largest public descriptions have
	// a few thousand.
	MaxOperations = 10000
	// MaxEnumValues caps the values of one enum. Real enums have at most hundreds.
	MaxEnumValues = 10000
)

// Options says what Load may read.
type Options struct {
	// AllowExternalRefs lets $refs name other files. Even then only files inside the
	// spec's own folder tree are read (symbolic links resolved), never URLs.
	AllowExternalRefs bool
	// MaxBytes caps the bytes read for the spec and its external files together;
	// 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxDepth caps inline schema nesting; 0 means DefaultMaxDepth.
	MaxDepth int
	// Overlays are OpenAPI Overlay files, applied in order to the description before it
	// is read (see applyOverlays); their bytes count in MaxBytes.
	Overlays []string
}

// Spec is a loaded, validated OpenAPI description.
type Spec struct {
	// Path is the spec file as the user named it, e.g. "api.yaml".
	Path string
	// Doc is the document in OpenAPI 3 form (Swagger 2.0 is converted), $refs resolved.
	Doc *openapi3.T
	// Version is the version the file declares, e.g. "3.1.0" or "2.0".
	Version string
	// Files holds the bytes read and locates places in them.
	Files *source.Files
	// Warnings are validation findings that do not stop generation: invalid examples and
	// defaults, extra fields beside a $ref, arrays without items (read as any), keywords
	// of another OpenAPI version, repeated names in required, path parameters the path
	// template does not use.
	Warnings source.ErrorList
	// Overlays are the overlay files applied to the description, in order, as the user
	// named them.
	Overlays []string
	// Hoisted holds the components the loader made of places in other files, by their
	// JSON pointers ("#/components/schemas/Pet-2"); nil for a description in one file.
	Hoisted map[string]bool

	// doc is the description as the overlays left it; nil without overlays.
	doc *overlay.Document
	// leftOut are the places of the keys whose values lost a $ref that could not be
	// resolved (reported): what the validator finds missing there is not reported again.
	leftOut map[source.Pos]bool
}

// Load reads, resolves and validates the OpenAPI description at path. It reports every
// problem it finds as a source.ErrorList. When the document could be read but did not
// validate, it returns both the Spec and the errors, so that later stages can add what
// they find to the same report.
//
// It is a pipeline, each step a method that hands the next what it needs: read (the
// bytes, capped, UTF-8), normalize (the text for the YAML parser, and the node tree,
// guarded against what would take too long or too much memory), overlay, strict (what
// kin-openapi would read leniently), load (kin-openapi decodes and resolves; validation).
func Load(path string, opts Options) (*Spec, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	s := &Spec{Path: path, Files: source.NewFiles(path)}
	defer func() { s.doc = nil }() // the overlaid tree is needed while loading only
	budget := opts.MaxBytes
	data, err := s.read(&budget)
	if err != nil {
		return nil, err
	}
	text, root, err := s.normalize(data)
	if err != nil {
		return nil, err
	}
	var bundled source.ErrorList
	switch {
	case root == nil:
	case opts.AllowExternalRefs:
		if text, root, bundled = s.bundle(text, root, &budget); text == nil {
			return nil, bundled.Err()
		}
	default:
		if e := s.refuseExternalRefs(root); e != nil {
			return nil, source.ErrorList{e}
		}
	}
	if text, root, err = s.overlay(text, root, opts.Overlays, &budget); err != nil {
		return nil, joinErrors(bundled, err)
	}
	swagger2, err := s.strict(root, data)
	if err != nil {
		return nil, joinErrors(bundled, err)
	}
	if wrong := s.wrongKindRefs(root); len(wrong) > 0 {
		text = s.textWithoutRefs(data, wrong)
		bundled = append(bundled, wrong...)
	}
	root = nil // the loader's turn: the tree need not stay in memory
	spec, err := s.load(data, text, swagger2, opts, &budget)
	return spec, joinErrors(bundled, err)
}

// joinErrors reports the problems of the bundle step with err, those of a later step.
func joinErrors(first source.ErrorList, err error) error {
	if len(first) == 0 {
		return err
	}
	var rest source.ErrorList
	if err != nil && !errors.As(err, &rest) {
		rest = source.ErrorList{{Pos: source.Pos{File: first[0].Pos.File}, Msg: err.Error()}}
	}
	return append(slices.Clip(first), rest...).Err()
}

// read is the pipeline's first step: the file's bytes, within budget, refused unless they
// are UTF-8 text without control characters.
func (s *Spec) read(budget *int64) ([]byte, error) {
	data, err := readCapped(s.Path, budget)
	if err != nil {
		return nil, source.ErrorList{{Pos: source.Pos{File: s.Path}, Msg: err.Error()}}
	}
	if enc := utf32(data); enc != "" {
		return nil, source.ErrorList{{Pos: source.Pos{File: s.Path, Line: 1, Col: 1}, Msg: "malformed document: the file looks like " + enc,
			Fix: "save the file as UTF-8 text"}}
	}
	if line, col, msg := checkText(data); msg != "" {
		return nil, source.ErrorList{{Pos: source.Pos{File: s.Path, Line: line, Col: col}, Msg: "malformed document: " + msg,
			Fix: "save the file as UTF-8 text, writing control characters as escapes"}}
	}
	return data, nil
}

// normalize writes the file's text for the YAML parser (yamlSafeJSON), records it for
// locating, and parses and guards the node tree (preflight): the text kin-openapi will
// read, and the tree, nil when the YAML parser refuses the file (the loader then says why).
func (s *Spec) normalize(data []byte) ([]byte, *yaml.Node, error) {
	text, edits := yamlSafeJSON(data)
	s.Files.Add(source.URIOf(s.Path), text)
	s.Files.SetEdits(edits)
	root, e := s.preflight(data)
	if e != nil {
		return nil, nil, source.ErrorList{e}
	}
	if root != nil {
		s.Files.SetTree(source.URIOf(s.Path), root)
	}
	return text, root, nil
}

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

// strict checks what kin-openapi would read leniently: the version fields, and a Swagger
// 2.0 document's structure. It reports whether the document is Swagger 2.0.
func (s *Spec) strict(root *yaml.Node, data []byte) (swagger2 bool, err error) {
	if e := s.checkVersionFields(root); e != nil {
		return false, source.ErrorList{e}
	}
	swagger2 = isSwagger2(root, data)
	if swagger2 && root != nil {
		if e := s.checkSwagger2(root); e != nil {
			return false, source.ErrorList{e}
		}
	}
	return swagger2, nil
}

// load is the pipeline's last step: kin-openapi decodes text and resolves its $refs, and
// the document is validated. A document whose only loading problem is dangling $refs is
// read again without them, so that its other problems are reported along.
func (s *Spec) load(data, text []byte, swagger2 bool, opts Options, budget *int64) (*Spec, error) {
	doc, err := s.decode(text, swagger2, opts, budget)
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
	doc, err := s.decode(s.textWithoutRefs(data, dangling), swagger2, opts, budget)
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
// Swagger 2.0 document to OpenAPI 3.
func (s *Spec) decode(text []byte, swagger2 bool, opts Options, budget *int64) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.IncludeOrigin = true
	location := &url.URL{Path: filepath.ToSlash(s.Path)}
	if !swagger2 {
		text = s.forParser(text)
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
		loader.ReadFromURIFunc = s.rootAs(text, location, loader.ReadFromURIFunc)
	}
	if swagger2 {
		return s.loadSwagger2(loader, text, location)
	}
	return loader.LoadFromDataWithPath(text, location)
}

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

// withoutRefs returns the file's text with the key of each `$ref` that errs locate
// written as an extension of the same length ("$ref" as "x-rr"; a quoted key, however it
// spells "$ref", escapes included, as "x-" and as many r's), so that nothing else moves.
func withoutRefs(text []byte, errs source.ErrorList) []byte {
	out := slices.Clone(text)
	for _, e := range errs {
		if start, end, ok := refKey(out, offsetOf(out, e.Pos.Line, e.Pos.Col)); ok {
			copy(out[start:], "x-")
			copy(out[start+2:end], bytes.Repeat([]byte("r"), end-start-2))
		}
	}
	return out
}

// refKey returns where the `$ref` key written at text[at] is, without its quotes, and
// whether one is: `$ref`, or a quoted scalar on one line that reads "$ref".
func refKey(text []byte, at int) (start, end int, ok bool) {
	if bytes.HasPrefix(text[at:], []byte("$ref")) {
		return at, at + len("$ref"), true
	}
	if at >= len(text) || text[at] != '"' && text[at] != '\'' {
		return 0, 0, false
	}
	q := text[at]
	for i := at + 1; i < len(text) && text[i] != '\n'; i++ {
		switch {
		case q == '"' && text[i] == '\\':
			i++ // an escape: the next byte is not the closing quote
		case text[i] == q:
			key := string(text[at : i+1])
			if q == '"' {
				v, err := strconv.Unquote(key)
				return at + 1, i, err == nil && v == "$ref"
			}
			return at + 1, i, key == "'$ref'"
		}
	}
	return 0, 0, false
}

// offsetOf returns the byte offset of line:col (columns count characters, and a byte
// order mark before the first line is not one) in text, or len(text) past its end.
func offsetOf(text []byte, line, col int) int {
	at := 0
	if bytes.HasPrefix(text, []byte("\uFEFF")) {
		at = len("\uFEFF")
	}
	for ; line > 1 && at < len(text); line-- {
		i := bytes.IndexByte(text[at:], '\n')
		if i < 0 {
			return len(text)
		}
		at += i + 1
	}
	for ; col > 1 && at < len(text); col-- {
		_, n := utf8.DecodeRune(text[at:])
		at += n
	}
	return at
}

// checkText returns the line and column (in bytes) of the first byte of data that is not
// UTF-8, or is a control character neither YAML nor JSON allows (any below U+0020 but
// tab, line feed and carriage return), and what is wrong with it. Documents that start
// with a UTF-16 or UTF-32 byte order mark are left to the parser.
func checkText(data []byte) (line, col int, msg string) {
	if bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) ||
		bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}) {
		return 0, 0, ""
	}
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return line, col, "invalid UTF-8"
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r':
			return line, col, fmt.Sprintf("control character %U is not allowed", r)
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col += n
		}
		i += n
	}
	return 0, 0, ""
}

// checkOperationCount rejects specs with more than MaxOperations operations.
func (s *Spec) checkOperationCount(errs *source.ErrorList) {
	n := 0
	for _, item := range s.Doc.Paths.Map() {
		if item != nil {
			n += len(item.Operations())
		}
	}
	if n > MaxOperations {
		errs.Add(&source.Error{
			Pos:     s.Files.PosOfPointer("#/paths"),
			Pointer: "#/paths",
			Msg:     fmt.Sprintf("limit exceeded: %d operations, more than %d", n, MaxOperations),
			Fix:     "split the description into several, one client each",
		})
	}
}

// readCapped reads a regular file, failing when it is larger than what remains of budget.
// Anything else (a FIFO, a device) is refused before it is opened, and opening does not
// wait for a FIFO's writer should one replace the file meanwhile.
func readCapped(path string, budget *int64) ([]byte, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, cleanOSError(err)
	} else if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, cleanOSError(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, cleanOSError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if fi.Size() > *budget {
		return nil, fmt.Errorf("file too large: %d bytes, limit %d", fi.Size(), *budget)
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, *budget+1)); err != nil {
		return nil, cleanOSError(err)
	}
	data := buf.Bytes()
	if int64(len(data)) > *budget {
		return nil, fmt.Errorf("file too large: over %d bytes", *budget)
	}
	*budget -= int64(len(data))
	return data, nil
}

func cleanOSError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// confinedReader reads $ref'd files, and only those inside the spec's folder tree.
type confinedReader struct {
	spec   *Spec
	dir    string // the spec's folder, absolute
	root   string // the same, symbolic links resolved
	budget *int64
}

func newConfinedReader(s *Spec, path string, budget *int64) (*confinedReader, error) {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, cleanOSError(err)
	}
	return &confinedReader{spec: s, dir: dir, root: root, budget: budget}, nil
}

func (r *confinedReader) read(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
	if (u.Scheme != "" && u.Scheme != "file") || u.Host != "" || u.Opaque != "" || u.User != nil {
		return nil, &refEscapeError{ref: u.String(), why: "only files inside the spec's folder can be referenced, not URLs"}
	}
	abs, err := filepath.Abs(filepath.FromSlash(u.Path))
	if err != nil {
		return nil, err
	}
	data, err := r.readFile(abs)
	if err != nil {
		if re, ok := err.(*refEscapeError); ok {
			re.ref = u.Path
		}
		return nil, err
	}
	r.spec.Files.Add(u.String(), data)
	return data, nil
}

// readFile reads the file at abs, an absolute path, if it is inside the spec's folder
// tree, symbolic links resolved.
func (r *confinedReader) readFile(abs string) ([]byte, error) {
	outside := &refEscapeError{ref: abs, why: "it is outside the spec's folder"}
	// Checked by name first, so that nothing outside is even looked at, then again with
	// symbolic links resolved.
	if !within(r.dir, abs) {
		return nil, outside
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, cleanOSError(err)
	}
	if !within(r.root, real) {
		return nil, outside
	}
	return readCapped(real, r.budget)
}

// within reports whether path lies inside dir (both absolute and clean).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

type refEscapeError struct{ ref, why string }

func (e *refEscapeError) Error() string {
	return fmt.Sprintf("$ref to %q is not allowed: %s", e.ref, e.why)
}

// isSwagger2 reports whether the document is Swagger 2.0: its root mapping has a
// "swagger" key. Without a tree (the YAML parser refused the file), a "swagger:" line
// decides, and the loader reports the syntax error.
func isSwagger2(root *yaml.Node, data []byte) bool {
	if root != nil {
		return source.MappingValue(root, "swagger") != nil
	}
	return hasSwaggerLine(data)
}

// checkVersionFields refuses a root mapping with both a "swagger" and an "openapi" key,
// located at the later: read as Swagger 2.0, as isSwagger2 would have it, the OpenAPI 3
// parts of the document (content, requestBody, components) would be silently dropped.
func (s *Spec) checkVersionFields(root *yaml.Node) *source.Error {
	if root == nil || root.Kind != yaml.MappingNode {
		return nil
	}
	sw, oa := source.MappingKey(root, "swagger"), source.MappingKey(root, "openapi")
	if sw == nil || oa == nil {
		return nil
	}
	later := sw
	if oa.Line > sw.Line || oa.Line == sw.Line && oa.Column > sw.Column {
		later = oa
	}
	return &source.Error{Pos: source.Pos{File: s.Path, Line: later.Line, Col: later.Column},
		Msg: "malformed document: both \"swagger\" and \"openapi\" give the version; a document is either Swagger 2.0 or OpenAPI 3",
		Fix: "keep the field of the version the document follows and remove the other"}
}

func (s *Spec) loadSwagger2(loader *openapi3.Loader, data []byte, location *url.URL) (*openapi3.T, error) {
	var doc2 openapi2.T
	if err := openapi2.UnmarshalFromData(data, &doc2); err != nil {
		return nil, err
	}
	s.Version = doc2.Swagger
	if doc2.Swagger != "2.0" {
		return nil, &versionError{version: doc2.Swagger, field: "swagger"}
	}
	doc, err := openapi2conv.ToV3WithLoader(&doc2, loader, location)
	if err != nil {
		return nil, err
	}
	s.completeFormBodies(&doc2, doc)
	return doc, nil
}

// completeFormBodies gives the form bodies that openapi2conv makes of formData parameters
// what the conversion leaves out: the body is required when one of its parameters is,
// and in an application/x-www-form-urlencoded body an array parameter's collectionFormat
// (csv when it has none) becomes its property's encoding: csv is form style without
// explode ("a=1,2"), ssv spaceDelimited, pipes pipeDelimited, multi form with explode
// ("a=1&a=2"). tsv has no OpenAPI 3 equivalent: it is written as csv is, with a warning.
// A multipart body writes an array as one part per item whatever its collectionFormat.
func (s *Spec) completeFormBodies(doc2 *openapi2.T, doc *openapi3.T) {
	for _, path := range source.SortedKeys(doc2.Paths) {
		item2, item := doc2.Paths[path], doc.Paths.Value(path)
		if item2 == nil || item == nil {
			continue
		}
		ops := item2.Operations()
		for _, method := range source.SortedKeys(ops) {
			op := item.GetOperation(method)
			if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			body := op.RequestBody.Value
			pointer := "#/paths/" + source.EscapePointer(path) + "/" + strings.ToLower(method) + "/parameters"
			for _, p := range formDataParams(doc2, item2.Parameters, ops[method].Parameters) {
				if p.Required {
					body.Required = true
				}
				if !p.Type.Is("array") {
					continue
				}
				enc := &openapi3.Encoding{Style: openapi3.SerializationForm, Explode: openapi3.Ptr(false)}
				switch p.CollectionFormat {
				case "ssv":
					enc.Style = openapi3.SerializationSpaceDelimited
				case "pipes":
					enc.Style = openapi3.SerializationPipeDelimited
				case "multi":
					enc.Explode = openapi3.Ptr(true)
				case "tsv":
					s.Warnings.Add(&source.Error{
						Pos: s.Files.PosOfPointer(pointer), Op: source.OpName(method, path, op.OperationID),
						Msg: fmt.Sprintf("formData parameter %q: collectionFormat tsv has no OpenAPI 3 equivalent; it is sent comma-separated, as csv", p.Name),
						Fix: "use csv, ssv, pipes or multi",
					})
				}
				for ct, mt := range body.Content {
					if mt == nil || mt.Schema == nil || mt.Schema.Value == nil || mt.Schema.Value.Properties[p.Name] == nil {
						continue
					}
					if t, _, err := mime.ParseMediaType(ct); err != nil || t != "application/x-www-form-urlencoded" {
						continue
					}
					if mt.Encoding == nil {
						mt.Encoding = map[string]*openapi3.Encoding{}
					}
					if mt.Encoding[p.Name] == nil {
						mt.Encoding[p.Name] = enc
					}
				}
			}
		}
	}
}

// formDataParams returns the formData parameters of an operation: its own, and those of
// its path item that it does not redeclare, references resolved.
func formDataParams(doc2 *openapi2.T, pathParams, opParams openapi2.Parameters) []*openapi2.Parameter {
	resolve := func(p *openapi2.Parameter) *openapi2.Parameter {
		if p != nil && p.Ref != "" {
			name, ok := strings.CutPrefix(p.Ref, "#/parameters/")
			if !ok {
				return nil
			}
			return doc2.Parameters[name]
		}
		return p
	}
	var out []*openapi2.Parameter
	own := map[string]bool{}
	for _, p := range opParams {
		if p = resolve(p); p != nil {
			own[p.In+" "+p.Name] = true
			if p.In == "formData" {
				out = append(out, p)
			}
		}
	}
	for _, p := range pathParams {
		if p = resolve(p); p != nil && p.In == "formData" && !own[p.In+" "+p.Name] {
			out = append(out, p)
		}
	}
	return out
}

const versionFix = `start the document with openapi: "3.1.0" (or the 3.0 or 3.2 version it follows)`

type versionError struct{ version, field string }

func (e *versionError) Error() string {
	if e.version == "" {
		return "missing OpenAPI version: the document has no \"openapi\" field"
	}
	return fmt.Sprintf("unsupported OpenAPI version %s %q: retrygen reads OpenAPI 3.0, 3.1 and 3.2, and Swagger 2.0", e.field, e.version)
}

// checkVersion accepts OpenAPI 3.0, 3.1 and 3.2 ("3.1" or "3.1.x"); Swagger 2.0 was
// checked before conversion.
func (s *Spec) checkVersion(errs *source.ErrorList) {
	if s.Version == "2.0" {
		return
	}
	v := s.Doc.OpenAPI
	for _, minor := range []string{"3.0", "3.1", "3.2"} {
		if v == minor || strings.HasPrefix(v, minor+".") {
			return
		}
	}
	pos := s.Files.PosOfField(s.Doc.Origin, "openapi")
	if !pos.IsValid() {
		pos = s.Files.PosOfPointer("#/openapi")
	}
	if !pos.IsValid() {
		pos = source.Pos{File: s.Path, Line: 1, Col: 1} // an empty document: the field belongs at its start
	}
	errs.Add(&source.Error{Pos: pos, Msg: (&versionError{version: v, field: "openapi"}).Error(), Fix: versionFix})
}

var (
	resolveRefMsg = regexp.MustCompile(`in fragment in URI: ("(?:[^"\\]|\\.)*")`)
	yamlLineMsg   = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)
	quotedMsg     = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	mustObjectMsg = regexp.MustCompile(`^invalid ([a-zA-Z ]+): value MUST be an object$`)
	jsonFieldMsg  = regexp.MustCompile(`cannot unmarshal (\w+) into (?:field \w+\.([\w.]+)|value) of type \S+`)
)

// loadError turns a kin-openapi or YAML error into a located Error.
func (s *Spec) loadError(err error) *source.Error {
	e := &source.Error{Pos: source.Pos{File: s.Path}}
	var (
		ve  *versionError
		re  *refEscapeError
		de  *openapi3.DisallowedExternalRefError
		le  *yaml.LoadError
		les *yaml.LoadErrors
	)
	switch {
	case errors.As(err, &ve):
		e.Msg = ve.Error()
		e.Fix = versionFix
		e.Pos = s.Files.PosOfPointer("#/" + ve.field)
	case errors.As(err, &de):
		e.Msg = fmt.Sprintf("$ref %q names another file, which is not allowed by default", de.Ref)
		e.Fix = "move the definition into this file, or pass -allow-external-refs to follow $refs to files inside the spec's folder"
		e.Pos = s.posOfRef(de.Ref)
	case errors.As(err, &re):
		var written string
		e.Pos, written = s.posOfRefSuffix(re.ref)
		if written != "" {
			re.ref = written
		}
		e.Msg = re.Error()
		e.Fix = "keep referenced files in the spec's folder or below it"
	case errors.As(err, &le):
		e.Msg = "malformed document: " + s.placesInMessage(le.Message)
		e.Pos = s.Files.LoaderPos(le.Mark.Line, le.Mark.Column)
	case errors.As(err, &les) && len(les.Errors) > 0:
		first := les.Errors[0]
		e.Msg = "malformed document: " + s.placesInMessage(first.Message)
		e.Pos = s.Files.LoaderPos(first.Mark.Line, first.Mark.Column)
	default:
		s.locateMessage(e, err.Error())
	}
	return e
}

// locateMessage fills in e from msg, the text of an error of a type loadError does not
// know: a YAML error's line, the pointer of a JSON field that could not be decoded, an
// empty object, an unresolved $ref, else the first $ref the text quotes that is found.
func (s *Spec) locateMessage(e *source.Error, msg string) {
	msg = strings.TrimPrefix(msg, "failed to unmarshal data: ")
	if i := strings.LastIndex(msg, "yaml error: "); i >= 0 {
		msg = msg[i+len("yaml error: "):]
	}
	if m := yamlLineMsg.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		e.Pos = s.Files.LoaderPos(line, 0)
		msg = "malformed document: " + s.placesInMessage(msg[len(m[0]):])
	} else if m := jsonFieldMsg.FindStringSubmatch(msg); m != nil {
		// Swagger 2.0 documents are decoded as JSON, without positions: the field's
		// place, by its pointer, or the document's.
		e.Pos = s.Files.PosOfPointer("#")
		if m[2] != "" {
			e.Pointer = "#/" + strings.ReplaceAll(m[2], ".", "/")
			e.Pos = s.Files.PosOfPointer(e.Pointer)
		}
		msg = "malformed document: " + m[0]
	} else if m := mustObjectMsg.FindStringSubmatch(msg); m != nil {
		// kin-openapi does not say which one: the first empty one of that kind.
		e.Pos = s.Files.PosOfNull(objectPlaces[m[1]].entries, objectPlaces[m[1]].values)
		e.Fix = "give it a value, or remove it"
	} else if m := resolveRefMsg.FindStringSubmatch(msg); m != nil {
		ref, err := strconv.Unquote(m[1])
		if err != nil {
			ref = m[1]
		}
		e.Pos = s.posOfRef(ref)
		msg = fmt.Sprintf("unresolved $ref %q: nothing is defined there", ref)
		e.Fix = "correct the $ref, or define what it names"
	} else {
		// Other resolution errors quote the $ref they failed on.
		for _, q := range quotedMsg.FindAllString(msg, -1) {
			ref, err := strconv.Unquote(q)
			if err != nil {
				continue
			}
			if pos := s.posOfRef(ref); pos.IsValid() {
				e.Pos = pos
				break
			}
		}
	}
	e.Msg = msg
}

// objectPlace lists where an object of one kind sits: the entries (mapping values or
// list items) of the keys in entries, and the values of the keys in values.
type objectPlace struct{ entries, values []string }

// objectPlaces are the places of each kind kin-openapi's "invalid <kind>: value MUST be
// an object" names.
var objectPlaces = map[string]objectPlace{
	"schema": {
		entries: []string{"schemas", "properties", "patternProperties", "$defs", "definitions", "allOf", "oneOf", "anyOf", "prefixItems", "dependentSchemas"},
		values:  []string{"schema", "items", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"},
	},
	"parameter":      {entries: []string{"parameters"}},
	"response":       {entries: []string{"responses"}},
	"requestBody":    {entries: []string{"requestBodies"}, values: []string{"requestBody"}},
	"header":         {entries: []string{"headers"}},
	"example":        {entries: []string{"examples"}},
	"securityScheme": {entries: []string{"securitySchemes"}},
	"callback":       {entries: []string{"callbacks"}},
	"link":           {entries: []string{"links"}},
	"path item":      {entries: []string{"paths", "webhooks", "pathItems"}},
}

// posOfRef finds the first `$ref: <ref>` in the root file.
func (s *Spec) posOfRef(ref string) source.Pos {
	pos, _ := s.Files.FindRef(func(v string) bool { return v == ref })
	return pos
}

// posOfRefSuffix finds the first $ref whose file part names the same file as path, and
// returns it as written.
func (s *Spec) posOfRefSuffix(path string) (source.Pos, string) {
	base := filepath.Base(filepath.FromSlash(path))
	return s.Files.FindRef(func(v string) bool {
		file, _, _ := strings.Cut(v, "#")
		if u, err := url.Parse(file); err == nil && u.Path != "" {
			file = u.Path
		}
		return file != "" && filepath.Base(filepath.FromSlash(file)) == base
	})
}

// validate runs kin-openapi's validation and keeps the findings that matter to a client
// generator as errors; the rest become warnings.
func (s *Spec) validate(errs *source.ErrorList) {
	// The options go to Validate itself: it rebuilds the context's options from its own
	// arguments for 3.1 documents, dropping any set on the context.
	var list []error
	list = append(list, validateOnce(s.Doc,
		openapi3.EnableMultiError(),
		openapi3.DisableExamplesValidation(),
		openapi3.DisableSchemaDefaultsValidation(),
		openapi3.DisableSchemaPatternValidation(),
	)...)
	for _, e := range list {
		var dup *openapi3.DuplicateOperationIDError
		if errors.As(e, &dup) {
			continue // Operations reports duplicates with both places
		}
		var ppe *openapi3.PathParametersError
		if errors.As(e, &ppe) {
			s.pathParamsError(ppe, errs)
			continue
		}
		located := s.validationError(e)
		if s.leftOut[located.Pos] {
			continue // a $ref left out, reported
		}
		var extra *openapi3.ExtraSiblingFieldsError
		if errors.As(e, &extra) {
			s.unknownFields(located, extra)
			continue
		}
		if tolerated(e) {
			s.Warnings.Add(located)
		} else {
			errs.Add(located)
		}
	}
	s.Warnings.Sort()
}

// tolerated reports validation findings common in real public specs that do not keep a
// client from being generated.
func tolerated(err error) bool {
	var (
		sve   *openapi3.SchemaValueError
		extra *openapi3.ExtraSiblingFieldsError
		items *openapi3.SchemaItemsRequired
		ver   *openapi3.FieldVersionMismatchError
		dup   *openapi3.DuplicateRequiredFieldError
	)
	return errors.As(err, &sve) || errors.As(err, &extra) || errors.As(err, &items) ||
		errors.As(err, &ver) || errors.As(err, &dup)
}

// validationError locates one kin-openapi validation error: by the innermost Origin its
// chain carries, else by the path and operation it names.
func (s *Spec) validationError(err error) *source.Error {
	var (
		path, method, section, component string
		cause                            = err
		origin                           *openapi3.Origin
	)
	for e := err; e != nil; {
		switch w := e.(type) {
		case *openapi3.SectionValidationError:
			section, cause = w.Section, w.Cause
		case *openapi3.PathValidationError:
			path, cause = w.Path, w.Cause
		case *openapi3.OperationValidationError:
			method, cause = w.Method, w.Cause
		case *openapi3.ComponentValidationError:
			if path == "" {
				component = "#/components/" + componentSections[w.Section] + "/" + source.EscapePointer(w.Name)
				cause = w.Cause
			}
		}
		if o := originOf(e); o != nil && o.Key != nil {
			origin = o
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	out := &source.Error{Pos: source.Pos{File: s.Path}, Msg: cause.Error()}
	var op *openapi3.Operation
	if path != "" {
		out.Pointer = "#/paths/" + source.EscapePointer(path)
		if item := s.Doc.Paths.Value(path); item != nil {
			out.Pos = s.Files.PosOf(item.Origin)
			if method != "" {
				op = item.GetOperation(method)
			}
		}
		if method != "" {
			out.Pointer += "/" + strings.ToLower(method)
			id := ""
			if op != nil {
				id = op.OperationID
				out.Pos = s.Files.PosOf(op.Origin)
			}
			out.Op = source.OpName(method, path, id)
		}
	} else if component != "" {
		out.Pointer = component
	} else if section != "" {
		out.Pointer = "#/" + section
	}
	if origin != nil {
		out.Pos = s.Files.PosOf(origin)
	}
	if !out.Pos.IsValid() && out.Pointer != "" {
		out.Pos = s.Files.PosOfPointer(out.Pointer)
	}
	return out
}

// pathParamsError splits kin-openapi's path parameter check: a name in the path template
// that no parameter declares is an error (the client could not build the URL); a declared
// path parameter the template does not use is only a warning (the client leaves it out).
func (s *Spec) pathParamsError(e *openapi3.PathParametersError, errs *source.ErrorList) {
	inTemplate := map[string]bool{}
	for _, part := range strings.Split(e.Path, "{")[1:] {
		if name, _, ok := strings.Cut(part, "}"); ok {
			inTemplate[name] = true
		}
	}
	method := strings.ToUpper(e.Method)
	item := s.Doc.Paths.Value(e.Path)
	var op *openapi3.Operation
	if item != nil {
		op = item.GetOperation(method)
	}
	out := func(msg, fix string) *source.Error {
		err := &source.Error{Pos: source.Pos{File: s.Path}, Op: source.OpName(method, e.Path, ""), Msg: msg, Fix: fix,
			Pointer: "#/paths/" + source.EscapePointer(e.Path) + "/" + strings.ToLower(method)}
		if op != nil {
			err.Op = source.OpName(method, e.Path, op.OperationID)
			err.Pos = s.Files.PosOf(op.Origin)
		}
		if !err.Pos.IsValid() {
			err.Pos = s.Files.PosOfPointer(err.Pointer)
		}
		return err
	}
	for _, name := range e.Missing {
		if inTemplate[name] {
			errs.Add(out(fmt.Sprintf("path template names {%s} but no path parameter %q is declared", name, name),
				fmt.Sprintf("declare a parameter with name: %s and in: path", name)))
		} else {
			s.Warnings.Add(out(fmt.Sprintf("path parameter %q is not in the path template; it is ignored", name), ""))
		}
	}
}

// componentSections maps kin-openapi's names of component kinds to their keys.
var componentSections = map[string]string{
	"schema": "schemas", "parameter": "parameters", "header": "headers",
	"request body": "requestBodies", "response": "responses", "security scheme": "securitySchemes",
	"example": "examples", "link": "links", "callback": "callbacks",
}

var originType = reflect.TypeFor[*openapi3.Origin]()

// originOf returns the Origin field of an error struct, if it has one.
func originOf(err error) *openapi3.Origin {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	v = v.Elem()
	if v.Kind() != reflect.Struct {
		return nil
	}
	f := v.FieldByName("Origin")
	if !f.IsValid() || f.Type() != originType || f.IsNil() {
		return nil
	}
	return f.Interface().(*openapi3.Origin)
}

// checkDepth rejects schemas nested inline deeper than max, and enums of more than
// MaxEnumValues values. It stops at the first schema nested too deep.
func (s *Spec) checkDepth(max int, errs *source.ErrorList) {
	c := &depthCheck{spec: s, max: max, errs: errs, seen: map[*openapi3.Schema]bool{}}
	for root := range s.schemaRoots() {
		if !c.walk(root, 0) {
			return
		}
	}
}

// depthCheck is the state of checkDepth's walk: the schemas seen, each once.
type depthCheck struct {
	spec *Spec
	max  int
	errs *source.ErrorList
	seen map[*openapi3.Schema]bool
}

// walk checks ref, at depth levels of inline nesting, and the schemas within it; a $ref
// starts again at 0. It reports false when a schema is nested too deep.
func (c *depthCheck) walk(ref *openapi3.SchemaRef, depth int) bool {
	if ref == nil || ref.Value == nil {
		return true
	}
	if ref.Ref != "" {
		depth = 0
	}
	sc := ref.Value
	if c.seen[sc] {
		return true
	}
	c.seen[sc] = true
	if len(sc.Enum) > MaxEnumValues {
		c.errs.Add(&source.Error{
			Pos: c.spec.Files.PosOf(sc.Origin),
			Msg: fmt.Sprintf("limit exceeded: enum of %d values, more than %d", len(sc.Enum), MaxEnumValues),
			Fix: "declare the values as a plain string or integer, and document them",
		})
	}
	if depth > c.max {
		c.errs.Add(&source.Error{
			Pos: c.spec.Files.PosOf(sc.Origin),
			Msg: fmt.Sprintf("schema nested more than %d levels deep", c.max),
			Fix: "move the inner schemas to components/schemas and refer to them with $ref",
		})
		return false
	}
	for _, child := range schemaChildren(sc) {
		if !c.walk(child, depth+1) {
			return false
		}
	}
	return true
}

// schemaRoots yields the schemas the document holds outside other schemas: the component
// schemas by name, the schemas of the component parameters by name, then, path by path,
// those of the path's parameters and of each operation's parameters, request body and
// responses.
func (s *Spec) schemaRoots() iter.Seq[*openapi3.SchemaRef] {
	return func(yield func(*openapi3.SchemaRef) bool) {
		content := func(c openapi3.Content) bool {
			for _, mt := range c {
				if mt != nil && mt.Schema != nil && !yield(mt.Schema) {
					return false
				}
			}
			return true
		}
		param := func(p *openapi3.ParameterRef) bool {
			if p == nil || p.Value == nil {
				return true
			}
			return (p.Value.Schema == nil || yield(p.Value.Schema)) && content(p.Value.Content)
		}
		if c := s.Doc.Components; c != nil {
			for _, name := range source.SortedKeys(c.Schemas) {
				if c.Schemas[name] != nil && !yield(c.Schemas[name]) {
					return
				}
			}
			for _, name := range source.SortedKeys(c.Parameters) {
				if !param(c.Parameters[name]) {
					return
				}
			}
		}
		for _, path := range s.Doc.Paths.InMatchingOrder() {
			item := s.Doc.Paths.Value(path)
			if item == nil {
				continue
			}
			for _, p := range item.Parameters {
				if !param(p) {
					return
				}
			}
			for _, m := range Methods(item) {
				op := item.GetOperation(m.Method)
				for _, p := range op.Parameters {
					if !param(p) {
						return
					}
				}
				if op.RequestBody != nil && op.RequestBody.Value != nil && !content(op.RequestBody.Value.Content) {
					return
				}
				if op.Responses != nil {
					for _, r := range op.Responses.Map() {
						if r != nil && r.Value != nil && !content(r.Value.Content) {
							return
						}
					}
				}
			}
		}
	}
}

// schemaChildren lists the schemas nested directly in sc.
func schemaChildren(sc *openapi3.Schema) []*openapi3.SchemaRef {
	var out []*openapi3.SchemaRef
	out = append(out, sc.OneOf...)
	out = append(out, sc.AnyOf...)
	out = append(out, sc.AllOf...)
	out = append(out, sc.Not, sc.Items)
	if sc.AdditionalProperties.Schema != nil {
		out = append(out, sc.AdditionalProperties.Schema)
	}
	for _, name := range source.SortedKeys(sc.Properties) {
		out = append(out, sc.Properties[name])
	}
	return out
}

// methodOrder is the order of operations within one path.
var methodOrder = []string{
	http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete,
	http.MethodOptions, http.MethodHead, http.MethodPatch, http.MethodTrace,
}

// Method is one operation of a path item.
type Method struct {
	Method  string // e.g. "GET" or "COPY"
	Pointer string // from the path item, e.g. "/get" or "/additionalOperations/COPY"
}

// Methods lists the operations item defines in a stable order: GET PUT POST DELETE
// OPTIONS HEAD PATCH TRACE, then any others sorted.
func Methods(item *openapi3.PathItem) []Method {
	var out []Method
	for _, m := range methodOrder {
		if item.GetOperation(m) != nil {
			out = append(out, Method{m, "/" + strings.ToLower(m)})
		}
	}
	var rest []Method
	for m := range item.Operations() {
		if slices.Contains(methodOrder, m) {
			continue
		}
		ptr := "/" + strings.ToLower(m)
		if _, ok := item.AdditionalOperations[m]; ok && m != openapi3.MethodQuery {
			ptr = "/additionalOperations/" + source.EscapePointer(m)
		}
		rest = append(rest, Method{m, ptr})
	}
	slices.SortFunc(rest, func(a, b Method) int { return cmp.Compare(a.Method, b.Method) })
	return append(out, rest...)
}
