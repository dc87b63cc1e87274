package model

// Kind says what a Type expression is.
type Kind int

const (
	// KindBuiltin is a predeclared or standard-library type, named by Type.Builtin.
	KindBuiltin Kind = iota
	// KindNamed is a type declared in the generated package, Type.Decl.
	KindNamed
	// KindSlice is []Elem.
	KindSlice
	// KindMap is map[string]Elem.
	KindMap
	// KindPointer is *Elem.
	KindPointer
	// KindNullable is Nullable[Elem]: an optional property that may also be null,
	// so that absent, null and a value are three things the caller can say.
	KindNullable
)

// Builtin names a type the generated package does not declare.
type Builtin string

// The builtin types, spelled as generated code writes them.
const (
	String     Builtin = "string"
	Bool       Builtin = "bool"
	Int32      Builtin = "int32"
	Int64      Builtin = "int64"
	Float32    Builtin = "float32"
	Float64    Builtin = "float64"
	Any        Builtin = "any"             // a free-form JSON value
	Time       Builtin = "time.Time"       // format: date-time
	Date       Builtin = "Date"            // format: date, a civil date
	File       Builtin = "File"            // a multipart file part: name, content type, reader
	Bytes      Builtin = "[]byte"          // format: byte (base64 in JSON)
	RawJSON    Builtin = "json.RawMessage" // kept undecoded
	Reader     Builtin = "io.Reader"       // an upload: a binary body or multipart file
	ReadCloser Builtin = "io.ReadCloser"   // a binary response body, closed by the caller
	URL        Builtin = "*url.URL"        // a redirect's Location
)

// Type is a Go type expression in generated code.
type Type struct {
	Kind    Kind
	Builtin Builtin // KindBuiltin, e.g. Int64
	Decl    *Decl   // KindNamed
	Elem    *Type   // KindSlice, KindMap, KindPointer
}

// BuiltinType returns the type b.
func BuiltinType(b Builtin) *Type { return &Type{Kind: KindBuiltin, Builtin: b} }

// NamedType returns the type d declares.
func NamedType(d *Decl) *Type { return &Type{Kind: KindNamed, Decl: d} }

// SliceOf returns []elem.
func SliceOf(elem *Type) *Type { return &Type{Kind: KindSlice, Elem: elem} }

// MapOf returns map[string]elem.
func MapOf(elem *Type) *Type { return &Type{Kind: KindMap, Elem: elem} }

// PointerTo returns *elem.
func PointerTo(elem *Type) *Type { return &Type{Kind: KindPointer, Elem: elem} }

// NullableOf returns Nullable[elem].
func NullableOf(elem *Type) *Type { return &Type{Kind: KindNullable, Elem: elem} }

// String spells t as Go source would, e.g. "[]*Pet" or "map[string]time.Time".
func (t *Type) String() string {
	if t == nil {
		return "<nil>"
	}
	switch t.Kind {
	case KindBuiltin:
		return string(t.Builtin)
	case KindNamed:
		return t.Decl.GoName
	case KindSlice:
		return "[]" + t.Elem.String()
	case KindMap:
		return "map[string]" + t.Elem.String()
	case KindPointer:
		return "*" + t.Elem.String()
	case KindNullable:
		return "Nullable[" + t.Elem.String() + "]"
	}
	return "?"
}

// SameType reports whether a and b are one type: the same declaration for a named type,
// not the same name (names are decided after the types are built).
func SameType(a, b *Type) bool {
	for a != nil && b != nil {
		if a.Kind != b.Kind {
			return false
		}
		switch a.Kind {
		case KindBuiltin:
			return a.Builtin == b.Builtin
		case KindNamed:
			return a.Decl == b.Decl
		}
		a, b = a.Elem, b.Elem
	}
	return a == nil && b == nil
}

// Composite reports whether t names a struct or a union, through aliases.
func (t *Type) Composite() bool {
	for range 16 { // an alias cycle is not followed far
		if t.Kind != KindNamed {
			return false
		}
		switch t.Decl.Kind {
		case StructDecl, UnionDecl:
			return true
		case AliasDecl:
			if t = t.Decl.Underlying; t != nil {
				continue
			}
		}
		return false
	}
	return false
}

// Nilable reports whether the zero value of t is nil: pointers, slices, maps, any,
// json.RawMessage, []byte and the io interfaces. Named types that stand for each other
// in a cycle are nilable: the build stage makes them any.
func (t *Type) Nilable() bool {
	var seen []*Decl
	for t.Kind == KindNamed && (t.Decl.Kind == AliasDecl || t.Decl.Kind == DefinedDecl) {
		for _, d := range seen {
			if d == t.Decl {
				return true
			}
		}
		seen = append(seen, t.Decl)
		t = t.Decl.Underlying
	}
	switch t.Kind {
	case KindPointer, KindSlice, KindMap:
		return true
	case KindBuiltin:
		switch t.Builtin {
		case Any, RawJSON, Bytes, Reader, ReadCloser, URL:
			return true
		}
	}
	return false
}

// DeclKind says what a Decl declares.
type DeclKind int

const (
	// StructDecl: type Pet struct { ... } from an object schema (allOf merged).
	StructDecl DeclKind = iota
	// EnumDecl: type Status string, with a constant per value.
	EnumDecl
	// DefinedDecl: type Pets []Pet, a new named type over Underlying.
	DefinedDecl
	// AliasDecl: type Animal = Pet, for a component schema that only refers to another.
	AliasDecl
	// UnionDecl: a oneOf/anyOf. With a Discriminator it is a sum type with one pointer
	// field per variant; without, a raw-JSON wrapper with an As/Set accessor pair per
	// variant.
	UnionDecl
)

// Decl is a named type of the generated package.
type Decl struct {
	Kind       DeclKind
	GoName     string // e.g. "Pet", "ListPetsStatus", "CreateOrderRequest"
	Doc        string // the schema's description, possibly several lines
	Deprecated bool
	// Pointer is where the schema lives, e.g. "#/components/schemas/Pet"; it is shown in
	// the doc comment of types built from inline schemas.
	Pointer string

	// Fields are a StructDecl's fields in the spec's property order (sorted by wire name
	// when the spec's order is unknown).
	Fields []*Field
	// CustomJSON makes the struct marshal itself field by field, because a wire name
	// cannot be written in a json tag (it contains a comma, a quote, a backslash, or is
	// empty); such fields carry the tag `json:"-"`.
	CustomJSON bool

	// Underlying is the type an EnumDecl, DefinedDecl or AliasDecl stands for.
	Underlying *Type
	// Values are an EnumDecl's constants.
	Values []*EnumValue

	// Open reports an EnumDecl whose Values are the known ones, others allowed too (a
	// oneOf or anyOf of a string and a string enum).
	Open bool
	// Variants are a UnionDecl's alternatives.
	Variants []*Variant
	// Constructor names a UnionDecl's function that makes one of a value of a variant's
	// type, e.g. "NewTitle"; "" when no variant's type can stand in its type set.
	Constructor string
	// Discriminator is the wire name of the property that selects the variant, e.g.
	// "petType"; "" for a raw-JSON union.
	Discriminator string

	// ErrorModel gives the type an Error() string method, so that a decoded error body
	// is reachable with errors.As. The naming pass keeps fields and variants from being
	// called Error.
	ErrorModel bool
}

// Field is one field of a struct.
type Field struct {
	Name       string // the wire name, e.g. "pet_type"
	GoName     string // e.g. "PetType"
	Doc        string
	Deprecated bool
	Type       *Type // e.g. *string for an optional string
	Required   bool
	// Nullable reports that the property admits null: a required one is then sent as null
	// when it is nil, rather than as [] or {}.
	Nullable bool
	// JSONTag is the value of the json struct tag, e.g. "pet_type,omitzero", "-," for
	// the wire name "-", or "-" when CustomJSON marshals the field or for Additional.
	JSONTag string
	// OmitEmpty leaves the field out of the object when it is zero: nil, or an absent
	// wire.Nullable. An empty non-nil slice or map is still sent.
	OmitEmpty bool
	// ReadOnly properties are decoded from responses but never sent in requests.
	ReadOnly bool
	// Const is the value of a 3.1 const property (string, int64, float64 or bool), which
	// is filled in whenever the struct is sent; nil when the property has none.
	Const any
	// OneValue is the only value a required, non-nullable property's schema allows (an
	// enum of one value), written when the field is left zero; nil for other fields.
	OneValue any
	// Additional marks the map that holds the additional properties of an object whose
	// schema has both properties and additionalProperties: the members no other field
	// declares, kept on decode and written back on encode.
	Additional bool
	// ContentType is the Content-Type the spec's encoding gives a multipart part, e.g.
	// "image/png"; "" when it gives none or several.
	ContentType string
}

// NeedsMarshal reports whether d, a struct, needs a MarshalJSON of its own beyond what
// json tags can say: read-only, const or one-value properties, additional properties, or
// required arrays and maps that must be sent as [] or {} when nil.
func (d *Decl) NeedsMarshal() bool {
	for _, f := range d.Fields {
		if f.ReadOnly || f.Const != nil || f.OneValue != nil || f.Additional || f.FillEmpty() != nil {
			return true
		}
	}
	return false
}

// FillEmpty returns the slice or map type a required, non-nullable field holds, whose nil
// value is sent as [] or {}; nil for other fields.
func (f *Field) FillEmpty() *Type {
	if !f.Required || f.Nullable || f.Additional {
		return nil
	}
	t := f.Type
	for range 16 { // through aliases and defined types; a cycle is not followed far
		if t.Kind != KindNamed || t.Decl.Kind != AliasDecl && t.Decl.Kind != DefinedDecl || t.Decl.Underlying == nil {
			break
		}
		t = t.Decl.Underlying
	}
	// Multipart file parts are not JSON.
	if t.Kind == KindSlice && !(t.Elem.Kind == KindBuiltin && t.Elem.Builtin == File) || t.Kind == KindMap {
		return f.Type
	}
	return nil
}

// EnumValue is one constant of an enum.
type EnumValue struct {
	GoName string // e.g. "PetStatusAvailable", or "ChannelTypesGuildText" from a title
	Value  any    // string, int64, float64 or bool, e.g. "available"
	Doc    string // the description of a value written as a 3.1 const member, e.g. "a text channel"
}

// Variant is one alternative of a union.
type Variant struct {
	// GoName names the field of a sum type ("Cat") or the accessor pair of a raw union
	// ("AsCat", "SetCat" use "Cat").
	GoName string
	Type   *Type
	// Values are the discriminator values that select this variant, as JSON, e.g.
	// [`"cat"`], or [`1`] for an integer discriminator.
	Values []string
	// Send is the discriminator value the variant is written with when the caller's is
	// not one of Values, as JSON, e.g. `"cat"`: the spec's first value for it, which
	// another variant listed first may take on decode.
	Send string
	// FromText, when set, makes the union of this variant from a string alone: the
	// variant is a struct whose only required member that neither the discriminator nor a
	// constant fixes is a union with a string variant.
	FromText *FromText
}

// FromText is a function that makes a union of one of its variants from a string, e.g.
// UserMessage("Say hi") for a message union whose "user" variant needs only its content.
type FromText struct {
	// GoName names the function: the variant's discriminator value and the last word of
	// the union's name, e.g. "UserMessage".
	GoName string
	// Field is the variant's member the string goes in, e.g. Content; its type is a union.
	Field *Field
	// Text is the string variant of that member's union.
	Text *Variant
}
