package model

// PageKind says how a paginated operation asks for the page after the one it got.
type PageKind string

const (
	// PageLink follows the response's Link header with rel="next".
	PageLink PageKind = "link"
	// PageURL follows a next page's URL that the response body gives (Pagination.Cursor).
	PageURL PageKind = "url"
	// PageCursor sends the cursor the response gives (Pagination.Cursor) as Param.
	PageCursor PageKind = "cursor"
	// PageOffset sends as Param the offset of the next page's first item.
	PageOffset PageKind = "offset"
	// PageNumber sends as Param the number of the next page.
	PageNumber PageKind = "page"
)

// Pagination is how an operation's results go on over several pages: its method gets
// one page, and <Op>All and <Op>Pages walk them all.
type Pagination struct {
	Kind PageKind
	// From says where retrygen learnt it, as retrygen plan shows it: "x-pagination",
	// "x-speakeasy-pagination", "Link header", or the fields of a recognised shape, e.g.
	// "has_more+starting_after".
	From string
	// At is where the extension is written, e.g. "api.yaml:12:7"; "" for a shape.
	At string

	// AllName, PagesName and PageType are the generated names: e.g. "GetChargesAll",
	// which yields the items, "GetChargesPages", which yields the pages, and
	// "GetChargesPage", the struct of one page.
	AllName, PagesName, PageType string

	// Item is the type of one item, e.g. Charge.
	Item *Type
	// Items is the path from the operation's result to its array of items, e.g.
	// [Field data]; empty when the result is the array.
	Items Path
	// Param is the parameter that carries the cursor, offset or page number; nil for
	// PageLink and PageURL.
	Param *Param
	// Limit is the query parameter that caps a page's items, for PageOffset and
	// PageNumber; nil when there is none.
	Limit *Param
	// FirstPage is the number of the page the server sends when a PageNumber request
	// gives none: Param's default, else 1.
	FirstPage int
	// More is the path to the response's boolean has_more; empty when it has none.
	More Path
	// Cursor is the path to the next cursor (PageCursor) or the next page's URL
	// (PageURL), e.g. [Field data, Last, Field id] for Stripe's last item's id; empty for
	// the other kinds.
	Cursor Path
	// NumPages is the path to the number of pages, for PageNumber; empty when none.
	NumPages Path
}

// Yield is the type <Op>All yields for each item: a pointer into the page for a struct or
// a union (*Charge), so that items are not copied and one compiled walk serves every
// operation; Item itself otherwise (string).
func (p *Pagination) Yield() *Type {
	if p.Item.Composite() {
		return &Type{Kind: KindPointer, Elem: p.Item}
	}
	return p.Item
}

// Path leads from a decoded response to a value inside it, one step at a time.
type Path []PathStep

// PathStep is one step of a Path: a field of a struct (through a pointer or a Nullable
// when the field is one), the variant of a union, or the last element of a slice.
type PathStep struct {
	// Field is the struct's field; for a Variant step, the union's pointer to the
	// variant (GoName the variant's, Type a pointer to its type, Name empty). Nil for
	// Last.
	Field *Field
	// Variant marks the step into one variant of a union, which JSON does not name: a
	// value of another variant has nothing at the rest of the path.
	Variant bool
	Last    bool
}

// String writes p as the JSONPath it stands for, e.g. "$.data[-1].id".
func (p Path) String() string {
	s := "$"
	for _, st := range p {
		switch {
		case st.Last:
			s += "[-1]"
		case !st.Variant:
			s += "." + st.Field.Name
		}
	}
	return s
}
