package wire

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/retrygen/retrygen/runtime"
)

// Request is one call being built by a generated method. Its methods record the first
// problem, which Client.Do reports before anything is sent.
type Request struct {
	method      string
	path        pathText    // percent-encoded
	query       url.Values  // nil until a parameter is added
	header      http.Header // nil until a parameter is set
	cookies     []string
	body        io.Reader // nil: no body
	src         *source   // a body of parts streamed from the caller's readers, in place of body
	contentType string
	key         string // a declared idempotency key parameter's value
	op          runtime.Operation
	err         error
	noRedirects bool // see StopAtRedirect

	security  [][]string // the operation's security alternatives; see Security
	server    string     // the operation's own server URL; see Server
	sent      bool       // the body has been handed out once
	bodyStart int64      // where a seekable body started
}

// NewRequest starts a request with the HTTP method, e.g. "GET".
func NewRequest(method string) *Request {
	return &Request{method: method}
}

func (r *Request) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Path appends literal path text, already percent-encoded, e.g. "/pets/".
//
//go:noinline
func (r *Request) Path(escaped string) { r.path.WriteString(escaped) }

// PathParam appends the path parameter name with value v, written in style and escaped
// so that it stays one path segment: "../admin" becomes "..%2Fadmin", ".." becomes
// "%2E%2E". An unset or empty value fails the call.
func (r *Request) PathParam(name string, style PathStyle, v any) {
	if style != PathJSON {
		if s, ok := scalar(v); ok {
			r.pathParam(name, style, s, nil)
			return
		}
	}
	x, err := reduce(v, style == PathJSON)
	if err != nil {
		r.fail(fmt.Errorf("path parameter %q: %w", name, err))
		return
	}
	switch x := x.(type) {
	case string:
		r.pathParam(name, style, x, nil)
	default:
		r.pathParam(name, style, "", x)
	}
}

// pathParam is PathParam for a value reduced to the string s or, when x is not nil, to
// the []any or []member x.
func (r *Request) pathParam(name string, style PathStyle, s string, x any) {
	if x == nil && s == "" {
		r.fail(fmt.Errorf("path parameter %q is empty", name))
		return
	}
	prefix, sep, explode := "", ",", false
	switch style {
	case PathSimpleExplode:
		explode = true
	case PathLabel:
		prefix = "."
	case PathLabelExplode:
		prefix, sep, explode = ".", ".", true
	case PathMatrix:
		prefix = ";" + pathEscape(name) + "="
	case PathMatrixExplode:
		prefix = ";" + pathEscape(name) + "="
		sep, explode = prefix, true
	}
	r.path.WriteString(prefix)
	if x == nil {
		r.path.WriteString(pathEscape(s))
		return
	}
	var b strings.Builder
	switch x := x.(type) {
	case []any:
		for i, item := range x {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(pathEscape(plainString(item)))
		}
	case []member:
		for i, m := range x {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(pathEscape(m.name))
			if explode {
				b.WriteString("=")
			} else {
				b.WriteString(",")
			}
			b.WriteString(pathEscape(plainString(m.value)))
		}
	}
	r.path.WriteString(b.String())
}

// pathText is a request's percent-encoded path, kept as the pieces it is written in and
// joined once, after the base URL's path, when the call is made: a Request on its
// caller's stack holds the few pieces of most paths without an allocation, and the path
// takes one, the join, whatever the base URL.
type pathText struct {
	pieces [6]string
	n      int
	more   []string // the pieces after the first len(pieces)
}

// WriteString appends s to the path.
func (p *pathText) WriteString(s string) {
	switch {
	case s == "":
	case p.n < len(p.pieces):
		p.pieces[p.n] = s
		p.n++
	default:
		p.more = append(p.more, s)
	}
}

// after returns base followed by the path.
func (p *pathText) after(base string) string {
	if p.n == 0 {
		return base
	}
	if p.n == 1 && base == "" {
		return p.pieces[0]
	}
	size := len(base)
	for _, s := range p.pieces[:p.n] {
		size += len(s)
	}
	for _, s := range p.more {
		size += len(s)
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(base)
	for _, s := range p.pieces[:p.n] {
		b.WriteString(s)
	}
	for _, s := range p.more {
		b.WriteString(s)
	}
	return b.String()
}

func (p *pathText) String() string { return p.after("") }

// pathEscape escapes s as one path segment; a segment of dots only is escaped too, so
// that it cannot mean the current or parent directory.
func pathEscape(s string) string {
	if strings.Trim(s, ".") == "" {
		return strings.Repeat("%2E", len(s))
	}
	return url.PathEscape(s)
}

// QueryParam adds the query parameter name with value v, written in style. An unset value
// (nil) adds nothing.
func (r *Request) QueryParam(name string, style QueryStyle, v any) {
	x, err := reduce(v, style == QueryJSON)
	if err != nil {
		r.fail(fmt.Errorf("query parameter %q: %w", name, err))
		return
	}
	if x == nil {
		return
	}
	if r.query == nil {
		r.query = url.Values{}
	}
	addStyled(r.query, name, style, x)
}

// addStyled adds to values the pairs that write x, a value reduced to a string, []any or
// []member, as the parameter name in style; nil adds nothing.
func addStyled(values url.Values, name string, style QueryStyle, x any) {
	switch x := x.(type) {
	case string:
		values.Add(name, x)
	case []any:
		switch style {
		case QueryDeepObject:
			addDeep(values, name, x)
		case QueryForm:
			for _, item := range x {
				values.Add(name, plainString(item))
			}
		case QuerySpaceDelimited:
			values.Add(name, joinPlain(x, " "))
		case QueryPipeDelimited:
			values.Add(name, joinPlain(x, "|"))
		default:
			values.Add(name, joinPlain(x, ","))
		}
	case []member:
		switch style {
		case QueryDeepObject:
			addDeep(values, name, x)
		case QueryForm:
			for _, m := range x {
				values.Add(m.name, plainString(m.value))
			}
		default:
			values.Add(name, joinMembers(x, ","))
		}
	}
}

// SetQuery sets a query pair that the spec writes into the path itself, as in
// "/responses?beta=true".
func (r *Request) SetQuery(name, value string) {
	if r.query == nil {
		r.query = url.Values{}
	}
	r.query.Set(name, value)
}

// HeaderParam sets the header parameter name to v, written in style. An unset value (nil)
// sets nothing; a value with a control character, CR and LF included, fails the call.
func (r *Request) HeaderParam(name string, style HeaderStyle, v any) {
	x, err := reduce(v, style == HeaderJSON)
	if err != nil {
		r.fail(fmt.Errorf("header parameter %q: %w", name, err))
		return
	}
	var s string
	switch x := x.(type) {
	case nil:
		return
	case string:
		s = x
	case []any:
		s = joinPlain(x, ",")
	case []member:
		if style == HeaderSimpleExplode {
			s = joinPairs(x, "=", ",")
		} else {
			s = joinMembers(x, ",")
		}
	}
	if !validHeaderValue(s) {
		r.fail(fmt.Errorf("header parameter %q: value contains a control character", name))
		return
	}
	if r.header == nil {
		r.header = http.Header{}
	}
	r.header.Set(name, s)
}

// CookieParam adds the cookie parameter name with value v, written in style. An unset
// value (nil) adds nothing. Each value is percent-encoded where a cookie-octet (RFC 6265
// §4.1.1) cannot hold it: "a b;c" is sent as "a%20b%3Bc", and "%" itself as "%25"; the
// commas that separate the items of an unexploded array or object stay as they are.
func (r *Request) CookieParam(name string, style CookieStyle, v any) {
	x, err := reduce(v, style == CookieJSON)
	if err != nil {
		r.fail(fmt.Errorf("cookie parameter %q: %w", name, err))
		return
	}
	explode := style == CookieForm
	var pairs []string
	switch x := x.(type) {
	case nil:
		return
	case string:
		pairs = append(pairs, name+"="+cookieEscape(x))
	case []any:
		if explode {
			for _, item := range x {
				pairs = append(pairs, name+"="+cookieEscape(plainString(item)))
			}
		} else {
			items := make([]string, len(x))
			for i, item := range x {
				items[i] = cookieEscape(plainString(item))
			}
			pairs = append(pairs, name+"="+strings.Join(items, ","))
		}
	case []member:
		if explode {
			for _, m := range x {
				pairs = append(pairs, cookieEscape(m.name)+"="+cookieEscape(plainString(m.value)))
			}
		} else {
			items := make([]string, 0, 2*len(x))
			for _, m := range x {
				items = append(items, cookieEscape(m.name), cookieEscape(plainString(m.value)))
			}
			pairs = append(pairs, name+"="+strings.Join(items, ","))
		}
	}
	r.cookies = append(r.cookies, pairs...)
}

// cookieEscape percent-encodes the bytes of s that are not cookie-octets (controls,
// space, DQUOTE, comma, semicolon, backslash, non-ASCII) and "%".
func cookieEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == ',' || c == ';' || c == '\\' || c == '%' {
			if b.Len() == 0 {
				b.Grow(len(s) + 8)
				b.WriteString(s[:i])
			}
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 {
		return s
	}
	return b.String()
}

// Require fails the call when v, the value of a required parameter that can be nil (an
// array, an object, a free-form value), is nil: a required parameter is never left out.
// in is the parameter's location, e.g. "query".
func (r *Request) Require(in, name string, v any) {
	if isNil(v) {
		r.fail(fmt.Errorf("%s parameter %q is required", in, name))
	}
}

// IdempotencyKey makes key, the value of a declared idempotency key parameter, the
// call's idempotency key; an empty key leaves the choice to the runtime (a random key),
// and a key passed to the call as an option still wins.
func (r *Request) IdempotencyKey(key string) { r.key = key }

// StopAtRedirect makes a redirect the call's answer rather than following it, for
// Location: an operation whose only declared responses are redirects.
func (r *Request) StopAtRedirect() { r.noRedirects = true }

func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
