package build

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// bodyShapes recognises the pagination a GET's response body and parameters show, when
// they leave no doubt, after the cursor shapes (cursorShapes):
//   - a next page's URL in the body: next_page_uri or next_page_url (Twilio), links.next
//     (JSON:API), links.pages.next (DigitalOcean), _links.next.href (HAL), or next when
//     the spec says it is a URL (format uri or url, or an example URL);
//   - next_page and a string page parameter (Stripe's and OpenAI's searches and usage);
//   - next_marker and a marker parameter (Box);
//   - offset and limit parameters with has_more, more, total or total_count in the
//     response, which say the list goes on over pages: the walk ends on a page with fewer
//     items than the limit, none, or has_more false.
//
// An operation that fits several is not walked, and -v warns, as it does about a list
// whose response has a next page's field but no parameter or shape to follow it: an
// overlay's x-pagination says which.
func (b *builder) bodyShapes(op *model.Operation, kop *openapi3.Operation) *model.Pagination {
	result := listResult(op)
	d := structDecl(result)
	if d == nil {
		return nil
	}
	items, item := itemsOf(result)
	if item == nil {
		if hint := pagedField(d); hint != "" {
			b.warnPaging(op, "the response has %s, a sign of pagination, but no array of items retrygen can tell (none, or several): the operation gets no page walk", hint)
		}
		return nil
	}
	more := firstPath(fieldPath(d, "has_more", isBool), fieldPath(d, "more", isBool))
	var found []*model.Pagination
	add := func(pg *model.Pagination) {
		pg.Items, pg.Item, pg.More = items, item, more
		found = append(found, pg)
	}
	if pg := urlShape(result, kop); pg != nil {
		add(pg)
	}
	if p, next := queryParam(op, "page"), fieldPath(d, "next_page", isCursor); p != nil && isString(p.Type) && next != nil {
		add(&model.Pagination{Kind: model.PageCursor, From: "next_page+page", Param: p, Cursor: next})
	}
	if p, next := queryParam(op, "marker"), fieldPath(d, "next_marker", isCursor); p != nil && next != nil {
		add(&model.Pagination{Kind: model.PageCursor, From: "next_marker+marker", Param: p, Cursor: next})
	}
	if pg := offsetShape(op, d, more); pg != nil {
		add(pg)
	}
	switch len(found) {
	case 0:
		if hint := pagedField(d); hint != "" {
			b.warnPaging(op, "the response has %s, a sign of pagination, but no parameter retrygen knows to ask for the next page with: the operation gets no page walk", hint)
		}
		return nil
	case 1:
		return found[0]
	}
	var shapes []string
	for _, pg := range found {
		shapes = append(shapes, string(pg.Kind)+" ("+pg.From+")")
	}
	e := b.located(op, nil, "the list fits several pagination shapes, %s: the operation gets no page walk", strings.Join(shapes, " and "))
	e.Fix = "say which with an overlay action (see docs/pagination.md): " + overlayAction(op, found[0])
	b.spec.Warnings.Add(e)
	return nil
}

// nextURLs are the places in a response that hold the next page's URL, in the order
// they are looked for; anywhere but at next, the name says it is a URL.
var nextURLs = [][]string{
	{"next_page_uri"}, {"next_page_url"}, {"links", "next"}, {"links", "pages", "next"}, {"_links", "next", "href"}, {"next"},
}

// urlShape is the pagination of a response whose body gives the next page's URL (see
// nextURLs), nil when it has none. A plain next is taken for a URL only when the spec
// says it is one: its format is uri or url, or its example is a URL.
func urlShape(result *model.Type, kop *openapi3.Operation) *model.Pagination {
	for _, at := range nextURLs {
		p, leaf := findPath(result, at...)
		if p == nil || !isString(leaf) {
			continue
		}
		if len(at) == 1 && at[0] == "next" && !urlSchema(kinProperty(kinResult(kop), "next")) {
			continue
		}
		return &model.Pagination{Kind: model.PageURL, From: strings.Join(at, "."), Cursor: p}
	}
	return nil
}

// offsetShape is the offset pagination of an operation with integer offset and limit
// query parameters whose response says the list goes on (more, its has_more or more,
// or a total); nil otherwise.
func offsetShape(op *model.Operation, d *model.Decl, more model.Path) *model.Pagination {
	offset, limit := queryParam(op, "offset"), queryParam(op, "limit")
	if offset == nil || limit == nil || !isInteger(offset.Type) || !isInteger(limit.Type) {
		return nil
	}
	evidence := ""
	switch {
	case more != nil:
		evidence = more[0].Field.Name
	default:
		for _, at := range [][]string{{"total"}, {"total_count"}, {"meta", "total"}, {"meta", "total_count"}} {
			if p, leaf := findPath(model.NamedType(d), at...); p != nil && isInteger(leaf) {
				evidence = strings.Join(at, ".")
				break
			}
		}
	}
	if evidence == "" {
		return nil
	}
	return &model.Pagination{Kind: model.PageOffset, From: "offset+limit+" + evidence, Param: offset, Limit: limit}
}

// pagedField names the field of d that says a list goes on over pages, "" when it has
// none: a next page's cursor, marker or URL, or has_more.
func pagedField(d *model.Decl) string {
	for _, name := range []string{"next_marker", "next_page", "next_page_token", "next_cursor", "next_page_uri", "next_page_url", "has_more", "cursor", "continue"} {
		if fieldPath(d, name, func(*model.Type) bool { return true }) != nil {
			return name
		}
	}
	for _, at := range append(nextURLs[2:5:5], []string{"metadata", "continue"}) {
		if p, _ := findPath(model.NamedType(d), at...); p != nil {
			return strings.Join(at, ".")
		}
	}
	return ""
}

// findPath returns the path to the property at names (wire names, one per level) in t,
// through pointers, named types and unions: of a union, the one variant that has the
// next name. It returns the type found too; nil when there is no such property, or
// several variants have it.
func findPath(t *model.Type, names ...string) (model.Path, *model.Type) {
	var p model.Path
	for _, name := range names {
		d := structDecl(t)
		if d == nil {
			u := bare(t)
			if u.Kind != model.KindNamed || u.Decl.Kind != model.UnionDecl {
				return nil, nil
			}
			v := variantWith(u.Decl, name)
			if v == nil {
				return nil, nil
			}
			p = append(p, model.PathStep{Field: &model.Field{GoName: v.GoName, Type: model.PointerTo(v.Type)}, Variant: true})
			d = structDecl(v.Type)
		}
		f := fieldPath(d, name, func(*model.Type) bool { return true })
		if f == nil {
			return nil, nil
		}
		p, t = append(p, f...), f[0].Field.Type
	}
	return p, t
}

// variantWith returns the one variant of the union u that is a struct with a property
// called name; nil when none or several are.
func variantWith(u *model.Decl, name string) *model.Variant {
	var found *model.Variant
	for _, v := range u.Variants {
		if fieldPath(structDecl(v.Type), name, func(*model.Type) bool { return true }) == nil {
			continue
		}
		if found != nil {
			return nil
		}
		found = v
	}
	return found
}

func firstPath(paths ...model.Path) model.Path {
	for _, p := range paths {
		if p != nil {
			return p
		}
	}
	return nil
}

// kinResult returns the schema of op's first 2xx response with JSON content, nil when it
// has none.
func kinResult(kop *openapi3.Operation) *openapi3.Schema {
	if kop == nil || kop.Responses == nil {
		return nil
	}
	for _, code := range source.SortedKeys(kop.Responses.Map()) {
		r := kop.Responses.Value(code)
		if !strings.HasPrefix(code, "2") || r == nil || r.Value == nil {
			continue
		}
		for _, ct := range source.SortedKeys(r.Value.Content) {
			if mt := r.Value.Content[ct]; IsJSONMedia(ct) && mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
				return mt.Schema.Value
			}
		}
	}
	return nil
}

// kinProperty returns the schema of s's property name, looked for in s and the schemas
// of its allOf, anyOf and oneOf (not far: a cycle ends the search); nil when none has it.
func kinProperty(s *openapi3.Schema, name string) *openapi3.Schema {
	var find func(s *openapi3.Schema, depth int) *openapi3.Schema
	find = func(s *openapi3.Schema, depth int) *openapi3.Schema {
		if s == nil || depth > 8 {
			return nil
		}
		if p := s.Properties[name]; p != nil && p.Value != nil {
			return p.Value
		}
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, sr := range group {
				if sr == nil {
					continue
				}
				if p := find(sr.Value, depth+1); p != nil {
					return p
				}
			}
		}
		return nil
	}
	return find(s, 0)
}

// urlSchema reports a string schema the spec says holds a URL: format uri, uri-reference,
// url or iri, or an example that is an absolute URL or an absolute path.
func urlSchema(s *openapi3.Schema) bool {
	if s == nil {
		return false
	}
	switch strings.ToLower(s.Format) {
	case "uri", "uri-reference", "url", "iri", "iri-reference":
		return true
	}
	ex, _ := s.Example.(string)
	return strings.HasPrefix(ex, "https://") || strings.HasPrefix(ex, "http://") || strings.HasPrefix(ex, "/")
}

// warnPaging warns, at the operation, that op looks paginated but is not walked, with
// the overlay fix.
func (b *builder) warnPaging(op *model.Operation, format string, args ...any) {
	e := b.located(op, nil, format, args...)
	e.Fix = "if it goes on over pages, add x-pagination to the operation with an overlay (see docs/pagination.md)"
	b.spec.Warnings.Add(e)
}

// overlayAction writes the overlay action that declares pg for op:
// "{target: "$.paths['/items'].get", update: {x-pagination: {type: url, ...}}}".
func overlayAction(op *model.Operation, pg *model.Pagination) string {
	target := "$.paths['" + strings.ReplaceAll(op.Path, "'", `\'`) + "']." + strings.ToLower(op.Method)
	return "{target: " + strconv.Quote(target) + ", update: {x-pagination: " + overlayFor(pg) + "}}"
}

// overlayFor writes pg as the x-pagination value that declares it, in YAML's flow style:
// {type: cursor, inputs: [{name: marker, in: parameters, type: cursor}], outputs: {...}}.
func overlayFor(pg *model.Pagination) string {
	var inputs, outputs []string
	input := func(p *model.Param, typ string) {
		if p != nil {
			inputs = append(inputs, fmt.Sprintf("{name: %s, in: parameters, type: %s}", p.Name, typ))
		}
	}
	typ := string(pg.Kind)
	switch pg.Kind {
	case model.PageCursor:
		input(pg.Param, "cursor")
		outputs = append(outputs, "nextCursor: "+pg.Cursor.String())
	case model.PageOffset:
		typ = "offsetLimit"
		input(pg.Param, "offset")
		input(pg.Limit, "limit")
	case model.PageURL:
		outputs = append(outputs, "nextUrl: "+pg.Cursor.String())
	}
	if len(pg.Items) > 0 {
		outputs = append(outputs, "results: "+pg.Items.String())
	}
	if len(pg.More) > 0 {
		outputs = append(outputs, "hasMore: "+pg.More.String())
	}
	s := "{type: " + typ
	if len(inputs) > 0 {
		s += ", inputs: [" + strings.Join(inputs, ", ") + "]"
	}
	if len(outputs) > 0 {
		slices.Sort(outputs)
		s += ", outputs: {" + strings.Join(outputs, ", ") + "}"
	}
	return s + "}"
}
