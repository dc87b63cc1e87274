package emit

import (
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
		s.Type().Id(d.GoName).Struct(append([]jen.Code{noCompareField()}, fieldList(d.Fields)...)...)
		switch {
		case d.CustomJSON:
			s.Line().Line().Add(customJSON(d))
		case d.NeedsMarshal():
			s.Line().Line().Add(objectJSON(d))
		}
	case model.EnumDecl:
		s.Type().Id(d.GoName).Add(typ(d.Underlying))
		if len(d.Values) > 0 {
			what := "// Values of " + d.GoName + "."
			if d.Open {
				what = "// Known values of " + d.GoName + "; it takes others too."
			}
			s.Line().Line().Comment(what).Line()
			s.Const().DefsFunc(func(g *jen.Group) {
				for _, v := range d.Values {
					g.Id(v.GoName).Id(d.GoName).Op("=").Add(constLit(v.Value))
				}
			})
		}
	case model.DefinedDecl:
		s.Type().Id(d.GoName).Add(typ(d.Underlying))
	case model.AliasDecl:
		s.Type().Id(d.GoName).Op("=").Add(typ(d.Underlying))
	case model.UnionDecl:
		if d.Discriminator != "" {
			s.Add(sumType(d))
		} else {
			s.Add(rawUnion(d))
		}
		if c := unionConstructor(d); c != nil && d.Constructor != "" {
			s.Line().Line().Add(c)
		}
	}
	if d.ErrorModel {
		s.Line().Line().Comment("// Error returns the error model as JSON on one line, cut short, so that it can be returned as an error.").Line()
		s.Func().Params(jen.Id("v").Id(d.GoName)).Id("Error").Params().String().Block(
			jen.Return(jen.Qual(wirePath, "ErrorText").Call(jen.Id("v"))),
		)
		// func (v Problem) As(target any) bool { ... }: errors.As(err, &p) works with a
		// Problem as well as a *Problem.
		s.Line().Line().Comment("// As lets errors.As fill a " + d.GoName + " value as well as a *" + d.GoName + ".").Line()
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

// fieldList renders struct fields with their doc comments and json tags.
func fieldList(fields []*model.Field) []jen.Code {
	out := make([]jen.Code, 0, len(fields))
	for _, f := range fields {
		var dc doc
		dc.para(f.Doc)
		if f.Deprecated {
			dc.para("Deprecated: the API description marks this property as deprecated.")
		}
		s := dc.code().Id(f.GoName).Add(typ(f.Type))
		if f.JSONTag != "" {
			s.Tag(map[string]string{"json": f.JSONTag})
		}
		out = append(out, s)
	}
	return out
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
	s := jen.Comment("// MarshalJSON writes the fields under their exact wire names.").Line()
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
	}
	return out
}

// objectJSON renders the JSON methods of a struct whose json tags do not say all it
// sends: read-only properties are left out, consts and empty required arrays filled in,
// additional properties kept:
//
//	func (v Pet) MarshalJSON() ([]byte, error) {
//		type plain Pet
//		if v.Tags == nil {
//			v.Tags = []string{}
//		}
//		return wire.MarshalObject(plain(v), v.AdditionalProperties, "id")
//	}
//	func (v *Pet) UnmarshalJSON(data []byte) error {
//		type plain Pet
//		return wire.UnmarshalObject(data, (*plain)(v), &v.AdditionalProperties)
//	}
func objectJSON(d *model.Decl) *jen.Statement {
	var extra *model.Field
	var args []jen.Code
	for _, f := range d.Fields {
		switch {
		case f.Additional:
			extra = f
		case f.ReadOnly:
			args = append(args, jen.Lit(f.Name))
		}
	}
	extraArg := jen.Nil()
	if extra != nil {
		extraArg = jen.Id("v").Dot(extra.GoName)
	}
	var what []string
	if len(args) > 0 {
		what = append(what, "without its read-only properties")
	}
	for _, f := range d.Fields {
		if f.FillEmpty() != nil {
			what = append(what, "with [] or {} for required arrays and objects left nil")
			break
		}
	}
	for _, f := range d.Fields {
		if f.Const != nil {
			what = append(what, "with its constants filled in")
			break
		}
	}
	if extra != nil {
		what = append(what, "with its additional properties")
	}
	body := []jen.Code{jen.Type().Id("plain").Id(d.GoName)}
	body = append(body, fillIns(d)...)
	body = append(body, jen.Return(jen.Qual(wirePath, "MarshalObject").Call(
		append([]jen.Code{jen.Id("plain").Call(jen.Id("v")), extraArg}, args...)...,
	)))
	var dc doc
	dc.para("MarshalJSON writes the value as a request sends it: " + strings.Join(what, ", ") + ".")
	s := dc.code()
	s.Func().Params(jen.Id("v").Id(d.GoName)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(body...)
	if extra != nil {
		s.Line().Line().Comment("// UnmarshalJSON reads the declared properties and keeps the others in " + extra.GoName + ".").Line()
		s.Func().Params(jen.Id("v").Op("*").Id(d.GoName)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
			jen.Type().Id("plain").Id(d.GoName),
			jen.Return(jen.Qual(wirePath, "UnmarshalObject").Call(
				jen.Id("data"), jen.Parens(jen.Op("*").Id("plain")).Call(jen.Id("v")), jen.Op("&").Id("v").Dot(extra.GoName),
			)),
		)
	}
	return s
}

// unionStruct renders the struct of a union, one pointer field per variant and the JSON
// it was read from, followed by a blank line.
func unionStruct(d *model.Decl) *jen.Statement {
	return jen.Type().Id(d.GoName).StructFunc(func(g *jen.Group) {
		for _, v := range d.Variants {
			g.Id(v.GoName).Add(typ(model.PointerTo(v.Type)))
		}
		g.Comment("Raw is the JSON the value was read from, nil when it was not read. With no variant")
		g.Comment("set, it is what MarshalJSON writes: a value of a variant the spec does not describe.")
		g.Id("Raw").Qual(jsonPath, "RawMessage")
	}).Line().Line()
}

// sumType renders a union with a discriminator: one pointer field per variant, set by
// UnmarshalJSON from the discriminator's value, and the raw JSON for unknown values.
func sumType(d *model.Decl) *jen.Statement {
	s := unionStruct(d)
	var marshal []jen.Code
	if len(d.Variants) > 1 {
		set := make([]jen.Code, len(d.Variants))
		for i, v := range d.Variants {
			set[i] = jen.Id("v").Dot(v.GoName).Op("!=").Nil()
		}
		marshal = append(marshal, jen.If(
			jen.Err().Op(":=").Qual(wirePath, "OneVariant").Call(set...), jen.Err().Op("!=").Nil(),
		).Block(jen.Return(jen.Nil(), jen.Err())))
	}
	s.Comment("// MarshalJSON writes the variant that is set, with the discriminator " + strconv.Quote(oneLine(d.Discriminator)) + " that selects it,").Line()
	s.Comment("// else the JSON the value was read from. More than one variant set is an error.").Line()
	s.Func().Params(jen.Id("v").Id(d.GoName)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(append(marshal,
		jen.Switch().BlockFunc(func(g *jen.Group) {
			for _, v := range d.Variants {
				args := []jen.Code{jen.Id("v").Dot(v.GoName), jen.Lit(d.Discriminator), jen.Lit(v.Send)}
				for _, val := range v.Values {
					if val != v.Send {
						args = append(args, jen.Lit(val))
					}
				}
				g.Case(jen.Id("v").Dot(v.GoName).Op("!=").Nil()).Block(
					jen.Return(jen.Qual(wirePath, "MarshalVariant").Call(args...)),
				)
			}
		}),
		jen.Return(jen.Qual(wirePath, "MarshalRaw").Call(jen.Id("v").Dot("Raw"))),
	)...).Line().Line()
	s.Comment("// UnmarshalJSON sets the variant the discriminator " + strconv.Quote(oneLine(d.Discriminator)) + " names;").Line()
	s.Comment("// a value it does not know is kept as raw JSON.").Line()
	s.Func().Params(jen.Id("v").Op("*").Id(d.GoName)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Op("*").Id("v").Op("=").Id(d.GoName).Values(jen.Dict{
			jen.Id("Raw"): jen.Append(jen.Qual(jsonPath, "RawMessage").Call(jen.Nil()), jen.Id("data").Op("...")),
		}),
		jen.Switch(jen.Qual(wirePath, "DiscriminatorValue").Call(jen.Id("data"), jen.Lit(d.Discriminator))).BlockFunc(func(g *jen.Group) {
			for _, v := range d.Variants {
				vals := make([]jen.Code, len(v.Values))
				for i, val := range v.Values {
					vals[i] = jen.Lit(val)
				}
				g.Case(vals...).Block(
					jen.Id("v").Dot(v.GoName).Op("=").New(typ(v.Type)),
					jen.Return(jen.Qual(jsonPath, "Unmarshal").Call(jen.Id("data"), jen.Id("v").Dot(v.GoName))),
				)
			}
		}),
		jen.Return(jen.Nil()),
	).Line().Line()
	return s
}

// rawUnion renders a union without a discriminator: one pointer field per variant, set
// by the caller (see unionConstructor) or by decoding, which picks the variant by the
// JSON's kind (see wire.UnmarshalUnion), and the raw JSON.
//
//	type Title struct {
//		String  *string
//		Integer *int64
//		Raw     json.RawMessage
//	}
//
//	func (v Title) MarshalJSON() ([]byte, error)      { return wire.MarshalUnion(v.Raw, v.String, v.Integer) }
//	func (v *Title) UnmarshalJSON(data []byte) error { return wire.UnmarshalUnion(data, &v.Raw, &v.String, &v.Integer) }
func rawUnion(d *model.Decl) *jen.Statement {
	s := unionStruct(d)
	set := []jen.Code{jen.Id("v").Dot("Raw")}
	fields := []jen.Code{jen.Id("data"), jen.Op("&").Id("v").Dot("Raw")}
	for _, v := range d.Variants {
		set = append(set, jen.Id("v").Dot(v.GoName))
		fields = append(fields, jen.Op("&").Id("v").Dot(v.GoName))
	}
	s.Comment("// MarshalJSON writes the variant that is set, else the JSON the value was read from.").Line()
	s.Comment("// More than one variant set is an error.").Line()
	s.Func().Params(jen.Id("v").Id(d.GoName)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Qual(wirePath, "MarshalUnion").Call(set...)),
	).Line().Line()
	s.Comment("// UnmarshalJSON sets the first variant that takes the JSON's kind and decodes it; the JSON").Line()
	s.Comment("// stays in Raw.").Line()
	s.Func().Params(jen.Id("v").Op("*").Id(d.GoName)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Return(jen.Qual(wirePath, "UnmarshalUnion").Call(fields...)),
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
	return jen.Comment("// "+name+" returns "+d.GoName+"{X: &v} for the variant X of v's type.").Line().
		Func().Id(name).Types(jen.Id("T").Add(constraint)).Params(jen.Id("v").Id("T")).Id(d.GoName).Block(
		jen.Switch(jen.Id("x").Op(":=").Id("any").Call(jen.Id("v")).Assert(jen.Type())).Block(cases...),
		jen.Return(jen.Id(d.GoName).Values()),
	)
}
