package load

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// The origins of a document decoded from the root file's tree (native.go): kin-openapi
// records them while its own decode runs, from state it keeps to itself, so a document
// decoded from a tree it did not parse has none. stamper gives each element the origin
// kin-openapi's decode gives it, walking the document alongside the tree: the elements
// a type's UnmarshalYAML decodes from a mapping get the places of the mapping's keys
// (Fields) and of the scalar items of its list-valued fields (Sequences), and every
// element the place of the key above it (Key), with the end of the block it heads
// (endIndex). The functions below follow openapi3's origin.go, less what a tree without
// anchors, aliases and merge keys (the only one native.go decodes) never reaches.

var originPtrType = reflect.TypeFor[*openapi3.Origin]()

// Types whose UnmarshalYAML decodes the mapping's fields and then records the origin of
// the element and of the keys above its children.
var mappingTypes = typeSet(
	openapi3.T{}, openapi3.Components{}, openapi3.Contact{}, openapi3.Discriminator{},
	openapi3.Encoding{}, openapi3.Example{}, openapi3.ExternalDocs{}, openapi3.Info{},
	openapi3.License{}, openapi3.Link{}, openapi3.MediaType{}, openapi3.OAuthFlow{},
	openapi3.OAuthFlows{}, openapi3.Operation{}, openapi3.Parameter{}, openapi3.PathItem{},
	openapi3.RequestBody{}, openapi3.Response{}, openapi3.Schema{}, openapi3.SecurityScheme{},
	openapi3.Server{}, openapi3.ServerVariable{}, openapi3.Tag{}, openapi3.XML{},
)

// Types of $ref wrappers: the origin of the mapping, then the value when it is not a
// $ref.
var refTypes = typeSet(
	openapi3.CallbackRef{}, openapi3.ExampleRef{}, openapi3.HeaderRef{}, openapi3.LinkRef{},
	openapi3.ParameterRef{}, openapi3.RequestBodyRef{}, openapi3.ResponseRef{},
	openapi3.SchemaRef{}, openapi3.SecuritySchemeRef{},
)

// Types whose UnmarshalYAML records no origin and decodes nothing that has one.
var plainTypes = typeSet(
	openapi3.Types{}, openapi3.ExclusiveBound{}, openapi3.SecurityRequirement{},
)

var (
	headerType     = reflect.TypeFor[openapi3.Header]()
	boolSchemaType = reflect.TypeFor[openapi3.BoolSchema]()
	pathsType      = reflect.TypeFor[openapi3.Paths]()
	responsesType  = reflect.TypeFor[openapi3.Responses]()
	callbackType   = reflect.TypeFor[openapi3.Callback]()
	unmarshalerTyp = reflect.TypeFor[yaml.Unmarshaler]()
)

func typeSet(values ...any) map[reflect.Type]bool {
	m := make(map[reflect.Type]bool, len(values))
	for _, v := range values {
		m[reflect.TypeOf(v)] = true
	}
	return m
}

// stamper records origins in a decoded document.
type stamper struct {
	file string    // the root file as the loader names it
	ends *endIndex // the ends of the tree's blocks
}

// errNotMirrored is returned when the document does not have the shape of the tree it
// was decoded from, which a change of kin-openapi's types could bring: the caller then
// lets kin-openapi decode the text itself.
type errNotMirrored struct{ what string }

func (e *errNotMirrored) Error() string { return "origins: " + e.what }

// stampDocument records the origins of doc, decoded from root.
func (st *stamper) stampDocument(doc *openapi3.T, root *yaml.Node) error {
	if err := st.value(reflect.ValueOf(doc), root); err != nil {
		return err
	}
	// A document's Key is its first key, set above, or nothing when it has no origin.
	if doc.Origin != nil && doc.Origin.Key == nil {
		key := st.withEnd(openapi3.Location{File: st.file, Line: root.Line, Column: root.Column}, root)
		doc.Origin.Key = &key
	}
	return nil
}

// value records the origins of v, decoded from n, and of what it holds.
func (st *stamper) value(v reflect.Value, n *yaml.Node) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return st.value(v.Elem(), n)
	case reflect.Struct:
		return st.structValue(v, n)
	case reflect.Map:
		if v.IsNil() || n.Kind != yaml.MappingNode || v.Type().Elem().Kind() != reflect.Pointer {
			return nil // a map of values holds nothing with an origin
		}
		kt := v.Type().Key()
		for i := 0; i+1 < len(n.Content); i += 2 {
			e := v.MapIndex(reflect.ValueOf(n.Content[i].Value).Convert(kt))
			if !e.IsValid() {
				continue
			}
			if err := st.value(e, n.Content[i+1]); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() != reflect.Pointer {
			return nil
		}
		if n.Kind != yaml.SequenceNode || len(n.Content) != v.Len() {
			return &errNotMirrored{fmt.Sprintf("a list of %d items decoded from line %d", v.Len(), n.Line)}
		}
		for i := range v.Len() {
			if err := st.value(v.Index(i), n.Content[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (st *stamper) structValue(v reflect.Value, n *yaml.Node) error {
	t := v.Type()
	switch {
	case mappingTypes[t]:
		if err := st.fields(v, n); err != nil {
			return err
		}
		if err := checkRefsOf(v); err != nil {
			return err
		}
		o := st.originFromNode(n)
		fieldByName(v, "Origin").Set(reflect.ValueOf(o))
		if t == reflect.TypeFor[openapi3.T]() && o != nil && n.Kind == yaml.MappingNode && len(n.Content) > 0 {
			first := n.Content[0]
			o.Key = &openapi3.Location{File: st.file, Line: first.Line, Column: first.Column, Name: first.Value}
		}
		st.setChildOriginKeys(n, v)
	case refTypes[t]:
		fieldByName(v, "Origin").Set(reflect.ValueOf(st.originFromNode(n)))
		ref := fieldByName(v, "Ref").String()
		if ref == "" {
			return st.value(fieldByName(v, "Value"), n)
		}
		return checkRef(ref, t == schemaRefType, n)
	case t == headerType:
		return st.structValue(fieldByName(v, "Parameter"), n)
	case t == boolSchemaType:
		return st.value(fieldByName(v, "Schema"), n)
	case t == pathsType, t == responsesType, t == callbackType:
		return st.maplike(v, n)
	case plainTypes[t]:
	case reflect.PointerTo(t).Implements(unmarshalerTyp):
		return &errNotMirrored{"no origins known for " + t.String()}
	default:
		return st.fields(v, n)
	}
	return nil
}

// checkRef returns an error for a $ref that decodeTree leaves to kin-openapi (native.go):
// one that names another file, or a place reached through plain values; and, for a
// schema's, one with fields next to it that hold objects.
func checkRef(ref string, schema bool, n *yaml.Node) error {
	if !typedRef(ref) {
		return &errNotMirrored{fmt.Sprintf("$ref %q at line %d", ref, n.Line)}
	}
	if !schema || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value != "$ref" && !strings.HasPrefix(k.Value, "x-") && (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) {
			return &errNotMirrored{fmt.Sprintf("%q next to a $ref at line %d", k.Value, k.Line)}
		}
	}
	return nil
}

// checkRefsOf checks the $ref of a path item, and the entries of a discriminator's
// mapping that the loader resolves (those with a "/").
func checkRefsOf(v reflect.Value) error {
	switch x := v.Addr().Interface().(type) {
	case *openapi3.PathItem:
		if x.Ref != "" && !typedRef(x.Ref) {
			return &errNotMirrored{fmt.Sprintf("path item $ref %q", x.Ref)}
		}
	case *openapi3.Discriminator:
		for _, m := range x.Mapping {
			if strings.Contains(m.Ref, "/") && !typedRef(m.Ref) {
				return &errNotMirrored{fmt.Sprintf("discriminator mapping %q", m.Ref)}
			}
		}
	}
	return nil
}

// fields records the origins of the fields of v that n's keys decoded into.
func (st *stamper) fields(v reflect.Value, n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	keys := decodedFields(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		if f, ok := keys[n.Content[i].Value]; ok {
			if err := st.value(v.Field(f), n.Content[i+1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// fieldByName is v.FieldByName for the fields the origins are kept in and found
// through, their indexes kept by type.
func fieldByName(v reflect.Value, name string) reflect.Value {
	key := namedField{v.Type(), name}
	index, ok := namedFields.Load(key)
	if !ok {
		f, found := v.Type().FieldByName(name)
		if !found {
			f.Index = nil
		}
		index, _ = namedFields.LoadOrStore(key, f.Index)
	}
	if index.([]int) == nil {
		return reflect.Value{}
	}
	return v.FieldByIndex(index.([]int))
}

type namedField struct {
	t    reflect.Type
	name string
}

var namedFields sync.Map // namedField → []int, nil when the type has no such field

// fieldIndex maps the keys of a struct type's fields to their index.
type fieldIndex map[string]int

var decodedFieldsOf, taggedFieldsOf sync.Map // reflect.Type → fieldIndex

// decodedFields returns the keys the YAML decoder decodes a struct's fields from: the
// name its yaml tag gives, else its name in lower case; none for "-".
func decodedFields(t reflect.Type) fieldIndex {
	if m, ok := decodedFieldsOf.Load(t); ok {
		return m.(fieldIndex)
	}
	m := fieldIndex{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if key == "" {
			key = strings.ToLower(f.Name)
		}
		if _, dup := m[key]; key != "-" && !dup {
			m[key] = i
		}
	}
	decodedFieldsOf.Store(t, m)
	return m
}

// taggedFields returns the names the yaml tags of a struct's fields give them, as
// childByKey finds fields: the first field of each name.
func taggedFields(t reflect.Type) fieldIndex {
	if m, ok := taggedFieldsOf.Load(t); ok {
		return m.(fieldIndex)
	}
	m := fieldIndex{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if _, dup := m[name]; !dup {
			m[name] = i
		}
	}
	taggedFieldsOf.Store(t, m)
	return m
}

// maplike records the origins of the entries of Paths, Responses or Callback, each
// entry's Key the key that heads it; extensions have none.
func (st *stamper) maplike(v reflect.Value, n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	value := v.Addr().MethodByName("Value")
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if strings.HasPrefix(k.Value, "x-") {
			continue
		}
		e := value.Call([]reflect.Value{reflect.ValueOf(k.Value)})[0]
		if e.IsNil() {
			return &errNotMirrored{fmt.Sprintf("no entry %q decoded from line %d", k.Value, k.Line)}
		}
		if err := st.value(e, val); err != nil {
			return err
		}
		st.setOriginKey(e, k, val)
	}
	return nil
}

// mappingValue returns the value of key in the mapping n, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// originFromNode returns the places of a mapping's keys and of the scalar items of its
// list-valued fields, or nil for a node that is not a mapping or has no keys.
func (st *stamper) originFromNode(n *yaml.Node) *openapi3.Origin {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	o := &openapi3.Origin{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if o.Fields == nil {
			o.Fields = make(openapi3.FieldLocations, 0, len(n.Content)/2)
		}
		o.Fields = append(o.Fields, openapi3.Location{File: st.file, Line: k.Line, Column: k.Column, Name: k.Value})
		if v.Kind != yaml.SequenceNode {
			continue
		}
		var locs []openapi3.Location
		for _, item := range v.Content {
			if item.Kind == yaml.ScalarNode {
				locs = append(locs, openapi3.Location{File: st.file, Line: item.Line, Column: item.Column, Name: item.Value})
			}
		}
		if len(locs) > 0 {
			if o.Sequences == nil {
				o.Sequences = make(map[string][]openapi3.Location)
			}
			o.Sequences[k.Value] = locs
		}
	}
	if o.Fields == nil && o.Sequences == nil {
		return nil
	}
	return o
}

// setChildOriginKeys sets Key on the children of the mapping n, decoded into container,
// from the keys heading them; the entries of its map-valued fields too, and the items of
// its list-valued ones, which take their own first key.
func (st *stamper) setChildOriginKeys(n *yaml.Node, container reflect.Value) {
	if n.Kind != yaml.MappingNode {
		return
	}
	v := container
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		keyNode, valNode := n.Content[i], n.Content[i+1]
		child := childByKey(v, keyNode.Value)
		if !child.IsValid() {
			continue
		}
		st.setOriginKey(child, keyNode, valNode)
		st.recordScalarMapKeys(v, child, keyNode, valNode)
		switch c := derefValue(child); c.Kind() {
		case reflect.Map:
			st.setChildOriginKeys(valNode, c)
		case reflect.Slice:
			if valNode.Kind != yaml.SequenceNode {
				continue
			}
			for j := 0; j < len(valNode.Content) && j < c.Len(); j++ {
				if item := valNode.Content[j]; item.Kind == yaml.MappingNode && len(item.Content) > 0 {
					st.setOriginKey(c.Index(j), item.Content[0], item)
				}
			}
		}
	}
}

func derefValue(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return v
		}
		v = v.Elem()
	}
	return v
}

// childByKey finds the struct field (by its yaml name) or map entry that key decoded
// into.
func childByKey(v reflect.Value, key string) reflect.Value {
	switch v.Kind() {
	case reflect.Map:
		if v.IsNil() {
			return reflect.Value{}
		}
		return v.MapIndex(reflect.ValueOf(key).Convert(v.Type().Key()))
	case reflect.Struct:
		if i, ok := taggedFields(v.Type())[key]; ok {
			return v.Field(i)
		}
	}
	return reflect.Value{}
}

// setOriginKey sets Key on child, and on what it wraps (a $ref wrapper's Value, a
// BoolSchema's Schema), from the key heading it.
func (st *stamper) setOriginKey(child reflect.Value, keyNode, valNode *yaml.Node) {
	for child.Kind() == reflect.Pointer || child.Kind() == reflect.Interface {
		if child.IsNil() {
			return
		}
		child = child.Elem()
	}
	if child.Kind() != reflect.Struct {
		return
	}
	f := fieldByName(child, "Origin")
	if !f.IsValid() || f.Type() != originPtrType || !f.CanSet() {
		st.descendToWrapped(child, keyNode, valNode)
		return
	}
	if f.IsNil() {
		f.Set(reflect.ValueOf(&openapi3.Origin{}))
	}
	key := st.withEnd(openapi3.Location{File: st.file, Line: keyNode.Line, Column: keyNode.Column, Name: keyNode.Value}, valNode)
	f.Interface().(*openapi3.Origin).Key = &key
	st.descendToWrapped(child, keyNode, valNode)
}

func (st *stamper) descendToWrapped(child reflect.Value, keyNode, valNode *yaml.Node) {
	for _, name := range [...]string{"Value", "Schema"} {
		if inner := fieldByName(child, name); inner.IsValid() {
			st.setOriginKey(inner, keyNode, valNode)
		}
	}
}

// recordScalarMapKeys records, on the container's origin, where each key of a map of
// scalars (an OAuth flow's scopes) is, sorted by key.
func (st *stamper) recordScalarMapKeys(container, child reflect.Value, keyNode, valNode *yaml.Node) {
	if child.Kind() != reflect.Map || valNode.Kind != yaml.MappingNode {
		return
	}
	switch child.Type().Elem().Kind() {
	case reflect.Struct, reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return
	}
	f := fieldByName(container, "Origin")
	if !f.IsValid() || f.Type() != originPtrType || !f.CanSet() {
		return
	}
	if f.IsNil() {
		f.Set(reflect.ValueOf(&openapi3.Origin{}))
	}
	var locs []openapi3.Location
	for i := 0; i+1 < len(valNode.Content); i += 2 {
		k := valNode.Content[i]
		locs = append(locs, openapi3.Location{File: st.file, Line: k.Line, Column: k.Column, Name: k.Value})
	}
	if len(locs) == 0 {
		return
	}
	sort.Slice(locs, func(i, j int) bool { return locs[i].Name < locs[j].Name })
	o := f.Interface().(*openapi3.Origin)
	if o.Sequences == nil {
		o.Sequences = make(map[string][]openapi3.Location)
	}
	o.Sequences[keyNode.Value] = locs
}

func (st *stamper) withEnd(loc openapi3.Location, n *yaml.Node) openapi3.Location {
	loc.EndLine, loc.EndColumn = st.ends.endOf(n)
	return loc
}

// endIndex holds where the block each node heads ends, derived from the tree and the
// text it was parsed from as kin-openapi's nodeindex derives it: a node's last line is
// the last line any node under it starts on, grown over the deeper-indented lines after
// it that hold no node (a block scalar's), and held before the line its next sibling in
// a block collection starts on (as every node under that sibling). nodeindex takes three
// passes over the tree, the last as deep as the tree for every node; the ends are the
// same in one.
type endIndex struct {
	end     map[*yaml.Node]int32
	lineLen []int32 // each line's length in bytes
	indent  []int32 // each line's leading spaces, -1 for a line of blanks only
}

// newEndIndex indexes the tree root, parsed from text.
func newEndIndex(root *yaml.Node, text []byte) *endIndex {
	ix := &endIndex{end: make(map[*yaml.Node]int32, 1024)}
	lines := bytes.Count(text, []byte("\n")) + 1
	ix.lineLen, ix.indent = make([]int32, 0, lines), make([]int32, 0, lines)
	start := 0
	addLine := func(line []byte) {
		ix.lineLen = append(ix.lineLen, int32(len(line)))
		if t := bytes.TrimRight(line, " \t"); len(t) == 0 {
			ix.indent = append(ix.indent, -1)
		} else {
			ix.indent = append(ix.indent, int32(len(t)-len(bytes.TrimLeft(t, " "))))
		}
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue
			}
		default:
			continue
		}
		end := i
		if text[i] == '\n' && end > start && text[end-1] == '\r' {
			end--
		}
		addLine(text[start:end])
		start = i + 1
	}
	addLine(text[start:])
	ix.index(root, math.MaxInt32)
	return ix
}

// implicitNull reports whether n is a value the document left out, which the parser
// makes an empty null scalar.
func implicitNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == ""
}

// index records the end of n and of the nodes under it, none past bound, and returns
// n's end before bounds apply: the last line a node under it starts on, grown over the
// lines after it indented deeper than n that hold no node (blank lines only when the
// block resumes after them). A value left out has none.
func (ix *endIndex) index(n *yaml.Node, bound int32) int32 {
	block := n.Style&yaml.FlowStyle == 0 && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode)
	step := 1
	if n.Kind == yaml.MappingNode {
		step = 2 // a key and its value belong to the same entry
	}
	e := int32(n.Line)
	if implicitNull(n) {
		e = 0
	}
	for i, c := range n.Content {
		b := bound
		if entry := i - i%step; block && entry+step < len(n.Content) {
			if next := n.Content[entry+step]; next.Line > n.Content[entry].Line {
				b = min(b, int32(next.Line-1))
			}
		}
		if ce := ix.index(c, b); ce > e {
			e = ce
		}
	}
	if implicitNull(n) {
		ix.end[n] = 0
		return 0
	}
	col := int32(n.Column - 1)
	for {
		if ind := ix.indentOf(e); ind > col {
			e++
			continue
		} else if ind == -1 {
			j := e
			for j < int32(len(ix.indent)) && ix.indentOf(j) == -1 {
				j++
			}
			if ix.indentOf(j) > col {
				e = j + 1
				continue
			}
		}
		break
	}
	ix.end[n] = min(e, bound)
	return e
}

func (ix *endIndex) indentOf(i int32) int32 {
	if i < 0 || i >= int32(len(ix.indent)) {
		return -1
	}
	return ix.indent[i]
}

// endOf returns the last line of the block n heads, and the column after its last
// character; 0, 0 when it has none.
func (ix *endIndex) endOf(n *yaml.Node) (int, int) {
	line, ok := ix.end[n]
	if !ok || line < 1 || int(line) > len(ix.lineLen) {
		return 0, 0
	}
	return int(line), int(ix.lineLen[line-1]) + 1
}
