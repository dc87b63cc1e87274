package source

import (
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// Files holds the bytes of a spec's files, as the parsers read them, and locates places
// in them: by the origins kin-openapi records, by JSON pointer, or by searching the parsed
// node tree for what origins do not cover. Positions are the files' own, whatever the
// parsers were given (see SetEdits).
//
//	f.PosOf(op.Origin)                      // the operation's method key: "post:"
//	f.PosOfField(op.Origin, "operationId")  // its operationId field
//	f.PosOf(paramRef.Value.Origin)          // a parameter (the Value, not the $ref site)
//	f.PosOf(schemaRef.Value.Origin)         // a schema; schemaRef.Origin is the $ref site
//
// Swagger 2.0 documents and JSON documents that only parse as JSON carry no origins;
// PosOf then returns a Pos with only File set, and PosOfPointer finds the place by JSON
// pointer instead. A Files is safe for concurrent use.
type Files struct {
	path    string // the root file as the user named it, e.g. "api.yaml"
	rootURI string // what kin-openapi records as Location.File for the root file

	mu    sync.Mutex
	data  map[string][]byte // by the URI kin-openapi records
	trees map[string]*tree  // parsed lazily, or set

	// How the root file's text as parsers read it differs from the file (see SetEdits),
	// and what kin-openapi's parser reads before one of its lines (see MarkStart).
	edits  []Edit
	marker Edit

	// Where the parts of a root text written from several files come from (see
	// SetLayout), and, built when first needed, the value of each key of its tree by
	// the key's place in the files (first occurrence) and in the text.
	layout   *Layout
	byPlace  map[Pos]*node
	byOrigin map[[2]int]*node

	// The fields of the origins of a document decoded from the root file's tree, which
	// records none in Origin.Fields (see SetFieldIndex).
	fields *FieldIndex
}

// An Edit records where the text that the parsers read of the root file differs from the
// file: on Line, the Width characters from column Col were written as Len characters (a
// line separator written as the escape `\u2028`: Width 1, Len 6). Columns count
// characters, as the YAML parser's do.
type Edit struct{ Line, Col, Width, Len int }

// SetEdits records the edits of the root file's text that every parser reads, in the
// order of the text, so that the columns parsers report are turned back into the file's.
func (f *Files) SetEdits(edits []Edit) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.edits = edits
	delete(f.trees, f.rootURI)
}

// MarkStart records that kin-openapi's parser read n characters more at the start of
// line, so that the columns of its origins on that line are moved back.
func (f *Files) MarkStart(line, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.marker = Edit{Line: line, Col: 1, Len: n}
}

// SetLayout records that the root text the parsers read was written from the node trees
// of several files (a description with overlays applied), as l locates: positions in
// that text (the loader's origins, the tree's nodes) are then turned into places in
// those files. Edits and the start marker no longer apply.
func (f *Files) SetLayout(l *Layout) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.layout, f.edits, f.marker = l, nil, Edit{}
	f.byPlace, f.byOrigin = nil, nil
	delete(f.trees, f.rootURI)
}

// LoaderPos turns a line and column that kin-openapi's parser reported for the root file
// into a place in the files.
func (f *Files) LoaderPos(line, col int) Pos {
	if f.layout != nil {
		return f.layout.Pos(line, max(col, 1))
	}
	return Pos{File: f.path, Line: line, Col: f.LoaderColumn(line, col)}
}

// LoaderColumn turns a column that kin-openapi's parser reported on line of the root file
// into the file's own.
func (f *Files) LoaderColumn(line, col int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fileColumn(f.edits, line, fileColumn([]Edit{f.marker}, line, col))
}

// fileColumn turns a column of the edited text on line into the file's own; a column
// inside an edit is the edit's own.
func fileColumn(edits []Edit, line, col int) int {
	i, _ := slices.BinarySearchFunc(edits, line, func(e Edit, line int) int { return e.Line - line })
	delta := 0
	for ; i < len(edits) && edits[i].Line == line; i++ {
		e := edits[i]
		start := e.Col + delta
		if col < start {
			break
		}
		if col < start+e.Len {
			return e.Col
		}
		delta += e.Len - e.Width
	}
	return col - delta
}

// unedit moves the nodes of a tree parsed from the edited root text to the file's columns.
func unedit(edits []Edit, n *yaml.Node, depth int) {
	if n == nil || depth > maxVisitDepth {
		return
	}
	n.Column = fileColumn(edits, n.Line, n.Column)
	for _, c := range n.Content {
		unedit(edits, c, depth+1)
	}
}

// NewFiles returns a Files for the spec at path, as the user named it.
func NewFiles(path string) *Files {
	return &Files{
		path:    path,
		rootURI: URIOf(path),
		data:    map[string][]byte{},
		trees:   map[string]*tree{},
	}
}

// URIOf is the URI kin-openapi records for a file path.
func URIOf(path string) string {
	return (&url.URL{Path: filepath.ToSlash(path)}).String()
}

// Path is the root file as the user named it.
func (f *Files) Path() string { return f.path }

// Add records the bytes read for the file kin-openapi knows as uri.
func (f *Files) Add(uri string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.data[uri] = data
	delete(f.trees, uri)
}

// SetTree records what locating needs of the node tree already parsed from the file
// kin-openapi knows as uri (its top node, positions the file's own), so that the file is
// not parsed again. The tree may be dropped or changed afterwards.
func (f *Files) SetTree(uri string, root *yaml.Node) {
	t := newTree(root)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trees[uri] = t
}

// Root is the root file's bytes.
func (f *Files) Root() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.data[f.rootURI]
}

// File is a Pos that names only the root file.
func (f *Files) File() Pos { return Pos{File: f.path} }

// At is the position line:col of the root file's tree: with a layout, the place in the
// files the text at line:col was written from.
func (f *Files) At(line, col int) Pos {
	if f.layout != nil {
		return f.layout.Pos(line, col)
	}
	return Pos{File: f.path, Line: line, Col: col}
}

// PosOf returns where the object carrying origin begins: the position of the key that
// heads it. A nil origin gives a Pos naming only the spec file.
func (f *Files) PosOf(origin *openapi3.Origin) Pos {
	if origin == nil || origin.Key == nil {
		return f.File()
	}
	return f.PosOfLocation(*origin.Key)
}

// PosOfField returns the position of the named field of the object carrying origin
// (e.g. "operationId", or an extension such as "x-retry"), or the object's own
// position when the field has none recorded.
func (f *Files) PosOfField(origin *openapi3.Origin, field string) Pos {
	if loc, ok := f.FieldLocation(origin, field); ok {
		return f.PosOfLocation(loc)
	}
	return f.PosOf(origin)
}

// PosOfLocation turns a location kin-openapi recorded into a Pos.
func (f *Files) PosOfLocation(loc openapi3.Location) Pos {
	if f.layout != nil && (loc.File == "" || loc.File == f.rootURI) {
		return f.layout.Pos(loc.Line, loc.Column)
	}
	if loc.File == "" || loc.File == f.rootURI {
		loc.Column = f.LoaderColumn(loc.Line, loc.Column)
	}
	return Pos{File: f.displayFile(loc.File), Line: loc.Line, Col: loc.Column}
}

// displayFile turns a file as kin-openapi records it into the name shown to users.
func (f *Files) displayFile(file string) string {
	if file == "" || file == f.rootURI {
		return f.path
	}
	if u, err := url.Parse(file); err == nil && u.Path != "" {
		return filepath.FromSlash(u.Path)
	}
	return file
}

// PosOfPointer returns the position of the element a JSON pointer ("#/paths/~1pets/get")
// names in the root file, or of the deepest element on the way that exists.
func (f *Files) PosOfPointer(pointer string) Pos {
	var steps []string
	for _, p := range strings.Split(strings.TrimPrefix(strings.TrimPrefix(pointer, "#"), "/"), "/") {
		if p != "" {
			steps = append(steps, UnescapePointer(p))
		}
	}
	t := f.tree(f.rootURI)
	if t == nil {
		return f.File()
	}
	line, col := t.descend(t.root(), steps)
	return f.At(line, col)
}

// Within returns the position reached from the key at `at` by following path through
// mapping keys and sequence indexes (the inside of an extension value, say), or the
// deepest position found on the way.
func (f *Files) Within(at Pos, path ...string) Pos {
	if !at.IsValid() || len(path) == 0 {
		return at
	}
	if f.layout != nil && f.layout.has(at.File) {
		if val := f.keyValue(func(f *Files) *node { return f.byPlace[at] }); val != nil {
			return f.descendFrom(val, at, path)
		}
		if at.File == f.path {
			return at
		}
	}
	uri := f.rootURI
	if at.File != f.path {
		uri = URIOf(at.File)
	}
	t := f.tree(uri)
	var val *node
	t.visit(func(_ string, k, v *node) bool {
		if k != nil && int(k.line) == at.Line && int(k.col) == at.Col {
			val = v
			return true
		}
		return false
	})
	if val == nil {
		return at
	}
	line, col := t.descend(val, path)
	if line == 0 {
		return at
	}
	return Pos{File: at.File, Line: line, Col: col}
}

// WithinLocation is Within from the key kin-openapi recorded at loc. With a layout, the
// key is found by its place in the root text, so that the path is followed in that
// key's own value even where the same key was copied to several places.
func (f *Files) WithinLocation(loc openapi3.Location, path ...string) Pos {
	at := f.PosOfLocation(loc)
	if f.layout == nil || len(path) == 0 || loc.File != "" && loc.File != f.rootURI {
		return f.Within(at, path...)
	}
	val := f.keyValue(func(f *Files) *node { return f.byOrigin[[2]int{loc.Line, loc.Column}] })
	if val == nil {
		return f.Within(at, path...)
	}
	return f.descendFrom(val, at, path)
}

// keyValue returns what get finds in the indexes of the root tree's keys, building them
// first if need be.
func (f *Files) keyValue(get func(*Files) *node) *node {
	t := f.tree(f.rootURI)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byPlace == nil {
		f.byPlace, f.byOrigin = map[Pos]*node{}, map[[2]int]*node{}
		t.visit(func(_ string, k, v *node) bool {
			if k != nil {
				if at := f.layout.Pos(int(k.line), int(k.col)); f.byPlace[at] == nil {
					f.byPlace[at] = v
				}
				f.byOrigin[[2]int{int(k.line), int(k.col)}] = v
			}
			return false
		})
	}
	return get(f)
}

// descendFrom follows path from val, the value of the key at `at` in the root tree, and
// returns the place reached, or at.
func (f *Files) descendFrom(val *node, at Pos, path []string) Pos {
	line, col := f.tree(f.rootURI).descend(val, path)
	if line == 0 {
		return at
	}
	return f.At(line, col)
}

// PosOfNull finds the first empty (null) value in the root file that sits in one of
// entries (as a value of a mapping, or an item of a list, held by one of those keys,
// e.g. "schemas") or that is the value of one of the keys in values (e.g. "items").
func (f *Files) PosOfNull(entries, values []string) Pos {
	pos := f.File()
	f.tree(f.rootURI).visit(func(holder string, k, v *node) bool {
		if !v.null {
			return false
		}
		if slices.Contains(entries, holder) || k != nil && slices.Contains(values, k.value) {
			at := v
			if k != nil {
				at = k
			}
			pos = f.At(int(at.line), int(at.col))
			return true
		}
		return false
	})
	return pos
}

// FindRef finds the first `$ref`, or discriminator mapping entry, whose value matches,
// in the root file, else in the other files read (in the order of their URIs), and
// returns its position (a $ref's key, a mapping entry's value) and its value as written.
// Without one, pos names only the root file.
func (f *Files) FindRef(match func(string) bool) (pos Pos, value string) {
	f.mu.Lock()
	uris := make([]string, 0, len(f.data))
	for uri := range f.data {
		if uri != f.rootURI {
			uris = append(uris, uri)
		}
	}
	f.mu.Unlock()
	slices.Sort(uris)
	for _, uri := range append([]string{f.rootURI}, uris...) {
		found := f.tree(uri).visit(func(holder string, k, v *node) bool {
			at := k
			switch {
			case k == nil:
				return false
			case k.value == "$ref":
			case holder == "mapping":
				at = v
			default:
				return false
			}
			if v.kind != yaml.ScalarNode || !match(v.value) {
				return false
			}
			pos = Pos{File: f.displayFile(uri), Line: int(at.line), Col: int(at.col)}
			if uri == f.rootURI {
				pos = f.At(int(at.line), int(at.col)) // an overlay's value is located in the overlay
			}
			value = v.value
			return true
		})
		if found {
			return pos, value
		}
	}
	return f.File(), ""
}

// tree returns the node tree of a file that was read, parsing it if it was not given
// (SetTree), or nil.
func (f *Files) tree(uri string) *tree {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t, ok := f.trees[uri]; ok {
		return t
	}
	var root yaml.Node
	var t *tree
	if data, ok := f.data[uri]; ok && yaml.Unmarshal(data, &root) == nil {
		n := &root
		if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
			n = n.Content[0]
		}
		if uri == f.rootURI && len(f.edits) > 0 {
			unedit(f.edits, n, 0)
		}
		t = newTree(n)
	}
	f.trees[uri] = t
	return t
}

// maxVisitDepth bounds the recursion of visit; the YAML parser refuses deeper documents.
const maxVisitDepth = 10000

// visit calls fn for every mapping entry (key and value) and every list item (nil key)
// below the root, in document order, with the key of the entry that holds the mapping or
// list ("" at the top). It stops at the first call that returns true, and reports whether
// one did. Aliases are not followed. A nil tree has nothing to visit.
func (t *tree) visit(fn func(holder string, key, val *node) bool) bool {
	if t == nil {
		return false
	}
	var walk func(n *node, holder string, depth int) bool
	walk = func(n *node, holder string, depth int) bool {
		if depth > maxVisitDepth {
			return false
		}
		switch n.kind {
		case yaml.MappingNode:
			for i := 0; i+1 < n.len(); i += 2 {
				k, v := t.child(n, i), t.child(n, i+1)
				if fn(holder, k, v) || walk(v, k.value, depth+1) {
					return true
				}
			}
		case yaml.SequenceNode:
			for i := range n.len() {
				c := t.child(n, i)
				if fn(holder, nil, c) || walk(c, holder, depth+1) {
					return true
				}
			}
		}
		return false
	}
	return walk(t.root(), "", 0)
}

// descend follows steps from n and returns the position of the last key or item reached.
func (t *tree) descend(n *node, steps []string) (line, col int) {
	line, col = int(n.line), int(n.col)
	for _, step := range steps {
		n = t.resolve(n)
		switch n.kind {
		case yaml.MappingNode:
			var next *node
			for i := 0; i+1 < n.len(); i += 2 {
				if k := t.child(n, i); k.value == step {
					line, col = int(k.line), int(k.col)
					next = t.child(n, i+1)
					break
				}
			}
			if next == nil {
				return line, col
			}
			n = next
		case yaml.SequenceNode:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= n.len() {
				return line, col
			}
			n = t.child(n, i)
			line, col = int(n.line), int(n.col)
		default:
			return line, col
		}
	}
	return line, col
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// EscapePointer escapes one JSON pointer token: "/pets" → "~1pets".
func EscapePointer(s string) string { return pointerEscaper.Replace(s) }

// UnescapePointer undoes EscapePointer.
func UnescapePointer(s string) string { return pointerUnescaper.Replace(s) }

// Ref is one `$ref` written in the root file.
type Ref struct {
	Pos   Pos    // the $ref key
	Value string // as written, e.g. "#/components/schemas/Pet"
}

// Refs lists every `$ref` of the root file whose value is a string, in document order.
func (f *Files) Refs() []Ref {
	var refs []Ref
	f.tree(f.rootURI).visit(func(_ string, k, v *node) bool {
		if k != nil && k.value == "$ref" && v.kind == yaml.ScalarNode {
			refs = append(refs, Ref{Pos: f.At(int(k.line), int(k.col)), Value: v.value})
		}
		return false
	})
	return refs
}

// A Mapping is one entry of a discriminator mapping.
type Mapping struct {
	Pos   Pos    // the entry's key
	Key   string // the discriminator value, e.g. "cat"
	Value string // the schema it names as written: "#/components/schemas/Cat", or "Cat"
	// Variants counts the schemas of the oneOf and anyOf beside the discriminator.
	Variants int
	// Path is the entry's place as a JSONPath an overlay can target, e.g.
	// "$.components.schemas['Pet'].discriminator.mapping['cat']".
	Path string
}

// Mappings lists the entries of every discriminator mapping of the root file, in
// document order. A schema property called discriminator is not one.
func (f *Files) Mappings() []Mapping {
	t := f.tree(f.rootURI)
	if t == nil {
		return nil
	}
	var out []Mapping
	var steps []pathStep // from the root to the node walked
	var walk func(n *node, holder string, depth int)
	walk = func(n *node, holder string, depth int) {
		if depth > maxVisitDepth {
			return
		}
		switch n.kind {
		case yaml.MappingNode:
			if d := t.mappingValue(n, "discriminator"); holder != "properties" && d != nil && d.kind == yaml.MappingNode {
				out = append(out, f.mappingEntries(t, n, d, steps)...)
			}
			for i := 0; i+1 < n.len(); i += 2 {
				k := t.child(n, i).value
				steps = append(steps, pathStep{key: k, index: -1})
				walk(t.child(n, i+1), k, depth+1)
				steps = steps[:len(steps)-1]
			}
		case yaml.SequenceNode:
			for i := range n.len() {
				steps = append(steps, pathStep{index: i})
				walk(t.child(n, i), holder, depth+1)
				steps = steps[:len(steps)-1]
			}
		}
	}
	walk(t.root(), "", 0)
	return out
}

// pathStep is one step of a JSONPath: a mapping key, or, when index is not -1, a list
// index.
type pathStep struct {
	key   string
	index int
}

// mappingEntries lists the entries of the mapping of d, the discriminator of schema at
// steps in the tree t of the root file.
func (f *Files) mappingEntries(t *tree, schema, d *node, steps []pathStep) []Mapping {
	m := t.mappingValue(d, "mapping")
	if m == nil || m.kind != yaml.MappingNode {
		return nil
	}
	variants := 0
	for _, k := range []string{"oneOf", "anyOf"} {
		if l := t.mappingValue(schema, k); l != nil && l.kind == yaml.SequenceNode {
			variants += l.len()
		}
	}
	var path strings.Builder
	path.WriteString("$")
	for _, s := range steps {
		if s.index >= 0 {
			path.WriteString("[" + strconv.Itoa(s.index) + "]")
		} else {
			path.WriteString(jsonPathStep(s.key))
		}
	}
	path.WriteString(".discriminator.mapping")
	var out []Mapping
	for j := 0; j+1 < m.len(); j += 2 {
		if key, val := t.child(m, j), t.child(m, j+1); val.kind == yaml.ScalarNode {
			out = append(out, Mapping{Pos: f.At(int(key.line), int(key.col)), Key: key.value, Value: val.value,
				Variants: variants, Path: path.String() + jsonPathStep(key.value)})
		}
	}
	return out
}

// jsonPathStep writes a key as a step of a JSONPath: ".name", or "['na.me']".
func jsonPathStep(key string) string {
	plain := key != ""
	for i, r := range key {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return "." + key
	}
	return "['" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(key) + "']"
}

// Has reports whether a JSON pointer ("#/components/schemas/Pet") names an element of
// the root file. The pointer is a URI fragment, percent-decoded as kin-openapi decodes it
// ("#/paths/~1users~1%7Bid%7D" names the path "/users/{id}").
func (f *Files) Has(pointer string) bool {
	t := f.tree(f.rootURI)
	if t == nil || !strings.HasPrefix(pointer, "#") {
		return false
	}
	n := t.root()
	u, err := url.Parse(pointer)
	if err != nil {
		return false
	}
	rest := u.Fragment
	if rest == "" {
		return true
	}
	if !strings.HasPrefix(rest, "/") {
		return false
	}
	for _, p := range strings.Split(rest[1:], "/") {
		step := UnescapePointer(p)
		n = t.resolve(n)
		var next *node
		switch n.kind {
		case yaml.MappingNode:
			next = t.mappingValue(n, step)
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(step); err == nil && i >= 0 && i < n.len() {
				next = t.child(n, i)
			}
		}
		if next == nil {
			return false
		}
		n = next
	}
	return true
}
