package emit

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/model"
)

// typ renders a type expression.
func typ(t *model.Type) *jen.Statement {
	switch t.Kind {
	case model.KindNamed:
		return jen.Id(t.Decl.GoName)
	case model.KindSlice:
		return jen.Index().Add(typ(t.Elem))
	case model.KindMap:
		return jen.Map(jen.String()).Add(typ(t.Elem))
	case model.KindPointer:
		return jen.Op("*").Add(typ(t.Elem))
	case model.KindNullable:
		return jen.Id("Nullable").Types(typ(t.Elem))
	}
	switch t.Builtin {
	case model.Time:
		return jen.Qual(timePath, "Time")
	case model.Date:
		return jen.Id("Date")
	case model.File:
		return jen.Id("File")
	case model.RawJSON:
		return jen.Qual(jsonPath, "RawMessage")
	case model.Reader:
		return jen.Qual(ioPath, "Reader")
	case model.ReadCloser:
		return jen.Qual(ioPath, "ReadCloser")
	case model.URL:
		return jen.Op("*").Qual(urlPath, "URL")
	case model.Bytes:
		return jen.Index().Byte()
	case model.Any:
		return jen.Any()
	}
	return jen.Id(string(t.Builtin))
}

// decl renders a named type with its doc comment, constants and methods.
func (e *emitter) decl(d *model.Decl) *jen.Statement {
	var dc doc
	dc.para(d.Doc)
	if d.Pointer != "" && d.Doc == "" {
		dc.para(d.GoName + " is the schema at " + d.Pointer + ".")
	}
	if d.Deprecated {
		dc.para("Deprecated: the API description marks this schema as deprecated.")
	}
	s := dc.code()
	switch d.Kind {
	case model.StructDecl:
		codec := !d.CustomJSON && d.NeedsMarshal()
		first := noCompareField()
		if codec {
			first.Tag(map[string]string{"wire": "object"})
		}
		s.Type().Id(d.GoName).Struct(append([]jen.Code{first}, fieldList(d.Fields, codec)...)...)
		switch {
		case d.CustomJSON:
			s.Line().Line().Add(customJSON(d))
		case codec:
			s.Line().Line().Add(objectJSON(d))
		}
	case model.EnumDecl:
		s.Type().Id(d.GoName).Add(typ(d.Underlying))
		if len(d.Values) > 0 {
			what := "Values of " + d.GoName + "."
			if d.Open {
				what = "Known values of " + d.GoName + "; it takes others too."
			}
			s.Line().Line().Add(docLine(what))
			s.Const().DefsFunc(func(g *jen.Group) {
				for _, v := range d.Values {
					var dc doc
					dc.para(v.Doc)
					g.Add(dc.code()).Id(v.GoName).Id(d.GoName).Op("=").Add(constLit(v.Value))
				}
			})
		}
	case model.DefinedDecl:
		s.Type().Id(d.GoName).Add(typ(d.Underlying))
	case model.AliasDecl:
		s.Type().Id(d.GoName).Op("=").Add(typ(d.Underlying))
	case model.UnionDecl:
		s.Add(unionStruct(d))
		if c := unionConstructor(d); c != nil && d.Constructor != "" {
			s.Line().Line().Add(c)
		}
		for _, v := range d.Variants {
			if v.FromText != nil {
				s.Line().Line().Add(textConstructor(d, v))
			}
		}
	}
	if d.ErrorModel {
		s.Line().Line().Add(docLine("Error returns the error model as JSON on one line, cut short, so that it can be returned as an error."))
		s.Func().Params(jen.Id("v").Id(d.GoName)).Id("Error").Params().String().Block(
			jen.Return(jen.Qual(wirePath, "ErrorText").Call(jen.Id("v"))),
		)
		// func (v Problem) As(target any) bool { ... }: errors.As(err, &p) works with a
		// Problem as well as a *Problem.
		s.Line().Line().Add(docLine("As lets errors.As fill a " + d.GoName + " value as well as a *" + d.GoName + "."))
		s.Func().Params(jen.Id("v").Id(d.GoName)).Id("As").Params(jen.Id("target").Any()).Bool().Block(
			jen.List(jen.Id("t"), jen.Id("ok")).Op(":=").Id("target").Assert(jen.Op("*").Id(d.GoName)),
			jen.If(jen.Id("ok")).Block(jen.Op("*").Id("t").Op("=").Id("v")),
			jen.Return(jen.Id("ok")),
		)
	}
	return s.Line()
}

// noCompareField renders the `_ noCompare` field that keeps a struct from being
// comparable. It comes first, where a zero-size field takes no space.
func noCompareField() *jen.Statement { return jen.Id("_").Id("noCompare") }

// constLit renders an enum value; integers are written bare so that they take the
// constant's type.
func constLit(v any) jen.Code {
	switch v := v.(type) {
	case int64:
		return jen.Op(strconv.FormatInt(v, 10))
	case float64:
		return jen.Lit(v)
	case bool:
		return jen.Lit(v)
	case string:
		return jen.Lit(v)
	}
	return jen.Lit("")
}

// fieldList renders struct fields with their doc comments and json tags; with codec, also
// the tags that tell runtime/wire's codec what is sent (see wire.Marshal): `wire:"readonly"`,
// `wire:"additional"`, `const:"JSON"` and `fill:"JSON"` for a zero value.
func fieldList(fields []*model.Field, codec bool) []jen.Code {
	out := make([]jen.Code, 0, len(fields))
	for _, f := range fields {
		var dc doc
		dc.para(f.Doc)
		if f.Deprecated {
			dc.para("Deprecated: the API description marks this property as deprecated.")
		}
		s := dc.code().Id(f.GoName).Add(typ(f.Type))
		tags := map[string]string{}
		if f.JSONTag != "" {
			tags["json"] = f.JSONTag
		}
		if codec {
			codecTags(f, tags)
		}
		if len(tags) > 0 {
			s.Tag(tags)
		}
		out = append(out, s)
	}
	return out
}

// codecTags adds to tags what the codec needs to know of field f.
func codecTags(f *model.Field, tags map[string]string) {
	switch {
	case f.Additional:
		tags["wire"] = "additional"
	case f.ReadOnly:
		tags["wire"] = "readonly"
	}
	if f.Const != nil {
		tags["const"] = jsonText(f.Const)
	}
	if f.OneValue != nil {
		tags["fill"] = jsonText(f.OneValue)
	}
	if t := f.FillEmpty(); t != nil {
		tags["fill"] = "[]"
		if resolved(t).Kind == model.KindMap {
			tags["fill"] = "{}"
		}
	}
}

// jsonText is the JSON of a scalar const or enum value.
func jsonText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(data)
}

// resolved is t through aliases and defined types.
func resolved(t *model.Type) *model.Type {
	for range 16 {
		if t.Kind != model.KindNamed || t.Decl.Underlying == nil || t.Decl.Kind != model.AliasDecl && t.Decl.Kind != model.DefinedDecl {
			break
		}
		t = t.Decl.Underlying
	}
	return t
}

// customJSON renders MarshalJSON and UnmarshalJSON for a struct whose wire names json
// tags cannot spell:
//
//	func (v T) MarshalJSON() ([]byte, error) {
//		return wire.MarshalFields(
//			wire.OptionalField("a,b", v.AB),
//			...
//		)
//	}
//	func (v *T) UnmarshalJSON(data []byte) error {
//		return wire.UnmarshalFields(data,
//			wire.Field("a,b", &v.AB),
//			...
//		)
//	}
//
// Read-only properties are not written, consts and empty required arrays are filled in
// first, and additional properties are an ExtraFields entry.
func customJSON(d *model.Decl) *jen.Statement {
	s := docLine("MarshalJSON writes the fields under their exact wire names.")
	marshal := fillIns(d)
	marshal = append(marshal, jen.Return(jen.Qual(wirePath, "MarshalFields").CallFunc(func(g *jen.Group) {
		for _, f := range d.Fields {
			switch {
			case f.ReadOnly:
				continue
			case f.Additional:
				g.Line().Qual(wirePath, "ExtraFields").Call(jen.Op("&").Id("v").Dot(f.GoName))
				continue
			}
			field := "Field"
			if f.OmitEmpty {
				field = "OptionalField"
			}
			g.Line().Qual(wirePath, field).Call(jen.Lit(f.Name), jen.Id("v").Dot(f.GoName))
		}
		g.Line()
	})))
	s.Func().Params(jen.Id("v").Id(d.GoName)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(marshal...).Line().Line()
	s.Comment("// UnmarshalJSON reads the fields under their exact wire names.").Line()
	s.Func().Params(jen.Id("v").Op("*").Id(d.GoName)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Return(jen.Qual(wirePath, "UnmarshalFields").CallFunc(func(g *jen.Group) {
			g.Id("data")
			for _, f := range d.Fields {
				if f.Additional {
					g.Line().Qual(wirePath, "ExtraFields").Call(jen.Op("&").Id("v").Dot(f.GoName))
					continue
				}
				g.Line().Qual(wirePath, "Field").Call(jen.Lit(f.Name), jen.Op("&").Id("v").Dot(f.GoName))
			}
			g.Line()
		})),
	)
	return s
}

// fillIns renders what MarshalJSON sets on its copy of the value before writing it:
// const properties, and [] or {} for required arrays and maps left nil.
func fillIns(d *model.Decl) []jen.Code {
	var out []jen.Code
	for _, f := range d.Fields {
		if t := f.FillEmpty(); t != nil {
			out = append(out, jen.If(jen.Id("v").Dot(f.GoName).Op("==").Nil()).Block(
				jen.Id("v").Dot(f.GoName).Op("=").Add(typ(t)).Values(),
			))
		}
	}
	for _, f := range d.Fields {
		if f.Const != nil {
			out = append(out, jen.Id("v").Dot(f.GoName).Op("=").Add(constLit(f.Const)))
		}
		if f.OneValue != nil {
			out = append(out, jen.If(jen.Id("v").Dot(f.GoName).Op("==").Add(zeroLit(f.OneValue))).Block(
				jen.Id("v").Dot(f.GoName).Op("=").Add(constLit(f.OneValue)),
			))
		}
	}
	return out
}

// zeroLit renders the zero value of the kind of the scalar v.
func zeroLit(v any) jen.Code {
	switch v.(type) {
	case string:
		return jen.Lit("")
	case bool:
		return jen.False()
	}
	return jen.Op("0")
}

// objectJSON renders the JSON methods of a struct whose json tags do not say all it
// sends; its fields' tags say the rest (see codecTags), and runtime/wire's codec follows
// them:
//
//	func (v Pet) MarshalJSON() ([]byte, error)      { return wire.Marshal(&v) }
//	func (v *Pet) UnmarshalJSON(data []byte) error { return wire.Unmarshal(data, v) }
//
// UnmarshalJSON is there only for additional properties.
func objectJSON(d *model.Decl) *jen.Statement {
	var extra *model.Field
	var what []string
	for _, f := range d.Fields {
		if f.Additional {
			extra = f
		}
	}
	add := func(ok func(f *model.Field) bool, say string) {
		for _, f := range d.Fields {
			if ok(f) {
				what = append(what, say)
				return
			}
		}
	}
	add(func(f *model.Field) bool { return f.ReadOnly }, "without its read-only properties")
	add(func(f *model.Field) bool { return f.FillEmpty() != nil }, "with [] or {} for required arrays and objects left nil")
	add(func(f *model.Field) bool { return f.Const != nil || f.OneValue != nil }, "with its constants filled in")
	if extra != nil {
		what = append(what, "with its additional properties")
	}
	var dc doc
	dc.para("MarshalJSON writes the value as a request sends it: " + strings.Join(what, ", ") + ".")
	s := dc.code()
	s.Func().Params(jen.Id("v").Id(d.GoName)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Qual(wirePath, "Marshal").Call(jen.Op("&").Id("v"))),
	)
	if extra != nil {
		s.Line().Line().Comment("// UnmarshalJSON reads the declared properties and keeps the others in " + extra.GoName + ".").Line()
		s.Func().Params(jen.Id("v").Op("*").Id(d.GoName)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
			jen.Return(jen.Qual(wirePath, "Unmarshal").Call(jen.Id("data"), jen.Id("v"))),
		)
	}
	return s
}

// unionStruct renders the struct of a union: a first field whose tags tell runtime/wire's
// codec it is a union (and its discriminator), one pointer field per variant (tagged with
// the discriminator values that select it, as JSON), the JSON it was read from, and the
// fingerprint of what its variant held then; and its JSON methods.
//
//	type Pet struct {
//		_   noCompare `wire:"union" discriminator:"petType"`
//		Cat *Cat      `discriminator:"[\"cat\"]"`
//		Dog *Dog      `discriminator:"[\"dog\"]"`
//		Raw json.RawMessage
//		sum uint64
//	}
//
//	func (v Pet) MarshalJSON() ([]byte, error)      { return wire.Marshal(&v) }
//	func (v *Pet) UnmarshalJSON(data []byte) error { return wire.Unmarshal(data, v) }
func unionStruct(d *model.Decl) *jen.Statement {
	marker := map[string]string{"wire": "union"}
	if d.Discriminator != "" {
		marker["discriminator"] = d.Discriminator
	}
	s := jen.Type().Id(d.GoName).StructFunc(func(g *jen.Group) {
		g.Add(noCompareField().Tag(marker))
		for _, v := range d.Variants {
			f := jen.Id(v.GoName).Add(typ(model.PointerTo(v.Type)))
			if d.Discriminator != "" {
				values := []string{v.Send}
				for _, val := range v.Values {
					if val != v.Send {
						values = append(values, val)
					}
				}
				f.Tag(map[string]string{"discriminator": "[" + strings.Join(values, ",") + "]"})
			}
			g.Add(f)
		}
		g.Comment("Raw is the JSON the value was read from, nil when it was not read. With no variant")
		g.Comment("set, it is what MarshalJSON writes: a value of a variant the spec does not describe.")
		g.Id("Raw").Qual(jsonPath, "RawMessage")
		g.Comment("sum is the fingerprint of what the variant held when read: MarshalJSON writes Raw")
		g.Comment("while the variant, and every union below it, still holds that.")
		g.Id("sum").Uint64()
	}).Line().Line()
	if d.Discriminator != "" {
		s.Comment("// MarshalJSON writes the variant that is set, with the discriminator " + strconv.Quote(oneLine(d.Discriminator)) + " that selects it,").Line()
		s.Comment("// else the JSON the value was read from; a value read and not changed since is written").Line()
		s.Comment("// as it was read. More than one variant set is an error.").Line()
	} else {
		s.Comment("// MarshalJSON writes the variant that is set, else the JSON the value was read from; a").Line()
		s.Comment("// value read and not changed since is written as it was read. More than one variant set").Line()
		s.Comment("// is an error.").Line()
	}
	s.Func().Params(jen.Id("v").Id(d.GoName)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Qual(wirePath, "Marshal").Call(jen.Op("&").Id("v"))),
	).Line().Line()
	if d.Discriminator != "" {
		s.Comment("// UnmarshalJSON sets the variant the discriminator " + strconv.Quote(oneLine(d.Discriminator)) + " names;").Line()
		s.Comment("// a value it does not know is kept as raw JSON.").Line()
	} else {
		s.Comment("// UnmarshalJSON sets the variant that fits the JSON best (by its kind, then by the").Line()
		s.Comment("// members or items it names) and decodes it; the JSON stays in Raw.").Line()
	}
	s.Func().Params(jen.Id("v").Op("*").Id(d.GoName)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Return(jen.Qual(wirePath, "Unmarshal").Call(jen.Id("data"), jen.Id("v"))),
	).Line().Line()
	return s
}

// unionConstructor renders New<Union>, which makes a union of a value of one of its
// variants' types, as a literal would set that variant's field:
//
//	func NewTitle[T string | int64](v T) Title {
//		switch x := any(v).(type) {
//		case string:
//			return Title{String: &x}
//		...
//		}
//		return Title{}
//	}
//
// Variants whose type cannot stand in a type set (an interface) are left to the literal;
// a union with none other has no constructor.
func unionConstructor(d *model.Decl) *jen.Statement {
	var terms []jen.Code
	var cases []jen.Code
	for _, v := range d.Variants {
		if v.Type.Kind == model.KindBuiltin && v.Type.Builtin == model.Any {
			continue
		}
		terms = append(terms, typ(v.Type))
		cases = append(cases, jen.Case(typ(v.Type)).Block(
			jen.Return(jen.Id(d.GoName).Values(jen.Dict{jen.Id(v.GoName): jen.Op("&").Id("x")})),
		))
	}
	if len(terms) == 0 {
		return nil
	}
	constraint := jen.Null()
	for i, t := range terms {
		if i > 0 {
			constraint.Op("|")
		}
		constraint.Add(t)
	}
	name := d.Constructor
	return docLine(name+" returns "+d.GoName+"{X: &v} for the variant X of v's type.").
		Func().Id(name).Types(jen.Id("T").Add(constraint)).Params(jen.Id("v").Id("T")).Id(d.GoName).Block(
		jen.Switch(jen.Id("x").Op(":=").Id("any").Call(jen.Id("v")).Assert(jen.Type())).Block(cases...),
		jen.Return(jen.Id(d.GoName).Values()),
	)
}

// textConstructor renders the function that makes union d of its variant v from a string
// alone (model.FromText):
//
//	// UserMessage returns the ChatCompletionRequestMessage variant
//	// ChatCompletionRequestUserMessage ("role": "user") with text as its Content: ...
//	func UserMessage(text string) ChatCompletionRequestMessage {
//		return ChatCompletionRequestMessage{ChatCompletionRequestUserMessage: &ChatCompletionRequestUserMessage{
//			Content: ChatCompletionRequestUserMessageContent{TextContent: &text}}}
//	}
func textConstructor(d *model.Decl, v *model.Variant) *jen.Statement {
	t := v.FromText
	literal := v.Type.String() + "{" + t.Field.GoName + ": " + t.Field.Type.String() + "{" + t.Text.GoName + ": &text}}"
	if d.Constructor != "" {
		literal = d.Constructor + "(" + literal + ")"
	}
	var d2 doc
	d2.para(t.GoName + " returns the " + d.GoName + " variant " + v.Type.String() + " (" + strconv.Quote(oneLine(d.Discriminator)) + ": " + oneLine(v.Send) +
		") with text as its " + t.Field.GoName + ": the same as " + literal + ".")
	member := typ(t.Field.Type).Values(jen.Dict{jen.Id(t.Text.GoName): jen.Op("&").Id("text")})
	variant := jen.Op("&").Add(typ(v.Type)).Values(jen.Dict{jen.Id(t.Field.GoName): member})
	return d2.code().Func().Id(t.GoName).Params(jen.Id("text").String()).Id(d.GoName).Block(
		jen.Return(jen.Id(d.GoName).Values(jen.Dict{jen.Id(v.GoName): variant})),
	)
}
