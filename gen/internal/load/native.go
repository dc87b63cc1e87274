package load

import (
	"bytes"
	"net/url"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// The root file read once: kin-openapi's document decoded from the tree normalize
// parsed, instead of from the text parsed again. kin-openapi's LoadFromDataWithPath
// parses the text with the same YAML parser, readies the scalars (prepareTree), decodes
// the tree with the types' own UnmarshalYAML while recording origins, and resolves the
// $refs; here the tree is decoded with those same methods, the origins are recorded
// after (origins.go), and the $refs resolved with the loader's ResolveRefsIn.
//
// What the loader keeps to itself is what it cannot be given here, so a tree that would
// reach it is left to kin-openapi to parse: anchors, aliases and merge keys (kin-openapi
// records their origins from an index of its own), a $ref or discriminator mapping that
// names another file or the root file by name (the loader would find there a document
// other than this one), a $ref that kin-openapi resolves through a map of plain values
// (it records its origins from the tree it keeps), and fields written next to a $ref
// that hold objects (a schema decodes them into a value of its own, out of reach). That
// value's own origin, which nothing reads (the loader copies the fields it applies, not
// the origin), stays empty for the scalar fields decoded here.

// decodeTree decodes root, the root file's tree, into the document kin-openapi's loader
// would decode from text (the tree was parsed from it, and tree is what files keeps of
// it) given as parserText (forParser), and resolves its $refs with loader; files is given
// the index the fields of its origins are found through (origins.go). It
// reports false, without having used loader, when the tree is one kin-openapi must parse
// itself (see above), or one it would refuse: the caller then hands it the text, which
// decodes or fails as it always has. The tree root is changed as kin-openapi changes its
// own (prepareTree), and consumed as it is decoded (decodeInPieces), so that the caller
// must not use it after, whatever is reported: the origins are read from tree.
func decodeTree(loader *openapi3.Loader, root *yaml.Node, files *source.Files, tree source.Tree, text, parserText []byte, location *url.URL) (doc *openapi3.T, ok bool, err error) {
	if bytes.Contains(parserText, []byte("\u0085")) || !utf8.Valid(parserText) { // read as JSON, without origins; refused
		return nil, false, nil
	}
	if !nativeTree(root) || prepareTree(root) != nil {
		return nil, false, nil
	}
	doc = &openapi3.T{}
	if decodeInPieces(root, doc) != nil {
		return nil, false, nil
	}
	// From here on the parser's tree is not used, and may go.
	st := &stamper{t: tree, file: location.String()}
	if at, line := documentStartAt(text); at >= 0 {
		st.startLine, st.shift = line, len(documentStart)
	}
	st.mappings = tree.FieldIndex(st.file, st.startLine, st.shift)
	st.indexEnds(parserText)
	if st.stampDocument(doc) != nil {
		return nil, false, nil
	}
	// The loader takes the root file's location from the first document it loads, and
	// resolves a discriminator mapping of that file ("#/components/...") only when in
	// another: an empty document loaded first at the same location gives it the location.
	if _, err := loader.LoadFromDataWithPath([]byte("{}"), location); err != nil {
		return nil, true, err
	}
	if err := loader.ResolveRefsIn(doc, location); err != nil {
		return doc, true, err
	}
	files.SetFieldIndex(st.mappings)
	return doc, true, nil
}

// decodeInPieces decodes root into doc as root.Decode does, the entries of its largest
// mappings (the paths, and each section of the components) one at a time, each let go
// of once decoded: a decoded document grows as the tree is consumed, instead of on top of
// it (for stripe.yaml, 36 MB of nodes). root is consumed.
func decodeInPieces(root *yaml.Node, doc *openapi3.T) error {
	type piece struct {
		into    func() reflect.Value // the field the entries are decoded into
		mapping *yaml.Node
	}
	var pieces []piece
	if m := detach(root, "paths"); m != nil {
		pieces = append(pieces, piece{func() reflect.Value { return reflect.ValueOf(&doc.Paths).Elem() }, m})
	}
	if c := source.MappingValue(root, "components"); c != nil {
		// The sections, as the decoder reads them: not a key that names no field, nor
		// "-", which the decoder leaves out and kin-openapi keeps as an extension.
		t := reflect.TypeFor[openapi3.Components]()
		fields := decodedFields(t)
		for i := 0; i+1 < len(c.Content); i += 2 {
			key := c.Content[i].Value
			f, ok := fields[key]
			if !ok || t.Field(f).Type.Kind() != reflect.Map || strings.HasPrefix(key, "x-") {
				continue
			}
			if m := detach(c, key); m != nil {
				pieces = append(pieces, piece{func() reflect.Value { return reflect.ValueOf(doc.Components).Elem().Field(f) }, m})
			}
		}
	}
	if err := root.Decode(doc); err != nil {
		return err
	}
	for _, p := range pieces {
		if err := decodeEntries(p.mapping, p.into()); err != nil {
			return err
		}
	}
	return nil
}

// detach replaces the value of key in the mapping parent, when it is a mapping with
// entries all of different keys, by an empty one, and returns it; else nil.
func detach(parent *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(parent.Content); i += 2 {
		if parent.Content[i].Value != key {
			continue
		}
		m := parent.Content[i+1]
		if m.Kind != yaml.MappingNode || len(m.Content) < 2 {
			return nil
		}
		seen := make(map[string]bool, len(m.Content)/2)
		for j := 0; j+1 < len(m.Content); j += 2 {
			k := m.Content[j]
			if k.Kind != yaml.ScalarNode || seen[k.Value] {
				return nil // decoded whole, the decoder refuses it as it would
			}
			seen[k.Value] = true
		}
		empty := *m
		empty.Content = nil
		parent.Content[i+1] = &empty
		return m
	}
	return nil
}

// decodeEntries decodes the entries of m one at a time into into, a map or *Paths that
// holds what the empty mapping in m's place decoded into, and lets go of each once
// decoded.
func decodeEntries(m *yaml.Node, into reflect.Value) error {
	if into.Kind() == reflect.Map && into.IsNil() || into.Kind() == reflect.Pointer && into.IsNil() {
		return &errNotMirrored{"no value decoded for a mapping"}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		one := *m
		one.Content = m.Content[i : i+2]
		entry := reflect.New(into.Type())
		if err := one.Decode(entry.Interface()); err != nil {
			return err
		}
		switch dst := into.Interface().(type) {
		case *openapi3.Paths:
			src := entry.Elem().Interface().(*openapi3.Paths)
			for k, v := range src.Map() {
				dst.Set(k, v)
			}
			for k, v := range src.Extensions {
				if dst.Extensions == nil {
					dst.Extensions = map[string]any{}
				}
				dst.Extensions[k] = v
			}
		default:
			for it := entry.Elem().MapRange(); it.Next(); {
				into.SetMapIndex(it.Key(), it.Value())
			}
		}
		m.Content[i], m.Content[i+1] = nil, nil
	}
	m.Content = nil
	return nil
}

// nativeTree reports whether the tree is free of anchors, aliases and merge keys, and of
// the $refs that decodeTree leaves to kin-openapi. It looks at every "$ref" and
// discriminator mapping outside plain values (examples, defaults, extensions), so that a
// document the loader must read itself is not decoded first; the stamper still checks
// the $refs of the typed places as it records origins (stamper.checkRef, checkRefsOf),
// so what this walk misses costs time, never correctness.
func nativeTree(root *yaml.Node) bool {
	ok := true
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if !ok {
			return
		}
		if n.Kind == yaml.AliasNode || n.Anchor != "" || depth > 10000 {
			ok = false
			return
		}
		if n.Kind == yaml.MappingNode {
			if !nativeMapping(n) {
				ok = false
				return
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				if !plainValue(n.Content[i].Value) {
					walk(n.Content[i], depth+1)
					walk(n.Content[i+1], depth+1)
				} else if !free(n.Content[i+1]) {
					ok = false
					return
				}
			}
			return
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return ok
}

// plainValue reports whether the value of key is read as plain data, where a "$ref" is
// not a reference: an example, a default, a constant, an extension.
func plainValue(key string) bool {
	switch key {
	case "example", "value", "default", "const", "enum":
		return true
	}
	return strings.HasPrefix(key, "x-")
}

// free reports whether a plain value holds no anchor, alias or merge key.
func free(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return false
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			if isMergeKey(n.Content[i]) {
				return false
			}
		}
	}
	for _, c := range n.Content {
		if !free(c) {
			return false
		}
	}
	return true
}

// nativeMapping reports whether a mapping holds nothing decodeTree leaves to kin-openapi:
// a merge key; a $ref to another file or through plain values; a $ref beside fields that
// hold objects (a schema's keeps them where origins cannot be recorded); a discriminator
// mapping entry of that kind.
func nativeMapping(n *yaml.Node) bool {
	ref, objectBeside := false, false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case isMergeKey(k):
			return false
		case k.Value == "$ref" && v.Kind == yaml.ScalarNode: // not a property named $ref
			if !typedRef(v.Value) {
				return false
			}
			ref = true
		case k.Value == "mapping" && v.Kind == yaml.MappingNode:
			for j := 1; j < len(v.Content); j += 2 {
				if m := v.Content[j]; m.Kind == yaml.ScalarNode && strings.Contains(m.Value, "/") && !typedRef(m.Value) {
					return false
				}
			}
		case !strings.HasPrefix(k.Value, "x-") && (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode):
			objectBeside = true
		}
	}
	return !ref || !objectBeside
}

// isMergeKey reports whether k is a merge key ("<<" unquoted, or tagged !!merge).
func isMergeKey(k *yaml.Node) bool {
	return k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0 && (k.Tag == "" || k.Tag == "!!str")
}

var (
	docType = reflect.TypeFor[openapi3.T]()
)

// typedRef reports whether ref names a place in this document that kin-openapi's loader
// reaches through typed fields only (drillIntoField in its loader.go): not another file,
// not an extension, not a plain value.
func typedRef(ref string) bool {
	fragment, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	t := docType
	for part := range strings.SplitSeq(fragment, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		if part == "" {
			return false
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t {
		case schemaRefType:
			if part == "additionalProperties" {
				t = reflect.TypeFor[*openapi3.SchemaRef]()
				continue
			}
		case pathsType, callbackType, responsesType:
			if strings.HasPrefix(part, "x-") {
				return false // an extension, not an entry
			}
			if t == responsesType {
				t = reflect.TypeFor[map[string]*openapi3.ResponseRef]()
			} else {
				t = reflect.TypeFor[map[string]*openapi3.PathItem]()
			}
		}
		if t = typedStep(t, part); t == nil {
			return false
		}
	}
	return true
}

// typedStep returns the type of what part names in a value of type t, or nil when that
// is not a typed field, entry or item.
func typedStep(t reflect.Type, part string) reflect.Type {
	switch t.Kind() {
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return nil
		}
		return t.Elem()
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Interface {
			return nil
		}
		return t.Elem()
	case reflect.Struct:
		// The fields' index, kept by type: a $ref of many parts takes a map look-up
		// for each, not a scan of the struct's tags.
		if i, ok := taggedFields(t)[part]; ok && part != "" && t.Field(i).Tag.Get("yaml") != "-" {
			if f := t.Field(i); f.Type.Kind() != reflect.Interface {
				return f.Type
			}
			return nil
		}
		if index := valueFieldOf(t); index != nil {
			return typedStep(derefType(t.FieldByIndex(index).Type), part)
		}
	}
	return nil
}

// valueFieldOf returns the index of the Value field of a struct type (SchemaRef's and the
// like), kept by type as fieldByName keeps it; nil when it has none.
func valueFieldOf(t reflect.Type) []int {
	key := namedField{t, "Value"}
	index, ok := namedFields.Load(key)
	if !ok {
		f, found := t.FieldByName("Value")
		if !found {
			f.Index = nil
		}
		index, _ = namedFields.LoadOrStore(key, f.Index)
	}
	return index.([]int)
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// prepareTree readies the tree's scalars as kin-openapi's prepareScalars (native_yaml.go)
// readies its own before decoding: an application's own tag (!md) and a timestamp are
// read as strings, a mapping key as the text it is written as; infinity, NaN and a null
// key are refused (kin-openapi then refuses the text, saying where).
func prepareTree(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") || n.Tag == "!!timestamp" {
			n.Tag = "!!str"
		}
		if n.Tag == "!!float" {
			switch strings.ToLower(strings.TrimLeft(n.Value, "+-")) {
			case ".inf", ".nan":
				return errNotFinite
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Tag != "!!str" {
				if k.Tag == "!!null" {
					return errNullKey
				}
				k.Tag = "!!str"
			}
		}
	}
	for _, c := range n.Content {
		if err := prepareTree(c); err != nil {
			return err
		}
	}
	return nil
}

var (
	errNotFinite = &errNotMirrored{"infinity or NaN"}
	errNullKey   = &errNotMirrored{"a null key"}
)
