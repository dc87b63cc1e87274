package emit

import (
	"strconv"

	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/model"
)

// The page walk of a paginated operation: a struct for one page, <Op>Pages, which hands
// each page of the operation's method to wire.Walk, and <Op>All, which yields the
// pages' items. Everything else of the walk is in runtime/wire.

// pageType renders the struct of one page:
//
//	type GetChargesPage struct {
//		Items    []Charge
//		Response *GetChargesResponse
//		Info     ResponseInfo
//		Next     string
//	}
func (e *emitter) pageType(op *model.Operation) *jen.Statement {
	pg := op.Pagination
	var d doc
	d.para(pg.PageType + " is one page of " + pg.PagesName + ": its items, how its call went, and the cursor of the page after it.")
	return d.code().Type().Id(pg.PageType).StructFunc(func(g *jen.Group) {
		field := func(text string, name string, t jen.Code) {
			var fd doc
			fd.para(text)
			g.Add(fd.code().Id(name).Add(t))
		}
		field("Items are the page's items, in the order of the response.", "Items", jen.Index().Add(typ(pg.Item)))
		if len(pg.Items) > 0 {
			field("Response is the page's response, as "+op.GoName+" returns it.", "Response", typ(op.Result.Type))
		}
		field("Info describes the page's call: its status, headers and attempts.", "Info", jen.Id("ResponseInfo"))
		field("Next is the cursor of the page after this one, \"\" when this one is the last: WithCursor(Next) starts a walk there.", "Next", jen.String())
	})
}

// pagesMethod renders <Op>Pages:
//
//	func (c *Client) GetChargesPages(ctx context.Context, params *GetChargesParams, opts ...CallOption) iter.Seq2[*GetChargesPage, error] {
//		return wire.Walk(&wire.Pager{...}, callOptions(opts), func(pg *wire.PageStep) (*GetChargesPage, error) {
//			resp, err := c.GetCharges(ctx, params, append(opts[:len(opts):len(opts)], CallOption{apply: pg.Option()})...)
//			if err != nil {
//				return nil, err
//			}
//			out := &GetChargesPage{Items: resp.Data, Response: resp, Info: ResponseInfo(pg.Info())}
//			var cursor string
//			if n := len(resp.Data); n > 0 {
//				cursor = resp.Data[n-1].ID
//			}
//			out.Next = pg.Next(wire.PageFacts{Items: len(out.Items), More: &resp.HasMore, Cursor: cursor})
//			return out, nil
//		})
//	}
func (e *emitter) pagesMethod(op *model.Operation) *jen.Statement {
	pg := op.Pagination
	var d doc
	d.para(pg.PagesName + " yields the pages of " + op.GoName + " one at a time, each with its items, its ResponseInfo and the cursor of the page after it: " + walkDoc(op) + ".")
	d.para(walkRules + " WithResponseInfo, passed on to every page's call, describes the last page asked for when the walk ends.")
	d.para("Its pagination is from the spec's " + oneLine(pg.From) + ".")

	page := jen.Op("*").Id(pg.PageType)
	step := jen.Id("CallOption").Values(jen.Dict{jen.Id("apply"): jen.Id("pg").Dot("Option").Call()})
	opts := jen.Append(jen.Id("opts").Index(jen.Empty(), jen.Len(jen.Id("opts")), jen.Len(jen.Id("opts"))), step).Op("...")
	var body []jen.Code
	add := func(c ...jen.Code) { body = append(body, c...) }
	add(jen.List(jen.Id("resp"), jen.Err()).Op(":=").Id("c").Dot(op.GoName).Call(passOn(op, opts)...))
	add(jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))

	root, rootType := jen.Id("resp"), op.Result.Type
	if rootType.Kind == model.KindPointer {
		rootType = rootType.Elem // a decoded result is never nil
	}
	values := jen.Dict{jen.Id("Info"): jen.Id("ResponseInfo").Call(jen.Id("pg").Dot("Info").Call())}
	if len(pg.Items) > 0 {
		values[jen.Id("Response")] = jen.Id("resp")
	}
	items := value{root: root, t: rootType, path: pg.Items}
	if x, ok := items.direct(); ok {
		values[jen.Id("Items")] = x
		add(jen.Id("out").Op(":=").Op("&").Id(pg.PageType).Values(values))
	} else {
		add(jen.Id("out").Op(":=").Op("&").Id(pg.PageType).Values(values))
		add(items.assign(func(x *jen.Statement, _ *model.Type) []jen.Code {
			return []jen.Code{jen.Id("out").Dot("Items").Op("=").Add(x)}
		})...)
	}

	facts := jen.Dict{jen.Id("Items"): jen.Len(jen.Id("out").Dot("Items"))}
	if len(pg.More) > 0 {
		facts[jen.Id("More")] = e.fact(add, value{root: root, t: rootType, path: pg.More}, "more", jen.Op("*").Bool(), moreOf)
	}
	if len(pg.Cursor) > 0 {
		facts[jen.Id("Cursor")] = e.fact(add, value{root: root, t: rootType, path: pg.Cursor}, "cursor", jen.String(), cursorOf)
	}
	if len(pg.NumPages) > 0 {
		facts[jen.Id("Pages")] = e.fact(add, value{root: root, t: rootType, path: pg.NumPages}, "pages", jen.Int(), countOf)
	}
	add(jen.Id("out").Dot("Next").Op("=").Id("pg").Dot("Next").Call(jen.Qual(wirePath, "PageFacts").Values(facts)))
	add(jen.Return(jen.Id("out"), jen.Nil()))

	walk := jen.Qual(wirePath, "Walk").Call(
		pager(pg), jen.Id("callOptions").Call(jen.Id("opts")),
		jen.Func().Params(jen.Id("pg").Op("*").Qual(wirePath, "PageStep")).Params(page.Clone(), jen.Error()).Block(body...),
	)
	return d.code().Func().Params(jen.Id("c").Op("*").Id("Client")).Id(pg.PagesName).Params(signature(op)...).
		Qual(iterPath, "Seq2").Types(page.Clone(), jen.Error()).Block(jen.Return(walk))
}

// allMethod renders <Op>All, which yields pointers into the pages for struct and union
// items and the items themselves otherwise:
//
//	func (c *Client) GetChargesAll(ctx context.Context, params *GetChargesParams, opts ...CallOption) iter.Seq2[*Charge, error] {
//		return wire.Items(c.GetChargesPages(ctx, params, opts...), func(p *GetChargesPage, i int) (item *Charge, ok bool) {
//			if i < len(p.Items) {
//				item, ok = &p.Items[i], true
//			}
//			return
//		})
//	}
func (e *emitter) allMethod(op *model.Operation) *jen.Statement {
	pg := op.Pagination
	var d doc
	d.para(pg.AllName + " yields the items of every page of " + op.GoName + ", in order, calling " + op.GoName + " with the same arguments for each page as the loop reaches it: " + walkDoc(op) + ".")
	d.para(walkRules + " " + pg.PagesName + " gives the pages themselves, with each one's ResponseInfo.")
	yield := pg.Yield()
	at := jen.Id("p").Dot("Items").Index(jen.Id("i"))
	if yield != pg.Item { // Yield made a pointer to the item; an item that is one already is yielded as it is
		at = jen.Op("&").Add(at)
	}
	item := jen.Func().Params(jen.Id("p").Op("*").Id(pg.PageType), jen.Id("i").Int()).Params(jen.Id("item").Add(typ(yield)), jen.Id("ok").Bool()).Block(
		jen.If(jen.Id("i").Op("<").Len(jen.Id("p").Dot("Items"))).Block(jen.List(jen.Id("item"), jen.Id("ok")).Op("=").List(at, jen.True())),
		jen.Return(),
	)
	all := jen.Qual(wirePath, "Items").Call(jen.Id("c").Dot(pg.PagesName).Call(passOn(op, jen.Id("opts").Op("..."))...), item)
	return d.code().Func().Params(jen.Id("c").Op("*").Id("Client")).Id(pg.AllName).Params(signature(op)...).
		Qual(iterPath, "Seq2").Types(typ(yield), jen.Error()).Block(jen.Return(all))
}

// walkRules is what every walk's doc says of retries, failures and stopping.
const walkRules = "Each page is one call of the operation, with its retries under its policy; the walk adds none. A page that fails ends the loop with a *PageError, whose Cursor resumes the walk with WithCursor; so does a cursor that repeats (ErrPageLoop), a next link outside the client's base URL, which is not followed (ErrPageLink), or a walk that reaches 100,000 pages without a last one (ErrTooManyPages). Stopping the loop sends nothing more; WithMaxPages sets another bound."

// walkDoc says how the walk of op goes from page to page, as the end of a sentence.
func walkDoc(op *model.Operation) string {
	pg := op.Pagination
	until := ""
	if len(pg.More) > 0 {
		until = " or " + oneLine(pg.More.String()) + " is false"
	}
	switch pg.Kind {
	case model.PageLink:
		return "the next page is the Link header's rel=\"next\" URL, until there is none" + until
	case model.PageURL:
		return "the next page is the URL at " + oneLine(pg.Cursor.String()) + ", until there is none" + until
	case model.PageCursor:
		return "the next page sends the cursor at " + oneLine(pg.Cursor.String()) + " as " + pg.Param.In + " parameter " + strconv.Quote(oneLine(pg.Param.Name)) + ", until there is none" + until
	case model.PageOffset:
		return "the next page sends as " + strconv.Quote(oneLine(pg.Param.Name)) + " the offset after the items so far, until a page holds none" + limitDoc(pg) + until
	case model.PageNumber:
		s := "the next page sends as " + strconv.Quote(oneLine(pg.Param.Name)) + " the next page number, until a page holds none" + limitDoc(pg)
		if len(pg.NumPages) > 0 {
			s += " or the number reaches " + oneLine(pg.NumPages.String())
		}
		return s + until
	}
	return ""
}

func limitDoc(pg *model.Pagination) string {
	if pg.Limit == nil {
		return ""
	}
	return " or fewer than the " + strconv.Quote(oneLine(pg.Limit.Name)) + " asked for"
}

// pager renders the wire.Pager literal of pg.
func pager(pg *model.Pagination) *jen.Statement {
	kinds := map[model.PageKind]string{
		model.PageLink: "PageLink", model.PageURL: "PageURL", model.PageCursor: "PageCursor",
		model.PageOffset: "PageOffset", model.PageNumber: "PageNumber",
	}
	fields := jen.Dict{jen.Id("Kind"): jen.Qual(wirePath, kinds[pg.Kind])}
	if pg.Param != nil {
		fields[jen.Id("In")] = jen.Lit(pg.Param.In)
		fields[jen.Id("Param")] = jen.Lit(pg.Param.Name)
	}
	if pg.Limit != nil {
		fields[jen.Id("Limit")] = jen.Lit(pg.Limit.Name)
	}
	if pg.Kind == model.PageNumber {
		fields[jen.Id("First")] = jen.Lit(pg.FirstPage)
	}
	return jen.Op("&").Qual(wirePath, "Pager").Values(fields)
}

// fact renders one field of a page's wire.PageFacts: the value at v itself when no step
// on the way can be nil, else a local variable, named name, of type t that the guarded
// statements set.
func (e *emitter) fact(add func(...jen.Code), v value, name string, t jen.Code, conv func(x *jen.Statement, t *model.Type) (*jen.Statement, bool)) jen.Code {
	if x, ok := v.direct(); ok && v.leaf().Kind != model.KindNullable {
		if c, ok := conv(x, v.leaf()); ok {
			return c
		}
	}
	add(jen.Var().Id(name).Add(t))
	add(v.assign(func(x *jen.Statement, t *model.Type) []jen.Code {
		if c, ok := conv(x, t); ok {
			return []jen.Code{jen.Id(name).Op("=").Add(c)}
		}
		c, _ := conv(jen.Op("*").Add(x.Clone()), t.Elem)
		return []jen.Code{jen.If(x.Clone().Op("!=").Nil()).Block(jen.Id(name).Op("=").Add(c))}
	})...)
	return jen.Id(name)
}

// moreOf renders a *bool from x, a bool or a *bool.
func moreOf(x *jen.Statement, t *model.Type) (*jen.Statement, bool) {
	if t.Kind == model.KindPointer {
		return x, true
	}
	return jen.Op("&").Add(x.Clone()), true
}

// cursorOf renders x, a cursor, as a string; ok is false when x is a pointer, which the
// caller dereferences once it is not nil.
func cursorOf(x *jen.Statement, t *model.Type) (*jen.Statement, bool) {
	if t.Kind == model.KindPointer {
		return nil, false
	}
	if t.Kind == model.KindBuiltin && t.Builtin == model.String {
		return x, true
	}
	return jen.Qual(wirePath, "CursorOf").Call(x.Clone()), true
}

// countOf renders x, a page count, as an int; ok is false when x is a pointer.
func countOf(x *jen.Statement, t *model.Type) (*jen.Statement, bool) {
	if t.Kind == model.KindPointer {
		return nil, false
	}
	return jen.Int().Call(x.Clone()), true
}

// value is the value at path from root, an expression of type t. jennifer's Clone keeps a
// reference to what it copies, so the statements built from a value are never changed
// once made: each step starts from a clone.
type value struct {
	root *jen.Statement
	t    *model.Type
	path model.Path
}

// leaf is the type of the value.
func (v value) leaf() *model.Type {
	t := v.t
	for _, st := range v.path {
		if st.Last {
			t = elemOf(t)
		} else {
			t = st.Field.Type
		}
	}
	return t
}

// direct returns the value as one expression, when no step on the way can be nil or
// absent: plain fields of struct values, no last element of a slice.
func (v value) direct() (*jen.Statement, bool) {
	x, t := v.root.Clone(), v.t
	for _, st := range v.path {
		t = unnamed(t)
		if st.Last || t.Kind == model.KindPointer || t.Kind == model.KindNullable {
			return nil, false
		}
		x, t = x.Clone().Dot(st.Field.GoName), st.Field.Type
	}
	return x, true
}

// assign renders the statements that reach the value and hand it to set, each step
// guarded: a nil pointer, an absent Nullable or an empty slice on the way skips set.
func (v value) assign(set func(x *jen.Statement, t *model.Type) []jen.Code) []jen.Code {
	return reach(v.root.Clone(), v.t, v.path, set)
}

func reach(x *jen.Statement, t *model.Type, path model.Path, set func(*jen.Statement, *model.Type) []jen.Code) []jen.Code {
	if len(path) == 0 {
		if t.Kind == model.KindNullable {
			return []jen.Code{jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Add(x.Clone()).Dot("Get").Call(), jen.Id("ok")).Block(set(jen.Id("v"), t.Elem)...)}
		}
		return set(x, t)
	}
	switch u := unnamed(t); u.Kind {
	case model.KindPointer:
		return []jen.Code{jen.If(x.Clone().Op("!=").Nil()).Block(reach(x, u.Elem, path, set)...)}
	case model.KindNullable:
		return []jen.Code{jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Add(x.Clone()).Dot("Get").Call(), jen.Id("ok")).Block(reach(jen.Id("v"), u.Elem, path, set)...)}
	}
	st := path[0]
	if st.Last {
		last := x.Clone().Index(jen.Id("n").Op("-").Lit(1))
		return []jen.Code{jen.If(jen.Id("n").Op(":=").Len(x.Clone()), jen.Id("n").Op(">").Lit(0)).Block(reach(last, elemOf(t), path[1:], set)...)}
	}
	return reach(x.Clone().Dot(st.Field.GoName), st.Field.Type, path[1:], set)
}

// unnamed returns t without the aliases and defined types that name it.
func unnamed(t *model.Type) *model.Type {
	for range 16 {
		if t.Kind != model.KindNamed || t.Decl.Kind != model.AliasDecl && t.Decl.Kind != model.DefinedDecl || t.Decl.Underlying == nil {
			break
		}
		t = t.Decl.Underlying
	}
	return t
}

// elemOf returns the element type of t, a slice or a named slice.
func elemOf(t *model.Type) *model.Type {
	if u := unnamed(t); u.Kind == model.KindSlice {
		return u.Elem
	}
	return model.BuiltinType(model.Any)
}
