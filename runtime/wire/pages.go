package wire

import (
	"crypto/sha256"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/internal/shown"
)

// PageKind says how a paginated operation asks for the page after the one it got.
type PageKind int

const (
	// PageLink follows the response's Link header with rel="next" (RFC 8288).
	PageLink PageKind = iota + 1
	// PageURL follows the next page's URL that the response body gives (PageFacts.Cursor).
	PageURL
	// PageCursor sends the cursor the response gives (PageFacts.Cursor) as Pager.Param.
	PageCursor
	// PageOffset sends as Pager.Param the offset of the next page's first item: the
	// offset the page was asked with (0 when none) plus the items it held.
	PageOffset
	// PageNumber sends as Pager.Param the number of the page after the one asked for
	// (Pager.First when the request sent none).
	PageNumber
)

// Pager says how the walk of one paginated operation goes from page to page. Generated
// code passes one to Walk.
type Pager struct {
	Kind PageKind
	// In is where Param goes, "query" or "header"; Param names the parameter that
	// carries the cursor, offset or page number. PageLink and PageURL use neither.
	In, Param string
	// Limit names the query parameter that caps a page's items, for PageOffset and
	// PageNumber: a page with fewer items than the request asked for is the last. ""
	// when there is none.
	Limit string
	// First is the number of the page a PageNumber request gets without Param: the
	// parameter's default in the spec, usually 1.
	First int
}

// PageFacts is what a page's decoded response says of the walk.
type PageFacts struct {
	// Items is the number of items the page holds: a page with none is the last.
	Items int
	// More is the response's has_more, nil when it has none: false makes the page the
	// last.
	More *bool
	// Cursor is the next cursor the response gives (PageCursor), or the URL of the next
	// page as the response writes it (PageURL); "" on the last page.
	Cursor string
	// Pages is the number of pages the response says there are (PageNumber), counted
	// from Pager.First; 0 when it does not say.
	Pages int
}

// PageStep is one page of a walk: the call option that asks for it (Option), then what
// its response says of the next page (Info, Next). Walk makes one per page.
type PageStep struct {
	pager  *Pager
	cursor string // what the page is asked with; "" for the operation's request as built

	info  ResponseInfo
	url   *url.URL // where the page was asked, without credentials: a relative link's base
	sent  string   // the value of Pager.Param the request carried
	limit string   // the value of Pager.Limit the request carried
	next  string

	// walk is the walk as the client's observer sees it, handed on from page to page.
	walk observation
}

// Option is the call option that sends the page, to pass last to the operation's
// method: it puts the page's cursor in the request, and records the response for Info and
// Next.
func (s *PageStep) Option() CallOption { return s.option }

func (s *PageStep) option(cs *callSettings) { cs.page = s }

// Info describes the call that got the page: its status, headers, attempts.
func (s *PageStep) Info() ResponseInfo { return s.info }

// Next returns the cursor of the page after this one, "" when this one is the last: a
// page without items, a has_more of false, no next link or cursor, a page number past
// the count, or an offset or numbered page with fewer items than the request's limit.
// Walk goes on with it.
func (s *PageStep) Next(facts PageFacts) string {
	s.next = s.nextCursor(facts)
	return s.next
}

func (s *PageStep) nextCursor(f PageFacts) string {
	if f.Items == 0 || f.More != nil && !*f.More {
		return ""
	}
	switch s.pager.Kind {
	case PageLink:
		if link := nextLink(s.info.Header); link != "" {
			return s.resolve(link)
		}
	case PageURL:
		if f.Cursor != "" {
			return s.resolve(f.Cursor)
		}
	case PageCursor:
		return f.Cursor
	case PageOffset:
		if s.short(f.Items) {
			return ""
		}
		offset, _ := count(s.sent)
		return strconv.Itoa(offset + f.Items)
	case PageNumber:
		page, ok := count(s.sent)
		if !ok {
			page = s.pager.First
		}
		if s.short(f.Items) || f.Pages > 0 && page-s.pager.First+1 >= f.Pages {
			return ""
		}
		return strconv.Itoa(page + 1)
	}
	return ""
}

// short reports a page with fewer items than the limit its request sent.
func (s *PageStep) short(items int) bool {
	limit, ok := count(s.limit)
	return ok && limit > 0 && items < limit
}

// count reads a non-negative decimal integer, as offsets, page numbers and limits are
// written.
func count(s string) (int, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// resolve makes link absolute against the URL the page was asked at; a link that does
// not parse is kept as it is, for apply to refuse.
func (s *PageStep) resolve(link string) string {
	ref, err := url.Parse(link)
	if err != nil || s.url == nil {
		return link
	}
	return s.url.ResolveReference(ref).String()
}

// apply puts the page's cursor into the request being built: u is its URL with query
// (the parameters and the credentials) encoded, plain the same parameters without
// credentials, header its header; base is the URL of the API the operation is served at,
// and creds the names of the query parameters credentials use. A cursor the request
// cannot carry (a link outside the API, an offset that is not a number, a header value
// with a control character) is an error, and nothing is sent.
func (s *PageStep) apply(base, u *url.URL, plain, query url.Values, header http.Header, creds []string) error {
	at := *u
	at.RawQuery = plain.Encode()
	s.url = &at
	p := s.pager
	switch p.Kind {
	case PageLink, PageURL:
		if s.cursor == "" {
			return nil
		}
		next, err := follow(base, u, s.cursor)
		if err != nil {
			return err
		}
		q := next.Query()
		for _, name := range creds {
			if v, ok := query[name]; ok {
				q[name] = v
			}
		}
		u.Path, u.RawPath, u.RawQuery = next.Path, next.RawPath, q.Encode()
		at.Path, at.RawPath, at.RawQuery = next.Path, next.RawPath, next.RawQuery
		return nil
	}
	if s.cursor != "" {
		if _, ok := count(s.cursor); !ok && p.Kind != PageCursor {
			return fmt.Errorf("page cursor %q is not a number", s.cursor)
		}
		if p.In == "header" {
			if !validHeaderValue(s.cursor) {
				return fmt.Errorf("page cursor for header %s contains a control character", p.Param)
			}
			header.Set(p.Param, s.cursor)
		} else {
			// A request without query parameters has no maps for them yet.
			if plain == nil {
				plain = url.Values{}
			}
			if query == nil {
				query = url.Values{}
			}
			plain.Set(p.Param, s.cursor)
			query.Set(p.Param, s.cursor)
			u.RawQuery, at.RawQuery = query.Encode(), plain.Encode()
		}
	}
	if p.In == "header" {
		s.sent = header.Get(p.Param)
	} else {
		s.sent = query.Get(p.Param)
	}
	if p.Limit != "" {
		s.limit = query.Get(p.Limit)
	}
	return nil
}

// follow parses next, a next page's URL, against from, the URL of the page that gave it,
// and checks that it stays in the API at base: the same scheme, host and port, a path
// at or under base's, no user information and no dot segment (see plainPath). Anything
// else is refused with runtime.ErrPageLink: credentials never go to another server, nor
// elsewhere on the same one.
func follow(base, from *url.URL, next string) (*url.URL, error) {
	ref, err := url.Parse(next)
	if err != nil {
		return nil, fmt.Errorf("%w: the link is not a URL", runtime.ErrPageLink)
	}
	u := from.ResolveReference(ref)
	u.Fragment, u.RawFragment = "", ""
	if u.User != nil || !sameOrigin(u, base) || !underPath(u.Path, base.Path) {
		u.User = nil
		return nil, fmt.Errorf("%w: %s is outside %s", runtime.ErrPageLink, shownLink(u), shownLink(base))
	}
	return u, nil
}

// linkShown is the most of a link that an error shows, in bytes.
const linkShown = 120

// shownLink returns u as an error shows it: redacted, on one line, cut after linkShown
// bytes.
func shownLink(u *url.URL) string { return shown.Excerpt(RedactURL(u.String()), linkShown) }

// sameOrigin reports whether a and b have the same scheme, host and port (RFC 6454), a
// port left out being the scheme's default.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// decodings is how many times underPath decodes a path further, as a server that
// unescapes it again would: a path still encoded after that is refused.
const decodings = 3

// underPath reports whether path, decoded, is root or below it, and is a plain path
// (see plainPath) however many times a server decodes it again.
func underPath(path, root string) bool {
	root = strings.TrimSuffix(root, "/")
	if root != "" && path != root && !strings.HasPrefix(path, root+"/") {
		return false
	}
	for range decodings {
		if !plainPath(path) {
			return false
		}
		again, err := url.PathUnescape(path)
		if err != nil || again == path {
			return true
		}
		path = again
	}
	return false
}

// dotsAndSpaces are the characters a dot segment may be made of: ".", " ", and what NFKC
// normalization makes one or more "." (one and two dot leaders, the ellipsis, small and
// fullwidth full stops).
const dotsAndSpaces = ". \u2024\u2025\u2026\ufe52\uff0e"

// slashLike are the characters a server may read as a path separator: the backslash, and
// what NFKC normalization makes "/" or "\" (fullwidth solidus and reverse solidus, small
// reverse solidus).
const slashLike = "\\\uff0f\uff3c\ufe68"

// plainPath reports whether path is valid UTF-8 (an overlong "%C0%AE" is a dot to some
// decoders), has no character a server could read as a slash (see slashLike), and no dot
// segment: no segment made of dots and spaces only ("..", ".", "...", ".. ", which Windows
// servers trim to ".."; the dots may be ones that Unicode normalization makes "."),
// whatever path parameters or NUL follow it ("..;jsessionid=1", which Tomcat and Spring
// read as "..").
func plainPath(path string) bool {
	if !utf8.ValidString(path) || strings.ContainsAny(path, slashLike) {
		return false
	}
	for seg := range strings.SplitSeq(path, "/") {
		name, _, _ := strings.Cut(seg, ";")
		name, _, _ = strings.Cut(name, "\x00")
		if name != "" && strings.Trim(name, dotsAndSpaces) == "" {
			return false
		}
	}
	return true
}

// nextLink returns the target of the first link in h's Link fields whose relation types
// include "next" (RFC 8288 §3: `<https://api.example.com/items?page=2>; rel="next"`), ""
// when there is none.
func nextLink(h http.Header) string {
	for _, field := range h.Values("Link") {
		for rest := field; ; {
			rest = strings.TrimLeft(rest, " \t,")
			if !strings.HasPrefix(rest, "<") {
				break
			}
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				break
			}
			target := rest[1:end]
			var params []string
			params, rest = linkParams(rest[end+1:])
			if isNextLink(params) {
				return strings.TrimSpace(target)
			}
		}
	}
	return ""
}

// linkParams reads the parameters of one link value, up to the comma that ends it (one
// outside a quoted string), and returns them, as name=value texts, with what follows.
func linkParams(s string) (params []string, rest string) {
	var cur strings.Builder
	quoted, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case quoted && c == '\\':
			escaped = true
			continue
		case c == '"':
			quoted = !quoted
			continue
		case !quoted && c == ';':
			params = append(params, cur.String())
			cur.Reset()
			continue
		case !quoted && c == ',':
			return append(params, cur.String()), s[i+1:]
		}
		cur.WriteByte(c)
	}
	return append(params, cur.String()), ""
}

// isNextLink reports whether the first rel parameter among params lists "next".
func isNextLink(params []string) bool {
	for _, p := range params {
		name, value, _ := strings.Cut(p, "=")
		if !strings.EqualFold(strings.TrimSpace(name), "rel") {
			continue
		}
		for _, rel := range strings.Fields(value) {
			if strings.EqualFold(rel, "next") {
				return true
			}
		}
		return false
	}
	return false
}

// DefaultMaxPages is the most pages a walk asks for unless WithMaxPages says otherwise:
// far more than any real API's list needs, and few enough that a server handing out a
// fresh cursor forever ends the walk (with runtime.ErrTooManyPages). WithMaxPages(n) with
// a larger n lifts it, math.MaxInt for no bound at all.
const DefaultMaxPages = 100_000

// Walk returns the pages of a paginated operation, asked for one at a time as the loop
// over them goes on: page fetches one with the operation's ordinary method, passing it
// step.Option(), and builds the page from the response, with step.Info() and
// step.Next(...). Each page is one call under the operation's policy, budget and
// breaker, with its own retries; the walk never retries on top.
//
// The walk ends after the last page (see PageStep.Next), after WithMaxPages pages, when
// the loop stops (nothing more is sent), or with a *runtime.PageError yielded once: a
// page's call failed, its cursor repeats one the walk already used
// (runtime.ErrPageLoop), or it would be page DefaultMaxPages+1 and WithMaxPages set no
// bound (runtime.ErrTooManyPages). The walk keeps a hash of each cursor it used, not the
// cursor, so its memory does not grow with the cursors' size. It starts at WithCursor's
// cursor when opts have one. Every page gets opts: a WithResponseInfo describes the last
// page asked for when the walk ends. A WithIdempotencyKey ends the walk before anything
// is sent, as it cannot be every page's key.
func Walk[P any](pager *Pager, opts []CallOption, page func(step *PageStep) (P, error)) iter.Seq2[P, error] {
	s := settings(opts)
	return func(yield func(P, error) bool) {
		var zero P
		if s.keyed {
			yield(zero, &runtime.PageError{Page: 1, Cursor: s.cursor,
				Err: fmt.Errorf("WithIdempotencyKey: %w: each page is a call of its own", runtime.ErrOptionDoesNotApply)})
			return
		}
		var (
			walk  = observation{kind: runtime.KindWalk} // started by the first page's call
			pages int
			err   error // what ended the walk
		)
		defer func() { walk.end(pages, err, false) }()
		seen := map[[sha256.Size]byte]struct{}{}
		cursor := s.cursor
		for n := 1; ; n++ {
			if n > s.maxPages && s.maxPages > 0 {
				return
			}
			if err = walkOn(n, cursor, s.maxPages, seen); err != nil {
				yield(zero, err)
				return
			}
			step := &PageStep{pager: pager, cursor: cursor, walk: walk}
			p, perr := page(step)
			walk, pages = step.walk, n
			if perr != nil {
				err = &runtime.PageError{Page: n, Cursor: cursor, Err: perr}
				yield(zero, err)
				return
			}
			if !yield(p, nil) || step.next == "" {
				return
			}
			cursor = step.next
		}
	}
}

// walkOn returns why page n of a walk, to be asked with cursor, must not be: past the
// default bound when the walk has none of its own (maxPages < 1), or a cursor among seen,
// which it then joins. It returns nil when the page may be asked for.
func walkOn(n int, cursor string, maxPages int, seen map[[sha256.Size]byte]struct{}) error {
	if maxPages < 1 && n > DefaultMaxPages {
		return &runtime.PageError{Page: n, Cursor: cursor, Err: runtime.ErrTooManyPages}
	}
	if cursor == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(cursor))
	if _, ok := seen[sum]; ok {
		return &runtime.PageError{Page: n, Cursor: cursor, Err: runtime.ErrPageLoop}
	}
	seen[sum] = struct{}{}
	return nil
}

// Items yields the items of the pages that pages yields, in order, then the error that
// ended them, if any; item returns a page's i-th item, and false past its last. Stopping
// the loop stops the pages.
//
// Generated code passes pointers (a *Charge rather than a Charge), so that the one body
// compiled for pointer shapes serves every paginated operation of a client; Items is kept
// out of line for the same reason, or each call site would compile a copy of it.
//
//go:noinline
func Items[P, T any](pages iter.Seq2[P, error], item func(page P, i int) (T, bool)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for p, err := range pages {
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for i := 0; ; i++ {
				v, ok := item(p, i)
				if !ok {
					break
				}
				if !yield(v, nil) {
					return
				}
			}
		}
	}
}

// All yields the items of the pages that pages yields, in order, then the error that
// ended them, if any; items returns a page's items. Clients generated for
// runtime.SupportPackageIsVersion3 call it; later ones call Items.
func All[P, T any](pages iter.Seq2[P, error], items func(P) []T) iter.Seq2[T, error] {
	return Items(pages, func(p P, i int) (item T, ok bool) {
		if all := items(p); i < len(all) {
			item, ok = all[i], true
		}
		return
	})
}

// CursorOf writes a cursor that a response gives as something else than a string (a
// number, a named string type, a time) as a query parameter would carry it.
func CursorOf(v any) string {
	x, _ := plain(v)
	return plainString(x)
}
