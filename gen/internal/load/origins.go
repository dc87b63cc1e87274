package load

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// The origins of a document decoded from the root file's tree (native.go): kin-openapi
// records them while its own decode runs, from state it keeps to itself, so a document
// decoded from a tree it did not parse has none. stamper gives each element the origin
// kin-openapi's decode gives it, walking the document alongside the tree: every element
// the place of the key above it (Key), with the end of the block it heads (ends.go). The
// elements a type's UnmarshalYAML decodes from a mapping get, besides, the places of the
// mapping's keys (Fields) and of the scalar items of its list-valued fields (Sequences);
// those are not written into each origin, a Location of 64 bytes a key, most never read,
// but left in the tree: the stamper records in a source.FieldIndex the mapping each such
// origin was decoded from, and source.Files reads a field's place from there
// (FieldLocation) as it would from Fields. An Example's origin keeps its Fields, which
// kin-openapi's validation reads to locate an invalid example's value; Sequences, which
// nothing reads, are not recorded. The functions below follow openapi3's origin.go, less
// what a tree without anchors, aliases and merge keys (the only one native.go decodes)
// never reaches. They read the compact tree source.Files keeps of the root file, so that
// the YAML parser's tree, four times its size, is let go of once decoded.

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
	exampleType    = reflect.TypeFor[openapi3.Example]()
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
	t    source.Tree
	file string // the root file as the loader names it
	// The columns of line startLine are shift more in the text the loader reads than in
	// the file (documentStart).
	startLine, shift int
	ends             []int32 // the last line of each node's block (ends.go)
	lineLen          []int32 // each line's length in bytes
	// The mapping each origin that would record Fields was decoded from.
	mappings *source.FieldIndex
}

// node is a node of the stamper's tree, by index.
type node = int32

// column returns the column n starts at in the text the loader reads.
func (st *stamper) column(n node) int {
	if st.t.Line(n) == st.startLine {
		return st.t.Column(n) + st.shift
	}
	return st.t.Column(n)
}

// location returns the place of n, named by its value.
func (st *stamper) location(n node) openapi3.Location {
	return openapi3.Location{File: st.file, Line: st.t.Line(n), Column: st.column(n), Name: st.t.Value(n)}
}

// errNotMirrored is returned when the document does not have the shape of the tree it
// was decoded from, which a change of kin-openapi's types could bring, or holds a $ref
// decodeTree leaves to kin-openapi: the caller then lets kin-openapi decode the text
// itself.
type errNotMirrored struct{ what string }

func (e *errNotMirrored) Error() string { return "origins: " + e.what }

// stampDocument records the origins of doc, decoded from the tree's top node.
func (st *stamper) stampDocument(doc *openapi3.T) error {
	if err := st.walk(reflect.ValueOf(doc), 0); err != nil {
		return err
	}
	// A document's Key is its first key, set above, or nothing when it has no origin.
	if doc.Origin != nil && doc.Origin.Key == nil {
		key := st.withEnd(openapi3.Location{File: st.file, Line: st.t.Line(0), Column: st.column(0)}, 0)
		doc.Origin.Key = &key
	}
	return nil
}

// walk records the origins of v, decoded from n, and of what it holds.
func (st *stamper) walk(v reflect.Value, n node) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return st.walk(v.Elem(), n)
	case reflect.Struct:
		return st.structValue(v, n)
	case reflect.Map:
		if v.IsNil() || st.t.Kind(n) != yaml.MappingNode || v.Type().Elem().Kind() != reflect.Pointer {
			return nil // a map of values holds nothing with an origin
		}
		kt := v.Type().Key()
		for i := 0; i+1 < st.t.Children(n); i += 2 {
			e := v.MapIndex(reflect.ValueOf(st.t.Value(st.t.Child(n, i))).Convert(kt))
			if !e.IsValid() {
				continue
			}
			if err := st.walk(e, st.t.Child(n, i+1)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() != reflect.Pointer {
			return nil
		}
		if st.t.Kind(n) != yaml.SequenceNode || st.t.Children(n) != v.Len() {
			return &errNotMirrored{fmt.Sprintf("a list of %d items decoded from line %d", v.Len(), st.t.Line(n))}
		}
		for i := range v.Len() {
			if err := st.walk(v.Index(i), st.t.Child(n, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (st *stamper) structValue(v reflect.Value, n node) error {
	t := v.Type()
	switch {
	case mappingTypes[t]:
		if err := st.fields(v, n); err != nil {
			return err
		}
		if err := checkRefsOf(v); err != nil {
			return err
		}
		o := st.originFromNode(n, t == exampleType)
		fieldByName(v, "Origin").Set(reflect.ValueOf(o))
		if t == docType && o != nil && st.t.Kind(n) == yaml.MappingNode && st.t.Children(n) > 0 {
			key := st.location(st.t.Child(n, 0))
			o.Key = &key
		}
		st.setChildOriginKeys(n, v)
	case refTypes[t]:
		fieldByName(v, "Origin").Set(reflect.ValueOf(st.originFromNode(n, false)))
		ref := fieldByName(v, "Ref").String()
		if ref == "" {
			return st.walk(fieldByName(v, "Value"), n)
		}
		return st.checkRef(ref, t == schemaRefType, n)
	case t == headerType:
		return st.structValue(fieldByName(v, "Parameter"), n)
	case t == boolSchemaType:
		return st.walk(fieldByName(v, "Schema"), n)
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
func (st *stamper) checkRef(ref string, schema bool, n node) error {
	if !typedRef(ref) {
		return &errNotMirrored{fmt.Sprintf("$ref %q at line %d", ref, st.t.Line(n))}
	}
	if !schema || st.t.Kind(n) != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < st.t.Children(n); i += 2 {
		k, v := st.t.Child(n, i), st.t.Child(n, i+1)
		if key := st.t.Value(k); key != "$ref" && !strings.HasPrefix(key, "x-") &&
			(st.t.Kind(v) == yaml.MappingNode || st.t.Kind(v) == yaml.SequenceNode) {
			return &errNotMirrored{fmt.Sprintf("%q next to a $ref at line %d", key, st.t.Line(k))}
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
func (st *stamper) fields(v reflect.Value, n node) error {
	if st.t.Kind(n) != yaml.MappingNode {
		return nil
	}
	keys := decodedFields(v.Type())
	for i := 0; i+1 < st.t.Children(n); i += 2 {
		if f, ok := keys[st.t.Value(st.t.Child(n, i))]; ok {
			if err := st.walk(v.Field(f), st.t.Child(n, i+1)); err != nil {
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
func decodedFields(t reflect.Type) fieldIndex { return indexFields(&decodedFieldsOf, t, true) }

// taggedFields returns the names the yaml tags of a struct's fields give them, as
// childByKey finds fields: the first field of each name.
func taggedFields(t reflect.Type) fieldIndex { return indexFields(&taggedFieldsOf, t, false) }

// indexFields returns, kept in cache, the first exported field of t for each key: the
// name its yaml tag gives; with decoded, an untagged field's name in lower case, as the
// YAML decoder reads it, and no key for "-".
func indexFields(cache *sync.Map, t reflect.Type, decoded bool) fieldIndex {
	if m, ok := cache.Load(t); ok {
		return m.(fieldIndex)
	}
	m := fieldIndex{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if decoded && key == "" {
			key = strings.ToLower(f.Name)
		}
		if _, dup := m[key]; !dup && !(decoded && key == "-") {
			m[key] = i
		}
	}
	cache.Store(t, m)
	return m
}

// maplike records the origins of the entries of Paths, Responses or Callback, each
// entry's Key the key that heads it; extensions have none.
func (st *stamper) maplike(v reflect.Value, n node) error {
	if st.t.Kind(n) != yaml.MappingNode {
		return nil
	}
	value := v.Addr().MethodByName("Value")
	for i := 0; i+1 < st.t.Children(n); i += 2 {
		k, val := st.t.Child(n, i), st.t.Child(n, i+1)
		key := st.t.Value(k)
		if strings.HasPrefix(key, "x-") {
			continue
		}
		e := value.Call([]reflect.Value{reflect.ValueOf(key)})[0]
		if e.IsNil() {
			return &errNotMirrored{fmt.Sprintf("no entry %q decoded from line %d", key, st.t.Line(k))}
		}
		if err := st.walk(e, val); err != nil {
			return err
		}
		st.setOriginKey(e, k, val)
	}
	return nil
}

// originFromNode returns the origin of an element decoded from the mapping n, or nil
// for a node that is not a mapping or has no keys. The places of its keys are recorded
// in its Fields when withFields, else left to st.mappings.
func (st *stamper) originFromNode(n node, withFields bool) *openapi3.Origin {
	if st.t.Kind(n) != yaml.MappingNode || st.t.Children(n) < 2 {
		return nil
	}
	o := &openapi3.Origin{}
	if !withFields {
		st.mappings.Add(o, n)
		return o
	}
	o.Fields = make(openapi3.FieldLocations, 0, st.t.Children(n)/2)
	for i := 0; i+1 < st.t.Children(n); i += 2 {
		o.Fields = append(o.Fields, st.location(st.t.Child(n, i)))
	}
	return o
}

// setChildOriginKeys sets Key on the children of the mapping n, decoded into container,
// from the keys heading them; the entries of its map-valued fields too, and the items of
// its list-valued ones, which take their own first key.
func (st *stamper) setChildOriginKeys(n node, container reflect.Value) {
	if st.t.Kind(n) != yaml.MappingNode {
		return
	}
	v := derefValue(container)
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		return // nil
	}
	for i := 0; i+1 < st.t.Children(n); i += 2 {
		keyNode, valNode := st.t.Child(n, i), st.t.Child(n, i+1)
		child := childByKey(v, st.t.Value(keyNode))
		if !child.IsValid() {
			continue
		}
		st.setOriginKey(child, keyNode, valNode)
		st.recordScalarMapKeys(v, child, valNode)
		switch c := derefValue(child); c.Kind() {
		case reflect.Map:
			st.setChildOriginKeys(valNode, c)
		case reflect.Slice:
			if st.t.Kind(valNode) != yaml.SequenceNode {
				continue
			}
			for j := 0; j < st.t.Children(valNode) && j < c.Len(); j++ {
				if item := st.t.Child(valNode, j); st.t.Kind(item) == yaml.MappingNode && st.t.Children(item) > 0 {
					st.setOriginKey(c.Index(j), st.t.Child(item, 0), item)
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
func (st *stamper) setOriginKey(child reflect.Value, keyNode, valNode node) {
	if child = derefValue(child); child.Kind() != reflect.Struct {
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
	key := st.withEnd(st.location(keyNode), valNode)
	f.Interface().(*openapi3.Origin).Key = &key
	st.descendToWrapped(child, keyNode, valNode)
}

func (st *stamper) descendToWrapped(child reflect.Value, keyNode, valNode node) {
	for _, name := range [...]string{"Value", "Schema"} {
		if inner := fieldByName(child, name); inner.IsValid() {
			st.setOriginKey(inner, keyNode, valNode)
		}
	}
}

// recordScalarMapKeys gives the container an origin, where kin-openapi records on it
// where each key of a map of scalars (an OAuth flow's scopes) is: in Sequences, which
// nothing reads, so that the places are not recorded here.
func (st *stamper) recordScalarMapKeys(container, child reflect.Value, valNode node) {
	if child.Kind() != reflect.Map || st.t.Kind(valNode) != yaml.MappingNode {
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
}
