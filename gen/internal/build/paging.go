package build

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// The extensions that declare an operation's pagination: retrygen's own, which an
// overlay can add to any operation (false turns pagination off), and Speakeasy's, of the
// same shape.
const (
	ExtPagination          = "x-pagination"
	ExtSpeakeasyPagination = "x-speakeasy-pagination"
)

// paging decides how op's results go on over pages, in this order: its x-pagination, its
// x-speakeasy-pagination, a Link response header, then the cursor shapes retrygen
// recognises when the spec has both sides of them (see shapes). An extension that does
// not fit the operation is a located warning, and the next source is tried.
func (b *builder) paging(op *model.Operation, item *openapi3.PathItem, kop *openapi3.Operation) {
	for _, ext := range []string{ExtPagination, ExtSpeakeasyPagination} {
		v, ok := kop.Extensions[ext]
		if !ok {
			continue
		}
		if off, isBool := v.(bool); isBool && !off && ext == ExtPagination {
			return
		}
		d := &declared{b: b, op: op, item: item, kop: kop, ext: ext}
		if pg := d.read(v); pg != nil {
			op.Pagination = pg
			return
		}
	}
	if op.Method != http.MethodGet || listResult(op) == nil {
		return
	}
	if pg := linkPaging(op); pg != nil {
		op.Pagination = pg
		return
	}
	if pg := b.cursorShapes(op); pg != nil {
		op.Pagination = pg
		return
	}
	op.Pagination = b.bodyShapes(op, kop)
}

// namePaging names the methods and page type of each paginated operation, once every
// operation's own methods and types have their names, so that pagination never renames
// them: <Op>All, <Op>Pages and <Op>Page.
func (b *builder) namePaging(ops []*model.Operation) {
	for _, op := range ops {
		pg := op.Pagination
		if pg == nil {
			continue
		}
		pg.AllName = b.methods.UniqueFor(op.GoName+"All", "items of "+op.GoName)
		pg.PagesName = b.methods.UniqueFor(op.GoName+"Pages", "pages of "+op.GoName)
		pg.PageType = b.pkg.UniqueFor(op.GoName+"Page", "page of "+op.GoName)
	}
}

// listResult returns the type of op's one JSON result, decoded whole; nil when op has
// another kind of result or none, which no page walk can read. A stream the operation
// offers beside it (Kubernetes' lists, with watch=true) has a method of its own.
func listResult(op *model.Operation) *model.Type {
	r := op.Result
	if r == nil || !op.ReadsBodyWhole() || r.Multi != nil || len(r.Responses) != 1 || !r.Responses[0].JSON || op.Stream != nil && op.Stream.Only {
		return nil
	}
	return r.Type
}

// linkPaging is the pagination of an operation whose 2xx response declares a Link header
// (as github.json's lists do): the next page is the link with rel="next".
func linkPaging(op *model.Operation) *model.Pagination {
	if op.Headers == nil || !slices.ContainsFunc(op.Headers.Fields, func(f model.HeaderField) bool {
		return strings.EqualFold(f.Name, "Link")
	}) {
		return nil
	}
	items, item := itemsOf(listResult(op))
	if item == nil {
		return nil
	}
	return &model.Pagination{Kind: model.PageLink, From: "Link header", Items: items, Item: item}
}

// cursorShapes recognises the cursor pagination of common APIs, each only when the
// response field and the request parameter are both in the spec:
//   - has_more, data, last_id and an after parameter (OpenAI);
//   - has_more, data and a starting_after parameter (Stripe): the next cursor is the last
//     item's id;
//   - has_more, data and an after parameter without last_id: the last item's id, as
//     OpenAI's lists of fine-tuning jobs take it;
//   - next_page_token and a page_token parameter (Google's AIP-158);
//   - next_cursor (at the top or in the list's metadata, see cursorPlaces) or next, and a
//     cursor parameter;
//   - a cursor parameter and a response field of the same name, cursor (Square), or
//     continue under metadata (Kubernetes), which holds the next page's.
//
// They come first, in this order; bodyShapes has the others. A shape that fits a response
// whose items retrygen cannot tell (itemsOf) is warned about, with the overlay that says
// which array they are.
func (b *builder) cursorShapes(op *model.Operation) *model.Pagination {
	d := structDecl(listResult(op))
	if d == nil {
		return nil
	}
	more := fieldPath(d, "has_more", isBool)
	data := fieldPath(d, "data", isSlice)
	pg := &model.Pagination{Kind: model.PageCursor}
	if data != nil {
		pg.Items, pg.Item = data, sliceElem(data[0].Field.Type)
	} else {
		pg.Items, pg.Item = itemsOf(listResult(op))
	}
	lastID := func() model.Path {
		if data == nil {
			return nil
		}
		if id := fieldPath(structDecl(pg.Item), "id", isCursor); id != nil {
			return append(append(slices.Clone(data), model.PathStep{Last: true}), id...)
		}
		return nil
	}
	switch {
	case more != nil && data != nil && queryParam(op, "after") != nil && fieldPath(d, "last_id", isCursor) != nil:
		pg.From, pg.Param, pg.More, pg.Cursor = "has_more+data+after+last_id", queryParam(op, "after"), more, fieldPath(d, "last_id", isCursor)
	case more != nil && data != nil && queryParam(op, "starting_after") != nil && lastID() != nil:
		pg.From, pg.Param, pg.More, pg.Cursor = "has_more+data+starting_after", queryParam(op, "starting_after"), more, lastID()
	case more != nil && data != nil && queryParam(op, "after") != nil && lastID() != nil:
		pg.From, pg.Param, pg.More, pg.Cursor = "has_more+data+after", queryParam(op, "after"), more, lastID()
	case queryParam(op, "page_token") != nil && fieldPath(d, "next_page_token", isCursor) != nil:
		pg.From, pg.Param, pg.Cursor = "next_page_token+page_token", queryParam(op, "page_token"), fieldPath(d, "next_page_token", isCursor)
	case cursorIn(op, d, "cursor", "next_cursor", cursorPlaces, pg),
		cursorIn(op, d, "cursor", "next", cursorPlaces[:1], pg), // a next elsewhere may be a link
		cursorIn(op, d, "cursor", "cursor", cursorPlaces, pg),
		cursorIn(op, d, "continue", "continue", cursorPlaces, pg):
		pg.More = more
	default:
		return nil
	}
	if pg.Item == nil {
		b.warnItems(op, d, pg)
		return nil
	}
	return pg
}

// cursorPlaces are where a response keeps the next page's cursor: at the top, or in the
// list's metadata (Kubernetes' ListMeta, Slack's response_metadata).
var cursorPlaces = [][]string{{}, {"metadata"}, {"meta"}, {"pagination"}, {"response_metadata"}}

// cursorIn fills pg when op has a query parameter called param and its response a cursor
// field called field in one of places (next_cursor and cursor, Slack's
// response_metadata.next_cursor; Square's cursor and cursor; Kubernetes' continue and
// metadata.continue), and reports whether it has.
func cursorIn(op *model.Operation, d *model.Decl, param, field string, places [][]string, pg *model.Pagination) bool {
	p := queryParam(op, param)
	if p == nil {
		return false
	}
	for _, at := range places {
		at = append(slices.Clip(at), field)
		if path, leaf := findPath(model.NamedType(d), at...); path != nil && isCursor(leaf) {
			pg.From, pg.Param, pg.Cursor = strings.Join(at, ".")+"+"+param, p, path
			return true
		}
	}
	return false
}

// warnItems warns that op fits the pagination pg but that its response d has several
// arrays and none of the names that tell a list's items, with the overlay that walks the
// first of them.
func (b *builder) warnItems(op *model.Operation, d *model.Decl, pg *model.Pagination) {
	var arrays []string
	var first model.Path
	for _, f := range d.Fields {
		if !f.Additional && sliceElem(f.Type) != nil {
			arrays = append(arrays, f.Name)
			if first == nil {
				first = model.Path{{Field: f}}
			}
		}
	}
	if len(arrays) == 0 {
		return
	}
	withItems := *pg
	withItems.Items = first
	b.opWarning(op, "say which array holds the items with an overlay action (see docs/pagination.md): "+overlayAction(op, &withItems),
		"the list fits the pagination shape %s, but its response has several arrays (%s) and none of the names of a list's items: the operation gets no page walk",
		pg.From, strings.Join(arrays, ", "))
}

// queryParam returns op's query parameter called name, nil when it has none.
func queryParam(op *model.Operation, name string) *model.Param {
	for _, p := range op.Params {
		if p.In == "query" && p.Name == name {
			return p
		}
	}
	return nil
}

// fieldPath returns the path to d's field whose wire name is name, when its type passes
// ok; nil otherwise (d nil included).
func fieldPath(d *model.Decl, name string, ok func(*model.Type) bool) model.Path {
	if d == nil {
		return nil
	}
	for _, f := range d.Fields {
		if f.Name == name && !f.Additional && ok(f.Type) {
			return model.Path{{Field: f}}
		}
	}
	return nil
}

// itemsOf returns where a list's items are in t, a result: t itself when it is an array,
// else its one array property, or among several the one left when those that report on
// the answer (errors, warnings, as Square's lists have beside their items) are set aside,
// or else the one with a name lists give their items (itemNames); and the type of an item.
// It returns a nil type when there is no array, or several and none or several of those
// names.
func itemsOf(t *model.Type) (model.Path, *model.Type) {
	if t == nil {
		return nil, nil
	}
	if elem := sliceElem(t); elem != nil {
		return nil, elem
	}
	d := structDecl(t)
	if d == nil {
		return nil, nil
	}
	var arrays, named []*model.Field
	for _, f := range d.Fields {
		if f.Additional || sliceElem(f.Type) == nil {
			continue
		}
		arrays = append(arrays, f)
		if slices.Contains(itemNames, f.Name) {
			named = append(named, f)
		}
	}
	if len(arrays) > 1 {
		if items := slices.DeleteFunc(slices.Clone(arrays), func(f *model.Field) bool { return slices.Contains(reportNames, f.Name) }); len(items) == 1 {
			arrays = items
		} else {
			arrays = named
		}
	}
	if len(arrays) != 1 {
		return nil, nil
	}
	return model.Path{{Field: arrays[0]}}, sliceElem(arrays[0].Type)
}

// itemNames are the names lists give the array of their items, which tell it from the
// other arrays of a page (Box's entries beside its order).
var itemNames = []string{"data", "items", "entries", "results", "records", "values", "elements"}

// reportNames are the names of the arrays that report on an answer beside its items.
var reportNames = []string{"errors", "warnings"}

// bare returns t without the pointers, Nullables, aliases and defined types around it;
// a cycle of named types is not followed far.
func bare(t *model.Type) *model.Type {
	for range 16 {
		switch {
		case t.Kind == model.KindPointer || t.Kind == model.KindNullable:
			t = t.Elem
		case t.Kind == model.KindNamed && (t.Decl.Kind == model.AliasDecl || t.Decl.Kind == model.DefinedDecl) && t.Decl.Underlying != nil:
			t = t.Decl.Underlying
		default:
			return t
		}
	}
	return t
}

// structDecl returns the struct t is, through pointers and named types; nil when it is
// none.
func structDecl(t *model.Type) *model.Decl {
	if t == nil {
		return nil
	}
	if t = bare(t); t.Kind == model.KindNamed && t.Decl.Kind == model.StructDecl {
		return t.Decl
	}
	return nil
}

// sliceElem returns the element type of the slice t is, through named types (a pointer
// or Nullable to a slice is not one); nil when it is none.
func sliceElem(t *model.Type) *model.Type {
	if t == nil || t.Kind == model.KindPointer || t.Kind == model.KindNullable {
		return nil
	}
	if t = bare(t); t.Kind == model.KindSlice {
		return t.Elem
	}
	return nil
}

func isSlice(t *model.Type) bool { return sliceElem(t) != nil }

func isBool(t *model.Type) bool {
	t = bare(t)
	return t.Kind == model.KindBuiltin && t.Builtin == model.Bool
}

func isInteger(t *model.Type) bool {
	t = bare(t)
	return t.Kind == model.KindBuiltin && (t.Builtin == model.Int32 || t.Builtin == model.Int64)
}

// isCursor reports a type a cursor can be written from: a string (an enum's too), a
// number or a time.
func isCursor(t *model.Type) bool {
	b := bare(t)
	if b.Kind == model.KindNamed && b.Decl.Kind == model.EnumDecl {
		return true
	}
	if b.Kind != model.KindBuiltin {
		return false
	}
	switch b.Builtin {
	case model.String, model.Int32, model.Int64, model.Float32, model.Float64, model.Time:
		return true
	}
	return false
}

// declared reads one pagination extension of one operation, warning where it does not
// fit the operation.
type declared struct {
	b    *builder
	op   *model.Operation
	item *openapi3.PathItem
	kop  *openapi3.Operation
	ext  string
}

// pagingTypes maps an extension's type to a kind; offsetLimit is decided by its inputs.
var pagingTypes = map[string]model.PageKind{
	"offsetLimit": model.PageOffset, "cursor": model.PageCursor, "url": model.PageURL, "link": model.PageLink,
}

// read returns the pagination v, the extension's value, declares; nil, with a located
// warning, when it does not fit the operation.
func (d *declared) read(v any) *model.Pagination {
	m, ok := v.(map[string]any)
	if !ok {
		d.warn(nil, "%s must be an object with type, inputs and outputs%s, got %s", d.ext, d.offHint(), source.Describe(v))
		return nil
	}
	if !d.known(m, nil, "type", "inputs", "outputs") {
		return nil
	}
	typ, _ := m["type"].(string)
	kind, ok := pagingTypes[typ]
	if !ok || typ == "link" && d.ext != ExtPagination {
		d.warn([]string{"type"}, "%s.type must be %s, got %s", d.ext, d.typeNames(), source.Describe(m["type"]))
		return nil
	}
	result := listResult(d.op)
	if result == nil {
		d.warn(nil, "%s: the operation has no JSON response to read pages from", d.ext)
		return nil
	}
	pg := &model.Pagination{Kind: kind, From: d.ext, At: d.pos(nil).String()}
	if !d.inputs(m["inputs"], pg) {
		return nil
	}
	outputs, _ := m["outputs"].(map[string]any)
	if m["outputs"] != nil && outputs == nil {
		d.warn([]string{"outputs"}, "%s.outputs must be an object, got %s", d.ext, source.Describe(m["outputs"]))
		return nil
	}
	if !d.known(outputs, []string{"outputs"}, "results", "nextCursor", "nextUrl", "numPages", "hasMore") || !d.outputs(outputs, result, pg) {
		return nil
	}
	return pg
}

func (d *declared) offHint() string {
	if d.ext == ExtPagination {
		return ", or false"
	}
	return ""
}

func (d *declared) typeNames() string {
	if d.ext == ExtPagination {
		return "offsetLimit, cursor, url or link"
	}
	return "offsetLimit, cursor or url"
}

// known warns about the keys of m (at the path inside) that are not among keys, with the
// one meant when it is close; it reports whether there were none.
func (d *declared) known(m map[string]any, inside []string, keys ...string) bool {
	ok := true
	for _, k := range source.SortedKeys(m) {
		if slices.Contains(keys, k) {
			continue
		}
		e := d.warning(append(slices.Clone(inside), k), "%s: unknown field %q", strings.Join(append([]string{d.ext}, inside...), "."), k)
		if c := source.Closest(k, keys); c != "" {
			e.Fix = "did you mean " + c + "?"
		}
		d.b.spec.Warnings.Add(e)
		ok = false
	}
	return ok
}

// inputs reads the extension's inputs into pg: the parameter of the cursor, the offset
// or the page, and the limit's. An offsetLimit with a page input and no offset counts
// pages.
func (d *declared) inputs(v any, pg *model.Pagination) bool {
	list, ok := v.([]any)
	if v != nil && !ok {
		d.warn([]string{"inputs"}, "%s.inputs must be a list, got %s", d.ext, source.Describe(v))
		return false
	}
	byType := map[string]*model.Param{}
	for i, in := range list {
		at := []string{"inputs", strconv.Itoa(i)}
		m, ok := in.(map[string]any)
		if !ok {
			d.warn(at, "%s.inputs[%d] must be an object with name, in and type, got %s", d.ext, i, source.Describe(in))
			return false
		}
		if !d.known(m, at, "name", "in", "type") {
			return false
		}
		name, _ := m["name"].(string)
		where, _ := m["in"].(string)
		typ, _ := m["type"].(string)
		switch typ {
		case "cursor", "offset", "page", "limit":
		default:
			d.warn(append(at, "type"), "%s.inputs[%d].type must be cursor, offset, page or limit, got %s", d.ext, i, source.Describe(m["type"]))
			return false
		}
		switch where {
		case "parameters", "query", "header":
		case "requestBody":
			d.warn(append(at, "in"), "%s.inputs[%d]: a %s in the request body is not supported: the operation gets no page walk", d.ext, i, typ)
			return false
		default:
			d.warn(append(at, "in"), "%s.inputs[%d].in must be parameters or requestBody, got %s", d.ext, i, source.Describe(m["in"]))
			return false
		}
		p := d.param(name)
		if p == nil {
			e := d.warning(append(at, "name"), "%s.inputs[%d]: the operation has no query or header parameter %q", d.ext, i, name)
			if c := source.Closest(name, d.paramNames()); c != "" {
				e.Fix = "did you mean " + c + "?"
			}
			d.b.spec.Warnings.Add(e)
			return false
		}
		byType[typ] = p
	}
	switch pg.Kind {
	case model.PageCursor:
		pg.Param = byType["cursor"]
		if pg.Param == nil {
			d.warn([]string{"inputs"}, "%s: a cursor pagination needs an input of type cursor", d.ext)
			return false
		}
	case model.PageOffset:
		pg.Limit = byType["limit"]
		if pg.Param = byType["offset"]; pg.Param == nil {
			pg.Kind, pg.Param = model.PageNumber, byType["page"]
			pg.FirstPage = d.firstPage(pg.Param)
		}
		if pg.Param == nil {
			d.warn([]string{"inputs"}, "%s: an offsetLimit pagination needs an input of type offset or page", d.ext)
			return false
		}
		if pg.Limit != nil && pg.Limit.In != "query" {
			d.warn([]string{"inputs"}, "%s: the limit must be a query parameter", d.ext)
			return false
		}
	}
	return true
}

// param returns the operation's query or header parameter called name.
func (d *declared) param(name string) *model.Param {
	for _, p := range d.op.Params {
		if (p.In == "query" || p.In == "header") && p.Name == name {
			return p
		}
	}
	return nil
}

func (d *declared) paramNames() []string {
	var out []string
	for _, p := range d.op.Params {
		out = append(out, p.Name)
	}
	return out
}

// firstPage is the number of the page a request without p gets: p's integer default,
// else 1.
func (d *declared) firstPage(p *model.Param) int {
	if p == nil {
		return 0
	}
	for _, group := range []openapi3.Parameters{d.kop.Parameters, d.item.Parameters} {
		for _, pr := range group {
			if pr == nil || pr.Value == nil || pr.Value.Name != p.Name || pr.Value.In != p.In || pr.Value.Schema == nil || pr.Value.Schema.Value == nil {
				continue
			}
			if n, ok := source.Int(pr.Value.Schema.Value.Default); ok && n >= 0 && n < 1<<31 {
				return int(n)
			}
			return 1
		}
	}
	return 1
}

// outputs reads where the response holds the items, the next cursor or URL, the page
// count and has_more.
func (d *declared) outputs(m map[string]any, result *model.Type, pg *model.Pagination) bool {
	path := func(key string, ok func(*model.Type) bool, want string) (model.Path, *model.Type, bool) {
		v, present := m[key]
		if !present {
			return nil, nil, true
		}
		s, _ := v.(string)
		p, t, err := resolvePath(result, s)
		if err == nil && !ok(t) {
			err = fmt.Errorf("%s is not %s", s, want)
		}
		if err != nil {
			d.warn([]string{"outputs", key}, "%s.outputs.%s: %v", d.ext, key, err)
			return nil, nil, false
		}
		return p, t, true
	}
	items, t, ok := path("results", isSlice, "an array")
	if !ok {
		return false
	}
	pg.Items, pg.Item = items, sliceElem(t)
	if pg.Item == nil {
		if pg.Items, pg.Item = itemsOf(result); pg.Item == nil {
			d.warn([]string{"outputs"}, "%s: outputs.results must say where the items are: the response is not an array and has no one array property", d.ext)
			return false
		}
	}
	if pg.More, _, ok = path("hasMore", isBool, "a boolean"); !ok {
		return false
	}
	if pg.NumPages, _, ok = path("numPages", isInteger, "an integer"); !ok {
		return false
	}
	if pg.NumPages != nil && pg.Kind != model.PageNumber {
		d.warn([]string{"outputs", "numPages"}, "%s.outputs.numPages counts pages: it needs an input of type page", d.ext)
		return false
	}
	switch pg.Kind {
	case model.PageCursor:
		if pg.Cursor, _, ok = path("nextCursor", isCursor, "a string or a number"); !ok {
			return false
		}
		if pg.Cursor == nil {
			d.warn([]string{"outputs"}, "%s: a cursor pagination needs outputs.nextCursor", d.ext)
			return false
		}
	case model.PageURL:
		if pg.Cursor, _, ok = path("nextUrl", isString, "a string"); !ok {
			return false
		}
		if pg.Cursor == nil {
			d.warn([]string{"outputs"}, "%s: a url pagination needs outputs.nextUrl", d.ext)
			return false
		}
	}
	return true
}

func isString(t *model.Type) bool {
	t = bare(t)
	return t.Kind == model.KindBuiltin && t.Builtin == model.String
}

// resolvePath follows a JSONPath as Speakeasy writes outputs ("$", "$.data",
// "$.page.next_cursor", "$.data[-1].id": fields by name, [-1] for the last element) into
// the types of root, and returns the path and the type it reaches.
func resolvePath(root *model.Type, jsonPath string) (model.Path, *model.Type, error) {
	rest, ok := strings.CutPrefix(jsonPath, "$")
	if !ok {
		return nil, nil, fmt.Errorf("%q is not a JSONPath starting at $", jsonPath)
	}
	var p model.Path
	t := root
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "[-1]"):
			elem := sliceElem(t)
			if elem == nil {
				return nil, nil, fmt.Errorf("%s: %s is not an array", jsonPath, p)
			}
			p, t, rest = append(p, model.PathStep{Last: true}), elem, rest[len("[-1]"):]
		case strings.HasPrefix(rest, "."):
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			name := rest[:end]
			rest = rest[end:]
			s := structDecl(t)
			if u := bare(t); s == nil && u.Kind == model.KindNamed && u.Decl.Kind == model.UnionDecl {
				return nil, nil, fmt.Errorf("%s: %s is a oneOf or anyOf, which a page walk cannot read", jsonPath, p)
			}
			if s == nil {
				return nil, nil, fmt.Errorf("%s: %s is not an object", jsonPath, p)
			}
			f := fieldPath(s, name, func(*model.Type) bool { return true })
			if f == nil {
				return nil, nil, fmt.Errorf("%s: the response has no property %q at %s", jsonPath, name, p)
			}
			p, t = append(p, f...), f[0].Field.Type
		default:
			return nil, nil, fmt.Errorf("%q: only .name and [-1] steps are understood", jsonPath)
		}
	}
	return p, t, nil
}

// warning returns a warning placed at the extension, or at the path inside it.
func (d *declared) warning(inside []string, format string, args ...any) *source.Error {
	return &source.Error{
		Pos: d.pos(inside),
		Op:  source.OpName(d.op.Method, d.op.Path, d.op.OperationID),
		Msg: fmt.Sprintf(format, args...),
	}
}

func (d *declared) warn(inside []string, format string, args ...any) {
	d.b.spec.Warnings.Add(d.warning(inside, format, args...))
}

// pos is where the extension is, or the path inside it.
func (d *declared) pos(inside []string) source.Pos {
	files := d.b.spec.Files
	if loc, ok := files.FieldLocation(d.kop.Origin, d.ext); ok {
		return files.Within(files.PosOfLocation(loc), inside...)
	}
	ptr := "#/paths/" + source.EscapePointer(d.op.Path) + "/" + strings.ToLower(d.op.Method) + "/" + source.EscapePointer(d.ext)
	for _, s := range inside {
		ptr += "/" + source.EscapePointer(s)
	}
	return files.PosOfPointer(ptr)
}
