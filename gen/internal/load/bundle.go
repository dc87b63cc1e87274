package load

import (
	"errors"
	"fmt"
	"hash/maphash"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/overlay"
	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// Limits of a description written across several files, besides MaxBytes (their bytes
// together) and MaxNodes (the nodes of the description they make, $refs written out).
const (
	// MaxFiles caps the files one description reads. DigitalOcean's has 2,907.
	MaxFiles = 20_000
	// MaxInlineDepth caps how many $refs written out in place may nest: an operation in
	// a file whose description is in another, and so on.
	MaxInlineDepth = 64
)

// bundle is the step of Load that reads a description written across several files as
// one, as the bundlers (Redocly, swagger-cli) do, so that a $ref may stand wherever they
// accept one: for an operation, a path item, a description. Each $ref to another file
// (or to a place in another file) is resolved against the file that holds it, and:
//
//   - where OpenAPI has a component of that kind (a schema, a response, a parameter, an
//     example, a request body, a header, a link, a callback, a security scheme), what it
//     names becomes a component of the root document, named as Redocly names it (the
//     last step of the JSON pointer, else the file's name), and the $ref names that
//     component;
//   - anywhere else, what it names is written in its place, the $ref's sibling fields
//     over it.
//
// So is a discriminator mapping entry that names a schema in another file. The root
// file's own $refs ("#/components/...") are left to kin-openapi. Only files inside the
// spec's folder tree are read (symbolic links resolved), never URLs; MaxFiles,
// MaxBytes, MaxNodes and MaxInlineDepth bound the work, and a $ref that would write
// itself out inside itself is a cycle. Every problem is reported, located at its $ref
// with the operation it is in, and the $ref left out so that the rest is checked in the
// same run.
//
// It returns the description as text for kin-openapi, with a layout that locates every
// node in the file it was read from, and its tree; a description without $refs to other
// files is returned as it was.
func (s *Spec) bundle(text []byte, root *yaml.Node, budget *int64) ([]byte, *yaml.Node, source.ErrorList) {
	if root.Kind != yaml.MappingNode || source.MappingValue(root, "openapi") == nil {
		return text, root, nil // Swagger 2.0 files are left to kin-openapi
	}
	b, err := newBundler(s, budget)
	if err != nil {
		return text, root, nil // the loader reports the folder
	}
	b.root = root
	b.nodes = countNodes(root)
	b.reserveComponents(root)
	b.walk(root, kindRoot, b.rootFile, 0)
	if b.fatal {
		return nil, nil, b.errs
	}
	if b.external == 0 && len(b.errs) == 0 {
		return text, root, nil
	}
	b.addComponents(root)
	doc := overlay.NewDocumentOf(s.Path, root, MaxNodes, b.fileOf)
	s.doc = doc
	if e := newGuard(s.nodePos).check(doc.Root); e != nil {
		return nil, nil, append(b.errs, e)
	}
	out, layout, e := writeText(doc)
	if e != nil {
		return nil, nil, append(b.errs, e)
	}
	s.Files.Add(source.URIOf(s.Path), out)
	s.Files.SetLayout(layout)
	return out, doc.Root, b.errs
}

// refuseExternalRefs reports, without reading another file, the first $ref of the root
// file that names one, and how many do: without AllowExternalRefs, kin-openapi would
// stop at the first $ref it cannot decode, which may be one where a string belongs.
func (s *Spec) refuseExternalRefs(root *yaml.Node) *source.Error {
	if root.Kind != yaml.MappingNode || source.MappingValue(root, "openapi") == nil {
		return nil
	}
	b, err := newBundler(s, nil)
	if err != nil {
		return nil
	}
	b.refuse = true
	b.walk(root, kindRoot, b.rootFile, 0)
	if len(b.malformed) > 0 {
		return b.malformed[0]
	}
	if b.external == 0 {
		return nil
	}
	e := b.errs[0]
	if b.external > 1 {
		e.Fix += fmt.Sprintf(" (%d $refs name other files)", b.external)
	}
	return e
}

// kind is the OpenAPI object a node of the description stands for, as far as bundling
// needs to know.
type kind uint8

const (
	kindAny  kind = iota // not an object the bundler knows: a $ref in it is written out
	kindRaw              // a value taken as it is (an example, a default, an extension)
	kindRoot             // the OpenAPI object
	kindComponents
	kindPaths // paths, webhooks, a callback, components/pathItems: path items by key
	kindPathItem
	kindOperation
	kindResponses
	kindParameterList
	kindSchemaList
	kindDiscriminator
	kindMapping
	// Components, each also as a map of them by name.
	kindSchema
	kindResponse
	kindParameter
	kindExample
	kindRequestBody
	kindHeader
	kindLink
	kindCallback
	kindSecurityScheme
	kindMediaType
	kindEncoding
	kindMapOf // kindMapOf + k: a map of k by name
)

// sections names the components section of each kind that has one.
var sections = map[kind]string{
	kindSchema: "schemas", kindResponse: "responses", kindParameter: "parameters", kindExample: "examples",
	kindRequestBody: "requestBodies", kindHeader: "headers", kindLink: "links", kindCallback: "callbacks",
	kindSecurityScheme: "securitySchemes",
}

// sectionOrder is the order in which hoisted components are added to the root document.
var sectionOrder = []string{"schemas", "responses", "parameters", "examples", "requestBodies", "headers",
	"securitySchemes", "links", "callbacks"}

func mapOf(k kind) kind { return kindMapOf + k }

// fieldKinds are the kinds of the fields of the objects that have fields the bundler
// needs to tell apart; any other field of an object is kindAny, an extension kindRaw.
var fieldKinds = map[kind]map[string]kind{
	kindRoot: {"paths": kindPaths, "webhooks": kindPaths, "components": kindComponents},
	kindComponents: {"schemas": mapOf(kindSchema), "responses": mapOf(kindResponse), "parameters": mapOf(kindParameter),
		"examples": mapOf(kindExample), "requestBodies": mapOf(kindRequestBody), "headers": mapOf(kindHeader),
		"securitySchemes": mapOf(kindSecurityScheme), "links": mapOf(kindLink), "callbacks": mapOf(kindCallback),
		"pathItems": kindPaths},
	kindPathItem: {"get": kindOperation, "put": kindOperation, "post": kindOperation, "delete": kindOperation,
		"options": kindOperation, "head": kindOperation, "patch": kindOperation, "trace": kindOperation,
		"query": kindOperation, "parameters": kindParameterList},
	kindOperation: {"parameters": kindParameterList, "requestBody": kindRequestBody, "responses": kindResponses,
		"callbacks": mapOf(kindCallback)},
	kindResponse:    {"headers": mapOf(kindHeader), "content": mapOf(kindMediaType), "links": mapOf(kindLink)},
	kindParameter:   {"schema": kindSchema, "content": mapOf(kindMediaType), "examples": mapOf(kindExample), "example": kindRaw},
	kindHeader:      {"schema": kindSchema, "content": mapOf(kindMediaType), "examples": mapOf(kindExample), "example": kindRaw},
	kindRequestBody: {"content": mapOf(kindMediaType)},
	kindMediaType: {"schema": kindSchema, "examples": mapOf(kindExample), "example": kindRaw,
		"encoding": mapOf(kindEncoding)},
	kindEncoding: {"headers": mapOf(kindHeader)},
	kindExample:  {"value": kindRaw},
	kindLink:     {"parameters": kindRaw, "requestBody": kindRaw},
	kindSchema: {"properties": mapOf(kindSchema), "patternProperties": mapOf(kindSchema), "$defs": mapOf(kindSchema),
		"definitions": mapOf(kindSchema), "dependentSchemas": mapOf(kindSchema),
		"items": kindSchema, "additionalProperties": kindSchema, "not": kindSchema, "if": kindSchema,
		"then": kindSchema, "else": kindSchema, "contains": kindSchema, "propertyNames": kindSchema,
		"unevaluatedItems": kindSchema, "unevaluatedProperties": kindSchema, "additionalItems": kindSchema,
		"allOf": kindSchemaList, "anyOf": kindSchemaList, "oneOf": kindSchemaList, "prefixItems": kindSchemaList,
		"discriminator": kindDiscriminator,
		"example":       kindRaw, "examples": kindRaw, "default": kindRaw, "enum": kindRaw, "const": kindRaw},
	kindDiscriminator: {"mapping": kindMapping},
}

// field returns the kind of the value of key in an object of kind k.
func (k kind) field(key string) kind {
	switch {
	case k == kindRaw:
		return kindRaw
	case k == kindPaths || k == kindResponses || k == kindCallback:
		if strings.HasPrefix(key, "x-") {
			return kindRaw
		}
		if k == kindResponses {
			return kindResponse
		}
		return kindPathItem
	case k > kindMapOf:
		return k - kindMapOf
	case strings.HasPrefix(key, "x-"):
		return kindRaw
	}
	return fieldKinds[k][key]
}

// item returns the kind of the items of a list of kind k.
func (k kind) item() kind {
	switch k {
	case kindParameterList:
		return kindParameter
	case kindSchemaList, kindSchema: // items written as a list
		return kindSchema
	case kindRaw:
		return kindRaw
	}
	return kindAny
}

// target is a place a $ref names: a file (absolute, as named) and a JSON pointer in it.
type target struct{ file, pointer string }

// bundler holds the state of one bundle: the files read, the components hoisted, the
// $refs being written out.
type bundler struct {
	s        *Spec
	reader   *confinedReader
	budget   *int64
	rootFile string // the root file, absolute

	files    map[string]*bundleFile // by absolute path
	fileOf   map[*yaml.Node]string  // the file each node copied from another file was read from
	nodes    int                    // the nodes of the description, $refs written out so far
	taken    map[string]map[string]bool
	named    map[target]string         // the component each hoisted place became, "#/components/..."
	hoisting map[target]bool           // the places being hoisted
	keys     map[*yaml.Node]*yaml.Node // the key of each place a pointer named, in its file
	content  map[string]*yaml.Node     // each hoisted component, by its $ref
	// The hoisted components by the base names that could name them and a sum of their
	// content, and the next free suffix of each base name (see freeSuffix).
	sameContent map[contentKey][]suffixed
	nextFree    map[contentKey]int
	seed        maphash.Seed
	added       map[string][]*yaml.Node // hoisted components, key and value, by section
	open        []target                // the places being written out, outermost first
	op          string                  // the operation being walked, "" outside one
	path        string                  // the path key being walked
	method      string                  // the method of the operation being walked
	root        *yaml.Node              // the root file's tree
	errs        source.ErrorList
	fatal       bool             // a limit was exceeded: stop
	external    int              // $refs resolved to another file
	refuse      bool             // only count the $refs to other files, reading none
	malformed   source.ErrorList // with refuse, the $refs that are not URI references
	// The key whose value is being walked, and the one above it.
	parent, grandparent parentKey
}

// parentKey is a mapping key and the file it was read from.
type parentKey struct {
	key  *yaml.Node
	file string
}

// bundleFile is one file read.
type bundleFile struct {
	display string     // as shown in messages: under the spec's folder as the user named it
	root    *yaml.Node // nil when it could not be read; err says why
	err     func(ref string) *bundleError
}

func newBundler(s *Spec, budget *int64) (*bundler, error) {
	r, err := newConfinedReader(s, s.Path, budget)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(s.Path)
	if err != nil {
		return nil, err
	}
	return &bundler{
		s: s, reader: r, budget: budget, rootFile: abs,
		files:       map[string]*bundleFile{},
		fileOf:      map[*yaml.Node]string{},
		taken:       map[string]map[string]bool{},
		named:       map[target]string{},
		hoisting:    map[target]bool{},
		keys:        map[*yaml.Node]*yaml.Node{},
		content:     map[string]*yaml.Node{},
		sameContent: map[contentKey][]suffixed{},
		nextFree:    map[contentKey]int{},
		seed:        maphash.MakeSeed(),
		added:       map[string][]*yaml.Node{},
	}, nil
}

// countNodes counts the nodes of a tree, aliases counted once.
func countNodes(n *yaml.Node) int {
	c := 0
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > maxTreeDepth {
			return
		}
		c++
		for _, ch := range n.Content {
			walk(ch, depth+1)
		}
	}
	walk(n, 0)
	return c
}

// maxTreeDepth bounds recursion over trees; the YAML parser refuses deeper documents.
const maxTreeDepth = 10000

// reserveComponents records the names of the root document's own components, so that a
// hoisted one never takes one of them.
func (b *bundler) reserveComponents(root *yaml.Node) {
	comps := source.MappingValue(root, "components")
	for _, section := range sectionOrder {
		m := source.MappingValue(comps, section)
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			b.take(section, m.Content[i].Value)
		}
	}
}

func (b *bundler) take(section, name string) {
	if b.taken[section] == nil {
		b.taken[section] = map[string]bool{}
	}
	b.taken[section][name] = true
}

// addComponents adds the hoisted components to the root document's components.
func (b *bundler) addComponents(root *yaml.Node) {
	comps := source.MappingValue(root, "components")
	if comps == nil || comps.Kind != yaml.MappingNode {
		comps = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		b.nodes++
		if old := source.MappingValue(root, "components"); old != nil {
			*old = *comps // components: null
			comps = old
		} else {
			root.Content = append(root.Content, scalarNode("components"), comps)
		}
	}
	for _, section := range sectionOrder {
		entries := b.added[section]
		if len(entries) == 0 {
			continue
		}
		m := source.MappingValue(comps, section)
		if m == nil || m.Kind != yaml.MappingNode {
			fresh := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			if m != nil {
				*m = *fresh
			} else {
				m = fresh
				comps.Content = append(comps.Content, scalarNode(section), m)
			}
		}
		m.Content = append(m.Content, entries...)
	}
}

func scalarNode(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

// walk resolves the $refs in n, a node of kind k read from file, in place: n is the
// root file's own node, or a copy made for the description.
func (b *bundler) walk(n *yaml.Node, k kind, file string, depth int) {
	if n == nil || b.fatal || depth > maxTreeDepth || k == kindRaw {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		if ref := refValue(n); ref != nil && k != kindMapping {
			b.ref(n, ref, k, file, depth)
			return
		}
		b.fields(n, k, file, depth)
	case yaml.SequenceNode:
		for _, c := range n.Content {
			b.walk(c, k.item(), file, depth+1)
		}
	}
}

// fields walks the fields of n, an object of kind k, keeping track of the operation.
func (b *bundler) fields(n *yaml.Node, k kind, file string, depth int) {
	if k == kindOperation {
		b.op = source.OpName(b.method, b.path, scalarField(n, "operationId"))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, v := n.Content[i], n.Content[i+1]
		if k == kindMapping {
			if !b.mappingEntry(v, file) {
				n.Content = slices.Delete(n.Content, i, i+2) // reported: left out
				i -= 2
			}
			continue
		}
		fk := k.field(key.Value)
		op, path, method := b.op, b.path, b.method
		switch {
		case k == kindPaths && fk == kindPathItem:
			b.path, b.op = key.Value, ""
		case fk == kindOperation:
			b.method = strings.ToUpper(key.Value)
			b.op = source.OpName(b.method, b.path, "")
		}
		grandparent := b.grandparent
		b.grandparent, b.parent = b.parent, parentKey{key, file}
		b.walk(v, fk, file, depth+1)
		b.op, b.path, b.method = op, path, method
		b.parent, b.grandparent = b.grandparent, grandparent
	}
}

// scalarField returns the value of a scalar field of a mapping, or "".
func scalarField(n *yaml.Node, key string) string {
	if v := source.MappingValue(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// refValue returns the value of n's "$ref" field when it is a string, else nil.
func refValue(n *yaml.Node) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "$ref" && n.Content[i].Kind == yaml.ScalarNode {
			if v := n.Content[i+1]; v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
				return v
			}
			return nil
		}
	}
	return nil
}

// refKeyNode returns n's "$ref" key.
func refKeyNode(n *yaml.Node) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "$ref" {
			return n.Content[i]
		}
	}
	return n
}

// ref resolves the $ref of n, a node of kind k read from file.
func (b *bundler) ref(n, ref *yaml.Node, k kind, file string, depth int) {
	t, err := b.resolve(ref.Value, file)
	if b.refuse {
		if _, perr := url.Parse(ref.Value); perr != nil {
			b.malformed = append(b.malformed, &source.Error{Pos: b.pos(refKeyNode(n), file), Op: b.op, Msg: err.msg, Fix: err.fix})
			return
		}
		if err != nil || t.file != file {
			b.external++
			if b.external == 1 {
				b.errs.Add(&source.Error{Pos: b.pos(refKeyNode(n), file), Op: b.op,
					Msg: fmt.Sprintf("$ref %s names another file, which is not allowed by default", source.Quote(ref.Value)),
					Fix: "move the definition into this file, or pass -allow-external-refs to follow $refs to files inside the spec's folder"})
			}
		}
		return
	}
	if err != nil {
		b.fail(n, k, file, err)
		return
	}
	if t.file == file && file == b.rootFile {
		return // the root file's own: kin-openapi resolves it
	}
	section := sections[k]
	if t.file == b.rootFile && section != "" {
		ref.Value = "#" + t.pointer // written in another file, to a place in the root file
		ref.Style = yaml.DoubleQuotedStyle
		return
	}
	node, e := b.lookup(t, ref.Value)
	if e != nil {
		b.fail(n, k, file, e)
		return
	}
	b.external++
	if section != "" && t.file != b.rootFile {
		ref.Value = b.hoist(t, node, k, section, depth)
		ref.Style = yaml.DoubleQuotedStyle
		return
	}
	b.inline(n, t, node, k, file, depth)
}

// bundleError is a problem of one $ref, with the fix.
type bundleError struct{ msg, fix string }

func (e *bundleError) Error() string { return e.msg }

// fail records err, a problem of the $ref of n, a node of kind k, and leaves the $ref
// out: an object the loader knows stays one, with the $ref as an extension; anything
// else (it may stand for a string) becomes null.
func (b *bundler) fail(n *yaml.Node, k kind, file string, err *bundleError) {
	key := refKeyNode(n)
	b.errs.Add(&source.Error{Pos: b.pos(key, file), Op: b.op, Msg: err.msg, Fix: err.fix})
	for _, k := range []parentKey{b.parent, b.grandparent} { // the object that lost it, and (a field of it) what holds it
		if k.key != nil {
			b.s.leaveOut(b.pos(k.key, k.file))
		}
	}
	key.Value = "x-unresolved-ref"
	if k == kindAny {
		n.Kind, n.Tag, n.Value, n.Content = yaml.ScalarNode, "!!null", "", nil
	}
}

// pos locates a node read from file.
func (b *bundler) pos(n *yaml.Node, file string) source.Pos {
	display := b.s.Path
	if file != b.rootFile {
		display = b.files[file].display
	}
	return source.Pos{File: display, Line: n.Line, Col: n.Column}
}

// resolve returns the place a $ref written in file names.
func (b *bundler) resolve(ref, file string) (target, *bundleError) {
	u, err := url.Parse(ref)
	if err != nil {
		return target{}, malformedRef(ref, err)
	}
	if u.Scheme != "" || u.Host != "" || u.Opaque != "" || u.User != nil {
		return target{}, &bundleError{(&refEscapeError{ref: ref, why: "only files inside the spec's folder can be referenced, not URLs"}).Error(),
			"copy what it names into a file inside the spec's folder, and name that file"}
	}
	if u.Fragment != "" && !strings.HasPrefix(u.Fragment, "/") {
		return target{}, &bundleError{fmt.Sprintf("$ref %s: the part after # must be a JSON pointer, starting with /", source.Quote(ref)), "write the place as a JSON pointer, e.g. #/components/schemas/Pet"}
	}
	if u.Path == "" {
		return target{file: file, pointer: u.Fragment}, nil
	}
	abs := filepath.FromSlash(u.Path)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(filepath.Dir(file), abs)
	}
	return target{file: filepath.Clean(abs), pointer: u.Fragment}, nil
}

// malformedRef is the problem of a $ref that is not a URI reference: err, url.Parse's.
func malformedRef(ref string, err error) *bundleError {
	var escape url.EscapeError
	if errors.As(err, &escape) {
		return &bundleError{fmt.Sprintf("malformed $ref %s: %s is not a percent-escape", source.Quote(ref), source.Quote(string(escape))),
			"write a % as %25, and any other escape as % and two hexadecimal digits"}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &bundleError{fmt.Sprintf("malformed $ref %s: %v", source.Quote(ref), err), "write the $ref as a relative file path, a JSON pointer after #, or both"}
}

// lookup returns the node at t, reading its file if need be; ref is the $ref as written.
func (b *bundler) lookup(t target, ref string) (*yaml.Node, *bundleError) {
	f, e := b.file(t.file, ref)
	if e != nil {
		return nil, e
	}
	n := f.root
	if t.file == b.rootFile {
		n = b.root
	}
	if t.pointer == "" {
		return n, nil
	}
	for _, step := range strings.Split(t.pointer[1:], "/") {
		n = deref(n)
		if n.Kind == yaml.SequenceNode && !listIndex(step) {
			return nil, &bundleError{fmt.Sprintf("$ref %s: %s is not a list index: a JSON pointer writes one as 0, 1, 2 and so on, without leading zeros", source.Quote(ref), source.Quote(step)),
				"write the index as a JSON pointer does"}
		}
		key, next := childOf(n, source.UnescapePointer(step))
		if next == nil {
			return nil, &bundleError{fmt.Sprintf("unresolved $ref %s: nothing is defined there", source.Quote(ref)), "correct the $ref, or define what it names"}
		}
		b.keys[deref(next)] = key
		n = next
	}
	return deref(n), nil
}

// deref follows aliases.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// listIndex reports whether a JSON pointer step is a list index as RFC 6901 writes
// one: "0", or digits that do not start with 0. Any other spelling ("00", "+1") is
// refused, so that each place has one pointer and a cycle is found as one.
func listIndex(step string) bool {
	if step == "0" {
		return true
	}
	if step == "" || step[0] == '0' {
		return false
	}
	for i := range len(step) {
		if step[i] < '0' || step[i] > '9' {
			return false
		}
	}
	return true
}

// childOf returns the value of key in a mapping, with its key, or the item of that index
// in a list, as its own key.
func childOf(n *yaml.Node, step string) (key, val *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == step {
				return n.Content[i], n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(step); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i], n.Content[i]
		}
	}
	return nil, nil
}

// file reads, checks and parses the file at abs once, inside the spec's folder only;
// ref is the $ref that names it, as written, which a problem of the file is told of.
func (b *bundler) file(abs, ref string) (*bundleFile, *bundleError) {
	if f, ok := b.files[abs]; ok {
		if f.err != nil {
			return nil, f.err(ref)
		}
		return f, nil
	}
	if abs == b.rootFile {
		f := &bundleFile{display: b.s.Path}
		b.files[abs] = f
		return f, nil
	}
	if len(b.files) >= MaxFiles {
		b.fatal = true
		return nil, &bundleError{fmt.Sprintf("limit exceeded: the description reads more than %d files", MaxFiles), "bundle the description into fewer files"}
	}
	f := &bundleFile{display: filepath.Join(filepath.Dir(b.s.Path), relOr(b.reader.dir, abs))}
	b.files[abs] = f
	data, err := b.reader.readFile(abs)
	if err != nil {
		f.err = unreadable(f.display, err)
		return nil, f.err(ref)
	}
	root, e := b.parseFile(f.display, data)
	if e != nil {
		b.errs.Add(e)
		f.err = func(ref string) *bundleError {
			return &bundleError{fmt.Sprintf("$ref %s: the file %s is malformed (see %s)", source.Quote(ref), f.display, e.Pos), "correct the file"}
		}
		return nil, f.err(ref)
	}
	f.root = root
	b.s.Files.Add(source.URIOf(f.display), data)
	return f, nil
}

// unreadable returns the problem of each $ref to a file that could not be read, err
// saying why, told of the $ref as written.
func unreadable(display string, err error) func(ref string) *bundleError {
	var escape *refEscapeError
	switch {
	case errors.As(err, &escape):
		why := escape.why
		return func(ref string) *bundleError {
			return &bundleError{(&refEscapeError{ref: ref, why: why}).Error(), "keep referenced files in the spec's folder or below it"}
		}
	case os.IsNotExist(err) || strings.Contains(err.Error(), "no such file"):
		return func(ref string) *bundleError {
			return &bundleError{fmt.Sprintf("$ref %s: no such file %s", source.Quote(ref), display), "correct the $ref's file path"}
		}
	}
	return func(ref string) *bundleError {
		return &bundleError{fmt.Sprintf("$ref %s: cannot read %s: %v", source.Quote(ref), display, err), "correct the $ref's file path"}
	}
}

// relOr returns path relative to dir, or path.
func relOr(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil {
		return rel
	}
	return path
}

// parseFile checks and parses one file of the description, as the root file is.
func (b *bundler) parseFile(display string, data []byte) (*yaml.Node, *source.Error) {
	fail := func(line, col int, msg, fix string) *source.Error {
		return &source.Error{Pos: source.Pos{File: display, Line: line, Col: col}, Msg: msg, Fix: fix}
	}
	if enc := utf32(data); enc != "" {
		return nil, fail(1, 1, "malformed document: the file looks like "+enc, "save the file as UTF-8 text")
	}
	if line, col, msg := checkText(data); msg != "" {
		return nil, fail(line, col, "malformed document: "+msg, "save the file as UTF-8 text, writing control characters as escapes")
	}
	if e := checkDocuments(display, data); e != nil {
		return nil, e
	}
	root, err := parseTree(data)
	if err != nil {
		msg, line, col := yamlErrorAt(err)
		return nil, fail(line, col, "malformed document: "+msg, "")
	}
	g := newGuard(func(n *yaml.Node) source.Pos { return source.Pos{File: display, Line: n.Line, Col: n.Column} })
	if e := g.walk(root, nil, 0); e != nil {
		return nil, e
	}
	if e := g.checkKeyPairs(); e != nil {
		return nil, e
	}
	if k, first := repeatedKey(root, 0); k != nil {
		return nil, fail(k.Line, k.Column, fmt.Sprintf("malformed document: mapping key %q already defined at line %d", k.Value, first.Line),
			"remove one of them: tools disagree on which one counts")
	}
	return root, nil
}

// hoist makes what t names, node, a component of section, once, and returns the $ref
// that names it. As Redocly does, it names the component once its own $refs are
// resolved, so that the components it holds take their names first; a $ref to a
// component being hoisted (a cycle) names it at once.
func (b *bundler) hoist(t target, node *yaml.Node, k kind, section string, depth int) string {
	if ref, ok := b.named[t]; ok {
		return ref
	}
	if b.hoisting[t] {
		return b.name(t, section)
	}
	b.hoisting[t] = true
	c := b.copy(node, t.file)
	if c != nil {
		b.walk(c, k, t.file, depth+1) // problems inside are located with the first operation to name it
	}
	delete(b.hoisting, t)
	ref, ok := b.named[t]
	if !ok {
		if ref, ok = b.sameAs(t, section, c); ok {
			return ref // the same content under another name, as Redocly keeps it once
		}
		ref = b.name(t, section)
	}
	if c != nil {
		b.content[ref] = c
		key := scalarNode(source.UnescapePointer(strings.TrimPrefix(ref, "#/components/"+section+"/")))
		b.indexContent(section, key.Value, ref, c)
		at := node
		if k := b.keys[node]; k != nil {
			at = k // the key that names it in its file
		}
		key.Line, key.Column = at.Line, at.Column
		b.fileOf[key] = b.files[t.file].display
		b.added[section] = append(b.added[section], key, c)
		if b.s.Hoisted == nil {
			b.s.Hoisted = map[string]bool{}
		}
		b.s.Hoisted[ref] = true
	}
	return ref
}

// sameAs returns the component of section named as t would be, or with "-2", "-3" and
// so on up to the first free name, whose content, its $refs resolved, is c's, if one
// is: the first of them in that order. Only the components of the same content sum are
// compared, so that the work does not grow with the components of the same name.
func (b *bundler) sameAs(t target, section string, c *yaml.Node) (string, bool) {
	if c == nil {
		return "", false
	}
	base := b.baseName(t)
	free := b.freeSuffix(section, base)
	for _, e := range b.sameContent[contentKey{section, base, b.sum(c)}] {
		if e.suffix >= free {
			break
		}
		if equalValues(b.content[e.ref], c, 0) {
			b.named[t] = e.ref
			return e.ref, true
		}
	}
	return "", false
}

// contentKey finds the hoisted components of a section that a base name could name
// (the base name itself, or with "-2", "-3" and so on) and whose content has a sum.
type contentKey struct {
	section, base string
	sum           uint64
}

// suffixed is a hoisted component as a base name names it: suffix 1 for the base name
// itself, n for the base name with "-n".
type suffixed struct {
	suffix int
	ref    string
}

// withSuffix returns base with suffix n: base itself for 1, else base + "-n".
func withSuffix(base string, n int) string {
	if n == 1 {
		return base
	}
	return base + "-" + strconv.Itoa(n)
}

// cutSuffix splits a name written by withSuffix with n ≥ 2 into base and n.
func cutSuffix(name string) (base string, n int, ok bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n < 2 || strconv.Itoa(n) != name[i+1:] {
		return "", 0, false
	}
	return name[:i], n, true
}

// freeSuffix returns the least n such that base with suffix n is a free name in
// section, where all before it are taken. Names are never freed, so it resumes where it
// last stopped: over a bundle, the names it steps over are at most twice the names taken.
func (b *bundler) freeSuffix(section, base string) int {
	key := contentKey{section: section, base: base}
	n := max(b.nextFree[key], 1)
	for b.taken[section][withSuffix(base, n)] {
		n++
	}
	b.nextFree[key] = n
	return n
}

// indexContent records c, the content of the hoisted component name of section (ref
// is the $ref to it), under the base names that could name it.
func (b *bundler) indexContent(section, name, ref string, c *yaml.Node) {
	sum := b.sum(c)
	b.addSame(contentKey{section, name, sum}, suffixed{1, ref})
	if base, n, ok := cutSuffix(name); ok {
		b.addSame(contentKey{section, base, sum}, suffixed{n, ref})
	}
}

// addSame adds e to the components of key, kept in the order of their suffixes.
func (b *bundler) addSame(key contentKey, e suffixed) {
	list := b.sameContent[key]
	i, _ := slices.BinarySearchFunc(list, e.suffix, func(x suffixed, n int) int { return x.suffix - n })
	b.sameContent[key] = slices.Insert(list, i, e)
}

// sum returns a hash of the values of a tree, the same for trees equalValues finds equal.
func (b *bundler) sum(n *yaml.Node) uint64 {
	var h maphash.Hash
	h.SetSeed(b.seed)
	var write func(n *yaml.Node, depth int)
	write = func(n *yaml.Node, depth int) {
		if depth > maxTreeDepth {
			return
		}
		h.WriteByte(byte(n.Kind))
		h.WriteString(n.Tag)
		h.WriteByte(0)
		h.WriteString(n.Value)
		h.WriteByte(0)
		maphash.WriteComparable(&h, len(n.Content))
		for _, c := range n.Content {
			write(c, depth+1)
		}
	}
	write(n, 0)
	return h.Sum64()
}

// equalValues reports whether two trees hold the same values, wherever they were written.
func equalValues(a, b *yaml.Node, depth int) bool {
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || len(a.Content) != len(b.Content) || depth > maxTreeDepth {
		return false
	}
	for i := range a.Content {
		if !equalValues(a.Content[i], b.Content[i], depth+1) {
			return false
		}
	}
	return true
}

// name names the component made of what t names, and returns the $ref to it.
func (b *bundler) name(t target, section string) string {
	name := b.componentName(section, t)
	b.take(section, name)
	ref := "#/components/" + section + "/" + source.EscapePointer(name)
	b.named[t] = ref
	return ref
}

// componentName names the component made of what t names as Redocly does: the last
// step of the JSON pointer, else the file's name without its extension; then with "-2",
// "-3" and so on while the name is taken.
func (b *bundler) componentName(section string, t target) string {
	base := b.baseName(t)
	return withSuffix(base, b.freeSuffix(section, base))
}

// baseName is the name of the component made of what t names before "-2" and so on:
// the last step of the JSON pointer (unescaped: "a~1b" is "a/b"), else the file's name
// without its extension, each character OpenAPI does not allow in a component's name
// written as "_" ("my pet" is "my_pet").
func (b *bundler) baseName(t target) string {
	name := source.UnescapePointer(t.pointer[strings.LastIndexByte(t.pointer, '/')+1:])
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(t.file), filepath.Ext(t.file))
	}
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && componentNameByte[r] {
			return r
		}
		return '_'
	}, name)
}

// componentNameByte tells the characters OpenAPI allows in a component's name:
// ^[a-zA-Z0-9.\-_]+$.
var componentNameByte = func() (ok [utf8.RuneSelf]bool) {
	for _, r := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_" {
		ok[r] = true
	}
	return ok
}()

// inline writes what t names, node, in place of n, the $ref's sibling fields over it.
func (b *bundler) inline(n *yaml.Node, t target, node *yaml.Node, k kind, file string, depth int) {
	for i, o := range b.open {
		if o == t {
			var chain []string
			for _, c := range b.open[i:] {
				chain = append(chain, b.describe(c))
			}
			b.fail(n, k, file, &bundleError{
				fmt.Sprintf("$ref cycle: %s → %s: what it names contains itself", strings.Join(chain, " → "), b.describe(t)),
				"break the cycle: a $ref here must name something that does not contain it"})
			return
		}
	}
	if len(b.open) >= MaxInlineDepth {
		b.fail(n, k, file, &bundleError{fmt.Sprintf("limit exceeded: more than %d $refs nested, each written out in the other", MaxInlineDepth),
			"name fewer files in a row"})
		return
	}
	c := b.copy(node, t.file)
	if c == nil {
		return
	}
	b.open = append(b.open, t)
	b.walk(c, k, t.file, depth+1)
	b.open = b.open[:len(b.open)-1]
	if c.Kind == yaml.MappingNode && n.Kind == yaml.MappingNode {
		c.Content = mergeSiblings(c.Content, n.Content)
	}
	line, col := n.Line, n.Column
	*n = *c
	n.Line, n.Column = line, col // where the $ref was: n keeps its file
}

// mergeSiblings returns the fields of a mapping written out for a $ref, with the $ref's
// sibling fields over them.
func mergeSiblings(fields, siblings []*yaml.Node) []*yaml.Node {
	out := fields
	for i := 0; i+1 < len(siblings); i += 2 {
		k := siblings[i]
		if k.Value == "$ref" {
			continue
		}
		replaced := false
		for j := 0; j+1 < len(out); j += 2 {
			if out[j].Value == k.Value {
				out[j+1] = siblings[i+1]
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, k, siblings[i+1])
		}
	}
	return out
}

// describe writes a place as the messages show it: "ops/get.yaml#/x".
func (b *bundler) describe(t target) string {
	name := b.s.Path
	if f := b.files[t.file]; f != nil {
		name = f.display
	}
	if t.pointer == "" {
		return name
	}
	return name + "#" + t.pointer
}

// copy returns a copy of n, read from file, aliases written out, each node recorded as
// read from that file; nil, the bundle failed, past MaxNodes.
func (b *bundler) copy(n *yaml.Node, file string) *yaml.Node {
	display := b.files[file].display
	var cp func(n *yaml.Node, depth int) *yaml.Node
	cp = func(n *yaml.Node, depth int) *yaml.Node {
		n = deref(n)
		if n == nil || b.fatal {
			return nil
		}
		b.nodes++
		if b.nodes > MaxNodes {
			b.fatal = true
			b.errs.Add(&source.Error{Pos: source.Pos{File: display, Line: n.Line, Col: n.Column}, Op: b.op,
				Msg: fmt.Sprintf("limit exceeded: the description, its $refs to other files written out, has more than %d nodes", MaxNodes),
				Fix: "split the description into several, one client each"})
			return nil
		}
		c := &yaml.Node{Kind: n.Kind, Style: n.Style, Tag: n.Tag, Value: n.Value, Line: n.Line, Column: n.Column}
		if file != b.rootFile {
			b.fileOf[c] = display
		}
		if depth < maxTreeDepth && len(n.Content) > 0 {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, ch := range n.Content {
				if c.Content[i] = cp(ch, depth+1); c.Content[i] == nil {
					return nil
				}
			}
		}
		return c
	}
	return cp(n, 0)
}

// mappingEntry resolves a discriminator mapping entry that names a schema in another
// file ("models/cat.yml", "cat.yml#/Cat"), as the schema's component. It reports false
// when the entry names nothing that can be read, reported: the entry is then left out,
// so that the loader does not try the file again.
func (b *bundler) mappingEntry(v *yaml.Node, file string) bool {
	if v.Kind != yaml.ScalarNode || !strings.ContainsAny(v.Value, "/#.") {
		return true // a schema's name
	}
	t, err := b.resolve(v.Value, file)
	if b.refuse {
		if !strings.Contains(v.Value, "/") {
			return true // a schema's name, to the loader
		}
		if _, perr := url.Parse(v.Value); perr != nil {
			b.malformed = append(b.malformed, &source.Error{Pos: b.pos(v, file), Op: b.op, Msg: "discriminator mapping: " + err.msg, Fix: err.fix})
			return true
		}
		if err != nil || t.file != file {
			b.external++
			if b.external == 1 {
				b.errs.Add(&source.Error{Pos: b.pos(v, file), Op: b.op,
					Msg: fmt.Sprintf("discriminator mapping: $ref %s names another file, which is not allowed by default", source.Quote(v.Value)),
					Fix: "move the definition into this file, or pass -allow-external-refs to follow $refs to files inside the spec's folder"})
			}
		}
		return true
	}
	if err != nil || t.file == b.rootFile && file == b.rootFile {
		return true // the loader reports the root file's own
	}
	if t.file == b.rootFile {
		v.Value = "#" + t.pointer
		return true
	}
	node, e := b.lookup(t, v.Value)
	if e != nil {
		b.errs.Add(&source.Error{Pos: b.pos(v, file), Op: b.op, Msg: "discriminator mapping: " + e.msg, Fix: e.fix})
		return false
	}
	b.external++
	v.Value = b.hoist(t, node, kindSchema, "schemas", 0)
	v.Style = yaml.DoubleQuotedStyle
	return true
}
