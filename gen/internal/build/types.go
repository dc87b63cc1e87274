package build

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// This file turns schemas into Go types. A schema becomes a named type (a model.Decl)
// when it is a component, or when it needs declarations of its own: an object (a
// struct), an enum (constants), a oneOf/anyOf (a union). Arrays, maps and scalars met
// inline become type expressions. Inline named types are named after their place: the
// property "owner" of Pet gives PetOwner, the items of its array "tags" PetTag (see
// naming.go).

// shapeKind says what Go type a schema becomes.
type shapeKind int

const (
	shapeAny     shapeKind = iota // any
	shapeBuiltin                  // a scalar: string, int64, time.Time, ...
	shapeRef                      // whatever another schema (shape.ref) becomes
	shapeStruct                   // a struct, allOf merged
	shapeEnum                     // a named scalar with constants
	shapeSlice                    // []T
	shapeMap                      // map[string]T
	shapeUnion                    // a oneOf/anyOf of several variants
)

type shape struct {
	kind     shapeKind
	builtin  model.Builtin         // shapeBuiltin; the base type of shapeEnum
	ref      *openapi3.SchemaRef   // shapeRef
	variants []*openapi3.SchemaRef // shapeUnion, null variants left out
	values   []any                 // shapeEnum, converted to the base type
	open     bool                  // shapeEnum: other values are allowed too
	members  []enumMember          // shapeEnum written as alternatives: values[i]'s title and doc
}

// shapeOf decides what s becomes, without building anything.
func shapeOf(s *openapi3.Schema) shape {
	return shapeWithin(s, nil)
}

// shapeWithin is shapeOf for a schema reached through the allOf members of those in
// outer, which it does not enter again: schemas that are all of each other are any.
func shapeWithin(s *openapi3.Schema, outer []*openapi3.Schema) shape {
	// oneOf/anyOf: null variants make the value nullable; variants that only constrain
	// the parent (required lists and the like) are not alternatives.
	if len(s.Properties) == 0 {
		vs := alternatives(s)
		if len(vs) > 1 || len(vs) == 1 && vs[0].Ref == "" && vs[0].Value.Const != nil {
			// One member that is an enum or a $ref is that type; a const alone is a
			// scalar that would lose the member's title and the parent's format.
			if sh, ok := constEnum(s, vs); ok {
				return sh
			}
		}
		if len(vs) == 1 {
			return shape{kind: shapeRef, ref: vs[0]}
		} else if len(vs) > 1 {
			if allStrings(vs) {
				if values := stringValues(vs); len(values) > 0 {
					return shape{kind: shapeEnum, builtin: model.String, values: values, open: slices.ContainsFunc(vs, func(v *openapi3.SchemaRef) bool { return len(v.Value.Enum) == 0 })}
				}
				return shape{kind: shapeBuiltin, builtin: model.String}
			}
			return shape{kind: shapeUnion, variants: vs}
		}
	}
	if len(s.AllOf) > 0 {
		if len(s.AllOf) == 1 && len(s.Properties) == 0 && len(s.Enum) == 0 && s.AllOf[0] != nil && s.AllOf[0].Value != nil {
			return shape{kind: shapeRef, ref: s.AllOf[0]}
		}
		if hasProperties(s, map[*openapi3.Schema]bool{}) {
			return shape{kind: shapeStruct}
		}
		outer = append(outer, s)
		for _, m := range s.AllOf {
			if m != nil && m.Value != nil && !slices.Contains(outer, m.Value) && shapeWithin(m.Value, outer).kind != shapeAny {
				return shape{kind: shapeRef, ref: m}
			}
		}
	}
	types := nonNullTypes(s)
	if len(s.Enum) > 0 {
		if base, values := enumValues(s, types); len(values) > 0 {
			return shape{kind: shapeEnum, builtin: base, values: values}
		}
	}
	if len(types) > 1 {
		return shape{kind: shapeAny}
	}
	typ := ""
	if len(types) == 1 {
		typ = types[0]
	} else if s.Const != nil && len(s.Properties) == 0 && s.Items == nil {
		// A 3.1 const without a type has the type of its value.
		typ = constType(s.Const)
	}
	switch {
	case typ == "array" || typ == "" && s.Items != nil:
		return shape{kind: shapeSlice}
	case typ == "object" || typ == "" && (len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil):
		if len(s.Properties) > 0 {
			return shape{kind: shapeStruct}
		}
		return shape{kind: shapeMap}
	case typ == "string", typ == "integer", typ == "number", typ == "boolean":
		return shape{kind: shapeBuiltin, builtin: scalar(typ, s.Format)}
	}
	return shape{kind: shapeAny}
}

// docValue writes a default or const value for a doc comment, as JSON, cut after 120
// bytes.
func docValue(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return source.Describe(v)
	}
	if len(data) > 120 {
		n := 120
		for n > 0 && !utf8.RuneStart(data[n]) {
			n--
		}
		return string(data[:n]) + "…"
	}
	return string(data)
}

// constType is the JSON Schema type of a const value; "" for an object, array or null.
func constType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	}
	if _, ok := source.Int(v); ok {
		return "integer"
	}
	if _, ok := source.Float(v); ok {
		return "number"
	}
	return ""
}

// constValue converts a const to the scalar a field of type t holds (through named types),
// or returns nil when it has no such form: an object, an array, a date, a value of
// another type.
func constValue(v any, t *model.Type) any {
	for i := 0; t.Kind == model.KindNamed && i < 16; i++ {
		if t.Decl.Underlying == nil || t.Decl.Kind == model.StructDecl || t.Decl.Kind == model.UnionDecl {
			return nil
		}
		t = t.Decl.Underlying
	}
	if t.Kind != model.KindBuiltin {
		return nil
	}
	switch t.Builtin {
	case model.String:
		if s, ok := v.(string); ok {
			return s
		}
	case model.Bool:
		if b, ok := v.(bool); ok {
			return b
		}
	case model.Int32, model.Int64:
		if n, ok := source.Int(v); ok && (t.Builtin == model.Int64 || n >= math.MinInt32 && n <= math.MaxInt32) {
			return n
		}
	case model.Float32, model.Float64:
		if f, ok := source.Float(v); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
	return nil
}

// scalar maps a JSON Schema type and format to a Go type.
func scalar(typ, format string) model.Builtin {
	switch typ {
	case "string":
		switch format {
		case "date-time":
			return model.Time
		case "date":
			return model.Date
		case "byte":
			return model.Bytes
		}
		return model.String
	case "integer":
		if format == "int32" {
			return model.Int32
		}
		return model.Int64
	case "number":
		if format == "float" {
			return model.Float32
		}
		return model.Float64
	case "boolean":
		return model.Bool
	}
	return model.Any
}

// nonNullTypes lists the schema's types other than "null".
func nonNullTypes(s *openapi3.Schema) []string {
	if s.Type == nil {
		return nil
	}
	var out []string
	for _, t := range s.Type.Slice() {
		if t != "null" {
			out = append(out, t)
		}
	}
	return out
}

// alternatives returns the oneOf (else anyOf) variants that are real alternatives: not
// null, and not mere constraints on the parent.
func alternatives(s *openapi3.Schema) []*openapi3.SchemaRef {
	list := s.OneOf
	if len(list) == 0 {
		list = s.AnyOf
	}
	var out []*openapi3.SchemaRef
	for _, v := range list {
		if v == nil || v.Value == nil || isNullSchema(v.Value) || v.Ref == "" && constraintOnly(v.Value) {
			continue
		}
		out = append(out, v)
	}
	return out
}

func isNullSchema(s *openapi3.Schema) bool {
	if s.Type != nil && s.Type.Is("null") {
		return true
	}
	return len(s.Enum) == 1 && s.Enum[0] == nil
}

// constraintOnly reports a schema that says nothing about the type of a value, such as
// {required: [a]} inside a oneOf.
func constraintOnly(s *openapi3.Schema) bool {
	return (s.Type == nil || len(*s.Type) == 0) && len(s.Properties) == 0 && s.Items == nil &&
		len(s.Enum) == 0 && len(s.AllOf) == 0 && len(s.OneOf) == 0 && len(s.AnyOf) == 0 &&
		s.AdditionalProperties.Schema == nil && s.Const == nil
}

// allStrings reports variants that are all plain strings or string enums, which the
// client treats as one string.
func allStrings(vs []*openapi3.SchemaRef) bool {
	for _, v := range vs {
		s := v.Value
		if len(s.OneOf) > 0 || len(s.AnyOf) > 0 || len(s.AllOf) > 0 {
			return false
		}
		types := nonNullTypes(s)
		if len(types) != 1 || types[0] != "string" || scalar("string", s.Format) != model.String {
			return false
		}
	}
	return true
}

// stringValues lists the enum values of string variants vs, in order, each once: the
// known values of an open enum such as anyOf [string, enum [gpt-4o, ...]].
func stringValues(vs []*openapi3.SchemaRef) []any {
	var out []any
	seen := map[string]bool{}
	for _, v := range vs {
		for _, e := range v.Value.Enum {
			if s, ok := e.(string); ok && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// hasProperties reports whether s or its allOf members declare properties.
func hasProperties(s *openapi3.Schema, seen map[*openapi3.Schema]bool) bool {
	if seen[s] {
		return false
	}
	seen[s] = true
	if len(s.Properties) > 0 {
		return true
	}
	for _, m := range s.AllOf {
		if m != nil && m.Value != nil && hasProperties(m.Value, seen) {
			return true
		}
	}
	return false
}

// isNullable reports whether the schema admits null: nullable: true, a "null" type, or
// a null variant.
func isNullable(sr *openapi3.SchemaRef) bool {
	if sr == nil || sr.Value == nil {
		return true
	}
	s := sr.Value
	if s.Nullable || s.Type != nil && s.Type.Includes("null") {
		return true
	}
	for _, v := range append(slices.Clip(s.OneOf), s.AnyOf...) {
		if v != nil && v.Value != nil && isNullSchema(v.Value) {
			return true
		}
	}
	return slices.Contains(s.Enum, nil)
}

// enumValues converts the enum's values to its base type, dropping null, duplicates and
// values the type cannot hold exactly (such as NaN, or an integer beyond 2^53, which
// decoding may have rounded).
func enumValues(s *openapi3.Schema, types []string) (model.Builtin, []any) {
	typ := ""
	if len(types) == 1 {
		typ = types[0]
	}
	if typ == "" {
		for _, v := range s.Enum {
			if v == nil {
				continue
			}
			switch v.(type) {
			case string:
				typ = "string"
			case bool:
				typ = "boolean"
			default:
				typ = "number"
				if _, ok := source.Int(v); ok {
					typ = "integer"
				}
			}
			break
		}
	}
	base := scalar(typ, s.Format)
	if !hasConstants(base) {
		return base, nil
	}
	var out []any
	seen := map[any]bool{}
	for _, v := range s.Enum {
		if c, ok := enumConstant(base, v); ok && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return base, out
}

// hasConstants reports the base types an enum's values can be constants of.
func hasConstants(base model.Builtin) bool {
	switch base {
	case model.String, model.Bool, model.Int32, model.Int64, model.Float32, model.Float64:
		return true
	}
	return false
}

// enumConstant converts an enum value to a constant of base, when base holds it exactly.
func enumConstant(base model.Builtin, v any) (any, bool) {
	switch base {
	case model.String:
		if str, ok := v.(string); ok {
			return str, true
		}
	case model.Bool:
		if b, ok := v.(bool); ok {
			return b, true
		}
	case model.Int32, model.Int64:
		if n, ok := source.Int(v); ok && (base == model.Int64 || n >= math.MinInt32 && n <= math.MaxInt32) {
			return n, true
		}
	case model.Float32, model.Float64:
		if f, ok := source.Float(v); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
	}
	return nil, false
}

// warnDroppedEnumValues warns, located, about the values of an enum that have no
// constant because its type cannot hold them exactly (a string in an integer enum, an
// integer over 2^63): the type still accepts what the server sends.
func (b *builder) warnDroppedEnumValues(d *model.Decl, s *openapi3.Schema, base model.Builtin) {
	var dropped []string
	for _, v := range rawEnumValues(s) {
		if _, ok := enumConstant(base, v); !ok && v != nil {
			dropped = append(dropped, source.Describe(v))
		}
	}
	if len(dropped) == 0 {
		return
	}
	if len(dropped) > 5 {
		dropped = append(dropped[:5], fmt.Sprintf("and %d more", len(dropped)-5))
	}
	b.spec.Warnings.Add(&source.Error{
		Pos:     b.spec.Files.PosOf(s.Origin),
		Pointer: d.Pointer,
		Msg: fmt.Sprintf("enum %s: no constant for %s: a %s cannot hold them exactly",
			d.GoName, strings.Join(dropped, ", "), base),
	})
}

// typeOf returns the Go type of a schema met at a site, building what it needs.
func (b *builder) typeOf(sr *openapi3.SchemaRef, at site) *model.Type {
	if sr == nil || sr.Value == nil {
		return model.BuiltinType(model.Any)
	}
	if sr.Ref != "" {
		if t, ok := b.components[sr.Ref]; ok {
			return t
		}
		if t, ok := b.bySchema[sr.Value]; ok {
			return t
		}
		// A $ref to a place other than components/schemas: the target is built where it
		// is first met, named after the last step of the reference.
		return b.inline(sr.Value, refSite(sr.Ref))
	}
	return b.inline(sr.Value, at)
}

// inline returns the type of a schema that is not a component.
func (b *builder) inline(s *openapi3.Schema, at site) *model.Type {
	if t, ok := b.bySchema[s]; ok {
		return t
	}
	if b.building[s] {
		// A schema that contains itself without a named type in between.
		return model.BuiltinType(model.Any)
	}
	sh := shapeOf(s)
	switch sh.kind {
	case shapeRef:
		b.building[s] = true
		defer delete(b.building, s)
		return b.typeOf(sh.ref, at)
	case shapeBuiltin:
		return model.BuiltinType(sh.builtin)
	case shapeSlice:
		b.building[s] = true
		defer delete(b.building, s)
		return model.SliceOf(b.elemType(s.Items, at.items()))
	case shapeMap:
		b.building[s] = true
		defer delete(b.building, s)
		return model.MapOf(b.elemType(s.AdditionalProperties.Schema, at.values("values of the "+at.where)))
	case shapeStruct, shapeEnum, shapeUnion:
		// Schemas of one title and content, wherever the title names them, are one type.
		tt, named := b.titles[s]
		named = named && len(tt.name) <= len(at.name())
		if named {
			if one, ok := b.byTitle[tt.key]; ok {
				// Its name after the title is the first place's in sort order, not
				// the first place met.
				if cands := append([]string{tt.name}, at.names...); slices.Compare(cands, one.claim.cands[:len(one.claim.cands)-1]) < 0 {
					one.claim.cands = append(cands, at.name()+shapeWord(one.t.Decl.Kind))
				}
				b.bySchema[s] = one.t
				return one.t
			}
		}
		d, c := b.declare(at, s, sh)
		if named {
			b.byTitle[tt.key] = titleType{model.NamedType(d), c}
		}
		b.fill(d, s, sh)
		return model.NamedType(d)
	}
	return model.BuiltinType(model.Any)
}

// elemType is the type of array items or map values: a pointer when they may be null.
func (b *builder) elemType(sr *openapi3.SchemaRef, at site) *model.Type {
	if sr == nil || sr.Value == nil {
		return model.BuiltinType(model.Any)
	}
	t := b.typeOf(sr, at)
	if isNullable(sr) && !t.Nilable() {
		return model.PointerTo(t)
	}
	return t
}

// declare creates the named type a schema needs and registers it, before its contents are
// built, so that a schema that refers to itself finds it.
func (b *builder) declare(at site, s *openapi3.Schema, sh shape) (*model.Decl, *claim) {
	d := &model.Decl{
		Doc:        schemaDoc(s),
		Deprecated: s.Deprecated,
	}
	setKind(d, sh)
	first := ""
	if tt, ok := b.titles[s]; ok && len(tt.name) <= len(at.name()) {
		// The title names the type, and the places inside it; the place's own names
		// follow, for a type that another of the title takes it from.
		first = tt.name
		at.bases, at.step = append([]string{tt.name}, at.childBases()...), ""
	}
	if at.shapeAfter != "" && first == "" {
		// The places inside start as the type's first candidate does (CommitObjectTree).
		at.bases = append([]string{join(at.shapeAfter, shapeWord(d.Kind))}, at.childBases()...)
		at.step = ""
	}
	c := b.claimSite(d, at, first)
	b.bases[d] = at
	if d.Doc == "" {
		d.Doc = b.ref(d) + " is the type of the " + at.where + "."
	}
	b.decls = append(b.decls, d)
	b.bySchema[s] = model.NamedType(d)
	return d, c
}

// titleType is the one type of the schemas of a title and content, and the claim of its
// name.
type titleType struct {
	t     *model.Type
	claim *claim
}

func schemaDoc(s *openapi3.Schema) string {
	if s.Description != "" {
		return s.Description
	}
	return s.Title
}

// setKind sets the decl's kind from the shape, with a placeholder underlying type for
// slices and maps, so that Nilable answers correctly before the contents are built.
func setKind(d *model.Decl, sh shape) {
	switch sh.kind {
	case shapeStruct:
		d.Kind = model.StructDecl
	case shapeEnum:
		d.Kind = model.EnumDecl
		d.Underlying = model.BuiltinType(sh.builtin)
		d.Open = sh.open
	case shapeUnion:
		d.Kind = model.UnionDecl
	case shapeSlice:
		d.Kind = model.DefinedDecl
		d.Underlying = model.SliceOf(model.BuiltinType(model.Any))
	case shapeMap:
		d.Kind = model.DefinedDecl
		d.Underlying = model.MapOf(model.BuiltinType(model.Any))
	case shapeBuiltin:
		d.Kind = model.AliasDecl
		d.Underlying = model.BuiltinType(sh.builtin)
	case shapeAny:
		d.Kind = model.AliasDecl
		d.Underlying = model.BuiltinType(model.Any)
	case shapeRef:
		d.Kind = model.AliasDecl
		d.Underlying = model.BuiltinType(model.Any)
	}
}

// fill builds the contents of a struct, enum or union decl.
func (b *builder) fill(d *model.Decl, s *openapi3.Schema, sh shape) {
	if b.overgrown {
		return
	}
	switch sh.kind {
	case shapeStruct:
		if len(s.OneOf)+len(s.AnyOf) > 0 {
			kw := "oneOf"
			if len(s.OneOf) == 0 {
				kw = "anyOf"
			}
			b.spec.Warnings.Add(&source.Error{
				Pos:     b.spec.Files.PosOfField(s.Origin, kw),
				Pointer: d.Pointer,
				Msg:     fmt.Sprintf("%s beside properties is not turned into code: %s holds the properties only, and the alternatives' own fields are not decoded", kw, d.GoName),
				Fix:     "move the shared properties into each alternative (allOf), or the alternatives into properties",
			})
		}
		props, required := collectProperties(s)
		b.structFields(d, props, required, additionalProperties(s, map[*openapi3.Schema]bool{}), nil)
	case shapeEnum:
		b.warnDroppedEnumValues(d, s, sh.builtin)
		for i, v := range sh.values {
			ev := &model.EnumValue{Value: v} // named by nameEnumValues
			if sh.members != nil {
				ev.Doc = sh.members[i].doc
				if sh.members[i].title != "" {
					b.valueTitles[ev] = sh.members[i].title
				}
			}
			d.Values = append(d.Values, ev)
		}
	case shapeUnion:
		b.union(d, s, sh.variants)
	}
}

// collectProperties merges the properties and required lists of s and its allOf members;
// a later member's property replaces an earlier one's, and s's own come last.
func collectProperties(s *openapi3.Schema) (map[string]*openapi3.SchemaRef, map[string]bool) {
	props := map[string]*openapi3.SchemaRef{}
	required := map[string]bool{}
	var walk func(s *openapi3.Schema, seen map[*openapi3.Schema]bool)
	walk = func(s *openapi3.Schema, seen map[*openapi3.Schema]bool) {
		if seen[s] {
			return
		}
		seen[s] = true
		for _, m := range s.AllOf {
			if m != nil && m.Value != nil {
				walk(m.Value, seen)
			}
		}
		for name, p := range s.Properties {
			props[name] = p
		}
		for _, r := range s.Required {
			required[r] = true
		}
	}
	walk(s, map[*openapi3.Schema]bool{})
	return props, required
}

// structFields builds the fields of a struct, sorted by wire name. In a multipart body,
// binary properties become wire.File parts, with the Content-Type encoding gives them.
// additional is the schema of the additionalProperties beside the properties (nil for
// none, a SchemaRef without a value for `true`).
func (b *builder) structFields(d *model.Decl, props map[string]*openapi3.SchemaRef, required map[string]bool, additional *openapi3.SchemaRef, encoding map[string]*openapi3.Encoding) {
	if !b.grow(len(props), d) {
		return
	}
	fields := names.NewExportedNamer("MarshalJSON", "UnmarshalJSON")
	multipart := encoding != nil
	wire := source.SortedKeys(props)
	goNames := fieldNames(fields, wire)
	for i, name := range wire {
		f := &model.Field{Name: name, GoName: goNames[i], Required: required[name]}
		b.structField(d, f, props[name], encoding)
		d.Fields = append(d.Fields, f)
	}
	if additional != nil && !multipart {
		elem := model.BuiltinType(model.Any)
		if additional.Value != nil {
			in := b.inside(d)
			elem = b.elemType(additional, site{names: in.childBases()}.values("additional properties of "+b.ref(d)))
		}
		d.Fields = append(d.Fields, &model.Field{
			GoName:     grant(fields, [][]string{{"AdditionalProperties", "UndeclaredProperties"}}, []string{"additional properties"})[0],
			Doc:        "AdditionalProperties holds the properties the schema does not declare: kept when read, written back when sent.",
			Type:       model.MapOf(elem),
			JSONTag:    "-",
			Additional: true,
		})
	}
}

// fieldNames names the fields of the properties wire in the scope of fields: each after
// its property, and properties that spell one name with the signs before digits and the
// letter case in words ("+1" and "-1" are Plus1 and Minus1, "id" and "ID" are ID and
// IDUpper), then with Property, for a name the struct's methods hold.
func fieldNames(fields *names.Namer, wire []string) []string {
	plain := make([]string, len(wire))
	for i, name := range wire {
		plain[i] = names.GoName(name)
	}
	if distinct(plain) && !slices.ContainsFunc(plain, fields.Taken) { // the common case
		for i, name := range plain {
			plain[i] = fields.UniqueFor(name, "property "+strconv.Quote(wire[i]))
		}
		return plain
	}
	signed := slices.Clone(plain)
	for i, name := range wire {
		if signedDigit(name) {
			signed[i] = names.GoName(spellSigns(name))
		}
	}
	cases := caseWords(wire, signed)
	return grantBy(fields, len(wire), func(i int) string { return "property " + strconv.Quote(wire[i]) }, func(i, rank int) (string, bool) {
		switch rank {
		case 0, 4:
			return plain[i], true
		case 1:
			return signed[i], true
		case 2:
			return signed[i] + cases[i], true
		case 3:
			return plain[i] + "Property", true
		}
		return "", false
	})
}

// structField fills in f, the field of d for the property f.Name of schema p, once
// named: its type, the part's Content-Type in a multipart body (encoding not nil), its
// documentation and its JSON tag.
func (b *builder) structField(d *model.Decl, f *model.Field, p *openapi3.SchemaRef, encoding map[string]*openapi3.Encoding) {
	multipart := encoding != nil
	var t *model.Type
	switch {
	case multipart && isBinary(p):
		t = model.BuiltinType(model.File)
	case multipart && p != nil && p.Value != nil && p.Value.Items != nil && isBinary(p.Value.Items):
		t = model.SliceOf(model.BuiltinType(model.File))
	default:
		t = b.typeOf(p, b.inside(d).member(names.GoName(f.Name), "property "+strconv.Quote(f.Name)+" of "+b.ref(d)))
	}
	if multipart {
		if enc := encoding[f.Name]; enc != nil && !strings.ContainsAny(enc.ContentType, ",*") {
			f.ContentType = strings.TrimSpace(enc.ContentType)
		}
	}
	if p != nil && p.Value != nil {
		describeField(f, p.Value, t, multipart)
	}
	f.Nullable = isNullable(p)
	if f.Required && !f.Nullable && f.Const == nil && p != nil && p.Value != nil && !multipart {
		if f.OneValue = oneValue(p.Value, t); f.OneValue != nil {
			f.Doc = strings.TrimSpace(f.Doc + "\n\nThe schema allows " + docValue(f.OneValue) + " only: filled in when sent empty.")
		}
	}
	f.Type = presenceType(f, t)
	f.OmitEmpty = !f.Required
	var custom bool
	f.JSONTag, custom = jsonTag(f.Name, f.OmitEmpty)
	if custom {
		d.CustomJSON = true
	}
}

// describeField sets what the property schema v says of f beside its type: its doc, with
// notes on a const or default value and on reading or writing only, whether it is
// deprecated or read-only (never in a multipart body), and the const value, of type t.
func describeField(f *model.Field, v *openapi3.Schema, t *model.Type, multipart bool) {
	f.Doc = schemaDoc(v)
	f.Deprecated = v.Deprecated
	f.ReadOnly = v.ReadOnly && !multipart
	if v.Const != nil {
		f.Const = constValue(v.Const, t)
	}
	var notes []string
	switch {
	case f.Const != nil:
		notes = append(notes, "Always "+docValue(v.Const)+": filled in when sent.")
	case v.Default != nil:
		notes = append(notes, "Default: "+docValue(v.Default)+".")
	}
	switch {
	case f.ReadOnly:
		notes = append(notes, "Read-only: set by the server, never sent.")
	case v.WriteOnly:
		notes = append(notes, "Write-only: sent, but responses need not hold it.")
	}
	if len(notes) > 0 {
		f.Doc = strings.TrimSpace(f.Doc + "\n\n" + strings.Join(notes, " "))
	}
}

// oneValue returns the only value the schema s allows, as a field of type t holds it: the
// value of an enum of one value (null aside); nil for a schema that allows more.
func oneValue(s *openapi3.Schema, t *model.Type) any {
	var only []any
	for _, v := range s.Enum {
		if v != nil {
			only = append(only, v)
		}
	}
	if len(only) != 1 {
		return nil
	}
	return constValue(only[0], t)
}

// presenceType is the type of field f whose property has type t. It says which of absent,
// null and a value the caller can send: an optional property is a pointer (or a nil-able
// type) tagged omitzero, so that an empty slice or map is still sent; an optional
// nullable one is a wire.Nullable; a required nullable one a pointer that is sent as null
// when nil. A const property is always sent with its value.
func presenceType(f *model.Field, t *model.Type) *model.Type {
	switch {
	case f.Const != nil:
	case !f.Required && f.Nullable:
		if isStructOrUnion(t) {
			t = model.PointerTo(t)
		}
		t = model.NullableOf(t)
	case !t.Nilable():
		if !f.Required || f.Nullable {
			t = model.PointerTo(t)
		}
	}
	return t
}

// jsonTag is the json tag of the property name, with omitzero when it is optional. It is
// "-" with custom true when encoding/json cannot spell the name, and the struct marshals
// that field itself.
func jsonTag(name string, optional bool) (tag string, custom bool) {
	if name != "-" && !ValidTagName(name) {
		return "-", true
	}
	switch {
	case optional:
		return name + ",omitzero", false
	case name == "-":
		return "-,", false
	}
	return name, false
}

// additionalProperties returns the additionalProperties schema of s or its allOf members
// (a SchemaRef without a value for `true`), or nil when extra properties are not allowed
// or not said to be.
func additionalProperties(s *openapi3.Schema, seen map[*openapi3.Schema]bool) *openapi3.SchemaRef {
	if seen[s] {
		return nil
	}
	seen[s] = true
	if s.AdditionalProperties.Schema != nil && s.AdditionalProperties.Schema.Value != nil {
		return s.AdditionalProperties.Schema
	}
	if has := s.AdditionalProperties.Has; has != nil && *has {
		return &openapi3.SchemaRef{}
	}
	for _, m := range s.AllOf {
		if m != nil && m.Value != nil {
			if a := additionalProperties(m.Value, seen); a != nil {
				return a
			}
		}
	}
	return nil
}

func isBinary(sr *openapi3.SchemaRef) bool {
	if sr == nil || sr.Value == nil {
		return false
	}
	t := nonNullTypes(sr.Value)
	return len(t) == 1 && t[0] == "string" && sr.Value.Format == "binary"
}

// ValidTagName reports whether encoding/json accepts name as the name in a json tag.
func ValidTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// enumSuffix names an enum value after its type's name: "available" → "Available",
// "1st" → "1st", -1 → "Minus1", "" → "Empty".
func enumSuffix(v any) string {
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case int64:
		s = strconv.FormatInt(v, 10)
	case float64:
		// 1.5 is Value1Point5, not Value15.
		s = strings.Replace(strconv.FormatFloat(v, 'f', -1, 64), ".", "Point", 1)
	case bool:
		s = strconv.FormatBool(v)
	}
	prefix := ""
	if strings.HasPrefix(s, "-") {
		if _, isString := v.(string); !isString {
			prefix = "Minus"
		}
	}
	name := names.GoName(s)
	if first, _ := utf8.DecodeRuneInString(firstWord(s)); unicode.IsDigit(first) {
		name = strings.TrimPrefix(name, "X")
	}
	return prefix + name
}

// union builds a oneOf/anyOf: a sum type when a discriminator selects among object
// variants, else a raw-JSON union with accessors.
func (b *builder) union(d *model.Decl, s *openapi3.Schema, variants []*openapi3.SchemaRef) {
	var labels [][]string
	seen := map[string]bool{}
	discriminated := s.Discriminator != nil && s.Discriminator.PropertyName != ""
	var mapping map[string][]string
	if discriminated {
		mapping = mappingByTarget(s.Discriminator)
	}
	for i, v := range variants {
		label := ""
		if v.Ref == "" {
			label = inlineVariantLabel(v.Value)
		}
		at := b.inside(d).variant(label, i, "variant "+strconv.Itoa(i+1)+" of "+b.ref(d))
		t := b.typeOf(v, at)
		if seen[typeKey(t)] {
			continue
		}
		seen[typeKey(t)] = true
		labels = append(labels, b.variantLabels(label, t, i))
		mv := &model.Variant{Type: t}
		if discriminated {
			if !isObject(t) || v.Ref == "" {
				discriminated = false
			} else {
				mv.Values = discriminatorJSON(s.Discriminator.PropertyName, v.Value, discriminatorValues(s.Discriminator.PropertyName, mapping, v))
				mv.Send = mv.Values[0]
			}
		}
		d.Variants = append(d.Variants, mv)
	}
	owners := make([]string, len(labels))
	for i := range owners {
		owners[i] = "variant " + strconv.Itoa(i+1)
	}
	for i, name := range grant(names.NewExportedNamer("Raw", "MarshalJSON", "UnmarshalJSON"), labels, owners) {
		d.Variants[i].GoName = name
	}
	if discriminated {
		d.Discriminator = s.Discriminator.PropertyName
		// A value selects one variant only: the first that claims it.
		taken := map[string]bool{}
		for _, v := range d.Variants {
			var keep []string
			for _, val := range v.Values {
				if !taken[val] {
					taken[val] = true
					keep = append(keep, val)
				}
			}
			v.Values = keep
		}
	} else {
		for _, v := range d.Variants {
			v.Values = nil
		}
	}
}

// variantLabels are the candidates of the name of the i-th variant of a union, of type
// t, labelled label by its title or shape ("" for none): the label, else the type's name;
// then, for variants with one label, the type's name where it is decided already (the
// titles "array" of []string and [][]int64 are StringList and Int64ListList), then the
// variant's place and its label (SecondObject), as the variant's type is named.
func (b *builder) variantLabels(label string, t *model.Type, i int) []string {
	if label == "" {
		return []string{variantLabel(t)}
	}
	cands := []string{label, label}
	if b.namedAlready(t) {
		cands[1] = variantLabel(t)
	}
	if i < len(ordinals) {
		cands = append(cands, ordinals[i]+label)
	}
	return cands
}

// namedAlready reports a type whose name, and those of the types it is made of, are
// decided before the names of the types made in place: a builtin, a component, and
// slices and maps of them.
func (b *builder) namedAlready(t *model.Type) bool {
	switch t.Kind {
	case model.KindBuiltin:
		return true
	case model.KindSlice, model.KindMap, model.KindPointer:
		return b.namedAlready(t.Elem)
	case model.KindNamed:
		key, ok := strings.CutPrefix(t.Decl.Pointer, "#/components/schemas/")
		c := b.components["#/components/schemas/"+source.UnescapePointer(key)]
		return ok && c != nil && c.Decl == t.Decl
	}
	return false
}

// isObject reports a type that is a struct (through aliases).
func isObject(t *model.Type) bool { return declKind(t) == model.StructDecl }

// declKind is the kind of the declaration t names, through aliases; -1 when t names none.
func declKind(t *model.Type) model.DeclKind {
	for t.Kind == model.KindNamed {
		if t.Decl.Kind != model.AliasDecl {
			return t.Decl.Kind
		}
		t = t.Decl.Underlying
	}
	return -1
}

// mappingByTarget inverts a discriminator's mapping: the values that name each schema
// reference, in order.
func mappingByTarget(disc *openapi3.Discriminator) map[string][]string {
	out := make(map[string][]string, len(disc.Mapping))
	for _, key := range source.SortedKeys(disc.Mapping) {
		target := disc.Mapping[key].Ref
		if !strings.Contains(target, "/") {
			target = "#/components/schemas/" + source.EscapePointer(target) // a bare schema name
		}
		target = unescapeFragment(target)
		out[target] = append(out[target], key)
	}
	return out
}

// unescapeFragment undoes the percent-encoding of the fragment of the reference ref (a
// JSON pointer in a URI fragment, RFC 6901 section 6), so that "#/components/schemas/D%6Fg"
// and "#/components/schemas/Dog" compare equal.
func unescapeFragment(ref string) string {
	base, fragment, ok := strings.Cut(ref, "#")
	if !ok {
		return ref
	}
	if f, err := url.PathUnescape(fragment); err == nil {
		fragment = f
	}
	return base + "#" + fragment
}

// discriminatorJSON writes the discriminator values of a variant as JSON, of the type
// the variant's discriminator property has: numbers for an integer or number property,
// true or false for a boolean one, strings for any other (a mapping key is always a
// string in the spec). A key the property's type cannot hold stays a string.
func discriminatorJSON(property string, variant *openapi3.Schema, values []string) []string {
	kind := ""
	if variant != nil {
		props, _ := collectProperties(variant)
		if p := props[property]; p != nil && p.Value != nil && p.Value.Type != nil {
			if types := nonNullTypes(p.Value); len(types) == 1 {
				kind = types[0]
			}
		}
	}
	out := make([]string, 0, len(values))
	for _, v := range values {
		switch {
		case (kind == "integer" || kind == "number") && json.Valid([]byte(v)) && strings.IndexAny(v[:1], "-0123456789") == 0:
			out = append(out, v)
		case kind == "boolean" && (v == "true" || v == "false"):
			out = append(out, v)
		default:
			data, _ := json.Marshal(v)
			out = append(out, string(data))
		}
	}
	return out
}

// discriminatorValues lists the values that select variant v, the one to write first: the
// values mapping gives it (see mappingByTarget); else, when the variant's own
// discriminator property allows one value (a single-value enum or a const), that value,
// as no other can be sent with it, then the component's name (the implicit mapping); else
// the component's name and the values the property allows, which real APIs send.
func discriminatorValues(property string, mapping map[string][]string, v *openapi3.SchemaRef) []string {
	if keys := mapping[unescapeFragment(v.Ref)]; len(keys) > 0 {
		return slices.Clone(keys)
	}
	ref := v.Ref
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		ref = ref[i+1:]
	}
	name := source.UnescapePointer(ref)
	var allowed []string
	props, _ := collectProperties(v.Value)
	if p := props[property]; p != nil && p.Value != nil {
		for _, e := range append(slices.Clip(p.Value.Enum), p.Value.Const) {
			if str, ok := scalarText(e); ok && !slices.Contains(allowed, str) {
				allowed = append(allowed, str)
			}
		}
	}
	if len(allowed) == 1 && allowed[0] != name {
		return []string{allowed[0], name}
	}
	out := []string{name}
	for _, a := range allowed {
		if a != name {
			out = append(out, a)
		}
	}
	return out
}

// scalarText returns a string, integer or boolean enum value as a mapping key writes it.
func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	}
	if n, ok := source.Int(v); ok {
		return strconv.FormatInt(n, 10), true
	}
	return "", false
}

// inlineVariantLabel names a union variant written inline, after its title or its shape:
// "Object", "Empty" for the enum [""] (Stripe's way to unset a field), "Enum", "Union";
// "" for the shapes variantLabel names after their type.
func inlineVariantLabel(s *openapi3.Schema) string {
	if s.Title != "" {
		return names.GoName(s.Title)
	}
	switch sh := shapeOf(s); sh.kind {
	case shapeStruct:
		if v := fixedValue(s); v != "" {
			return v
		}
		return "Object"
	case shapeEnum:
		if len(sh.values) == 1 {
			return enumSuffix(sh.values[0])
		}
		return "Enum"
	case shapeUnion:
		return "Union"
	}
	return ""
}

// fixedValue names an object variant after the one value a property of it allows (a
// string const, or an enum of one string), the first such property by name: the
// {"event": "thread.message.created", ...} variant is ThreadMessageCreated. It returns ""
// for an object without one.
func fixedValue(s *openapi3.Schema) string {
	props, _ := collectProperties(s)
	for _, name := range source.SortedKeys(props) {
		p := props[name]
		if p == nil || p.Value == nil {
			continue
		}
		var only []any
		for _, v := range p.Value.Enum {
			if v != nil {
				only = append(only, v)
			}
		}
		if p.Value.Const != nil {
			only = append(only[:0], p.Value.Const)
		}
		if len(only) != 1 {
			continue
		}
		if str, ok := only[0].(string); ok && len(names.Words(str)) > 0 {
			return names.GoName(str)
		}
	}
	return ""
}

// variantLabel names a union variant after its type: Pet, String, Int64, PetList.
func variantLabel(t *model.Type) string {
	switch t.Kind {
	case model.KindNamed:
		return t.Decl.GoName
	case model.KindSlice:
		return variantLabel(t.Elem) + "List"
	case model.KindMap:
		return variantLabel(t.Elem) + "Map"
	case model.KindPointer:
		return variantLabel(t.Elem)
	}
	switch t.Builtin {
	case model.Time:
		return "Time"
	case model.Bytes:
		return "Bytes"
	case model.RawJSON:
		return "JSON"
	case model.Reader, model.ReadCloser:
		return "Reader"
	}
	return names.GoName(string(t.Builtin))
}

// markErrorModel gives the named type behind t an Error method and returns the type to
// decode an error body into. A type without a name of its own gets one, named place.
func (b *builder) markErrorModel(t *model.Type, key *openapi3.Schema, at site) *model.Type {
	d := t.Decl
	if t.Kind == model.KindNamed {
		for d.Kind == model.AliasDecl && d.Underlying.Kind == model.KindNamed {
			d = d.Underlying.Decl
		}
		if d.Kind == model.AliasDecl {
			// An alias cannot carry methods: make it a defined type.
			d.Kind = model.DefinedDecl
		}
	} else {
		if w, ok := b.errorWrappers[key]; ok {
			return w
		}
		d = &model.Decl{
			Kind:       model.DefinedDecl,
			Underlying: t,
		}
		b.claimSite(d, at, "")
		d.Doc = b.ref(d) + " is the type of the " + at.where + "."
		b.decls = append(b.decls, d)
		w := model.NamedType(d)
		b.errorWrappers[key] = w
		t = w
	}
	if !d.ErrorModel {
		d.ErrorModel = true
		taken := map[string]bool{}
		for _, f := range d.Fields {
			taken[f.GoName] = true
		}
		for _, v := range d.Variants {
			taken[v.GoName] = true
		}
		rename := func(name string) string {
			if name != "Error" {
				return name
			}
			cand := "ErrorValue"
			for i := 2; taken[cand]; i++ {
				cand = fmt.Sprintf("ErrorValue%d", i)
			}
			taken[cand] = true
			return cand
		}
		for _, f := range d.Fields {
			f.GoName = rename(f.GoName)
		}
		if d.Discriminator != "" {
			for _, v := range d.Variants {
				v.GoName = rename(v.GoName)
			}
		}
	}
	return t
}

// breakNamedCycles finds aliases and defined types that stand for each other
// (A: allOf [B], B: oneOf [A]) — Go has no such types — and makes each of them any.
func breakNamedCycles(decls []*model.Decl) {
	named := func(d *model.Decl) *model.Decl {
		if (d.Kind == model.AliasDecl || d.Kind == model.DefinedDecl) && d.Underlying != nil && d.Underlying.Kind == model.KindNamed {
			return d.Underlying.Decl
		}
		return nil
	}
	for _, d := range decls {
		seen := map[*model.Decl]bool{}
		for n := d; n != nil; n = named(n) {
			if !seen[n] {
				seen[n] = true
				continue
			}
			// n is on a cycle: every decl on it becomes any.
			for c := n; ; {
				next := named(c)
				c.Underlying = model.BuiltinType(model.Any)
				if next == n {
					break
				}
				c = next
			}
			break
		}
	}
}

// isStructOrUnion reports a named struct or union (through aliases). A Nullable holds one
// by pointer: the methods of Nullable are then compiled once for every such type (all
// pointers share one shape) instead of once per type, a fifth of stripe.yaml's client.
func isStructOrUnion(t *model.Type) bool {
	k := declKind(t)
	return k == model.StructDecl || k == model.UnionDecl
}

// breakCycles makes a struct field a pointer where structs would otherwise contain
// themselves by value (A{B} and B{A}), which Go rejects.
func breakCycles(decls []*model.Decl) {
	const (
		unvisited = iota
		visiting
		done
	)
	state := map[*model.Decl]int{}
	var visit func(d *model.Decl)
	valueStruct := func(t *model.Type) *model.Decl {
		for t.Kind == model.KindNamed {
			switch t.Decl.Kind {
			case model.StructDecl:
				return t.Decl
			case model.AliasDecl:
				t = t.Decl.Underlying
				continue
			}
			return nil
		}
		return nil
	}
	visit = func(d *model.Decl) {
		state[d] = visiting
		for _, f := range d.Fields {
			t := f.Type
			if t.Kind == model.KindNullable {
				t = t.Elem // a wire.Nullable holds its value
			}
			next := valueStruct(t)
			if next == nil {
				continue
			}
			switch state[next] {
			case visiting:
				if f.Type.Kind == model.KindNullable {
					f.Type = model.NullableOf(model.PointerTo(t))
				} else {
					f.Type = model.PointerTo(f.Type)
				}
			case unvisited:
				visit(next)
			}
		}
		state[d] = done
	}
	for _, d := range decls {
		if d.Kind == model.StructDecl && state[d] == unvisited {
			visit(d)
		}
	}
}
