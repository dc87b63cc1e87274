package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/retrygen/retrygen/runtime"
)

// Endpoint is how a generated client's Do and DoRaw call an endpoint its spec lacks or
// describes wrongly: as an operation the document declared would be called, with the
// document's retry policy and security requirement.
type Endpoint struct {
	// Idempotent is the policy of a method that is retry-safe by itself: GET, HEAD,
	// OPTIONS, TRACE, PUT, DELETE. NotIdempotent is the policy of any other (POST,
	// PATCH), retried only when the call sends an idempotency key or is declared
	// idempotent (WithIdempotencyKey, WithIdempotent), or the document gives such methods
	// a key of its own.
	Idempotent, NotIdempotent *runtime.Policy
	// Security is the document's security requirement, as Request.Security takes it.
	Security [][]string
}

// idempotentMethod reports whether method is safe or idempotent by itself (RFC 9110
// §9.2.1, §9.2.2). Methods are case-sensitive: "get" is not GET.
func idempotentMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// DoJSON sends method to path, under the client's base URL, as e says (see Endpoint):
// body, when not nil, as JSON (an io.Reader as it is, application/octet-stream), and a
// 2xx answer's JSON body decoded into out (drained when out is nil). path is the path
// under the base URL, already escaped (see PathOf), with a query if any; a path that
// would leave the base URL fails the call before anything is sent (see endpointPath).
func (c *Client) DoJSON(ctx context.Context, e *Endpoint, method, path string, body, out any, opts []CallOption) error {
	r, p := e.request(method, path, body)
	if out == nil {
		resp, err := c.Call(ctx, r, p, "", opts)
		if err != nil {
			return err
		}
		return Discard(resp)
	}
	resp, err := c.Fetch(ctx, r, p, "application/json", opts)
	if err != nil {
		return err
	}
	return DecodeJSON(resp, out)
}

// DoRaw is DoJSON that returns the 2xx response with its body unread, for the caller to
// read and close.
func (c *Client) DoRaw(ctx context.Context, e *Endpoint, method, path string, body any, opts []CallOption) (*http.Response, error) {
	r, p := e.request(method, path, body)
	return c.Call(ctx, r, p, "", opts)
}

// request builds the request of method to path with body, and picks its policy.
func (e *Endpoint) request(method, path string, body any) (*Request, *runtime.Policy) {
	r := NewRequest(method)
	r.Security(e.Security...)
	p := e.NotIdempotent
	if idempotentMethod(method) {
		p = e.Idempotent
	}
	escaped, query, err := endpointPath(path)
	if err != nil {
		r.fail(err)
		return r, p
	}
	r.Path(escaped)
	for name, values := range query {
		for _, v := range values {
			if r.query == nil {
				r.query = url.Values{}
			}
			r.query.Add(name, v)
		}
	}
	switch b := body.(type) {
	case nil:
	case io.Reader:
		r.RawBody("application/octet-stream", b)
	default:
		r.JSONBody("application/json", b)
	}
	return r, p
}

// errEndpointPath is why a path given to Do cannot be sent.
var errEndpointPath = errors.New("not a path under the base URL")

// endpointPath checks path, as Do takes it, and returns its escaped path and its query.
// It must start with one "/", and may not hold a scheme, a host, user information, a
// fragment, an empty segment ("//"), a dot segment ("." or "..", percent-encoded or not), a backslash, a control
// character or a brace (a placeholder PathOf was not given a value for): anything that
// would send the request elsewhere than under the base URL, or that servers read as
// such.
func endpointPath(path string) (escaped string, query url.Values, err error) {
	fail := func(why string) (string, url.Values, error) {
		return "", nil, fmt.Errorf("path %q: %w: %s", excerptPath(path), errEndpointPath, why)
	}
	switch {
	case !strings.HasPrefix(path, "/"):
		return fail("it must start with /")
	case strings.HasPrefix(path, "//"):
		return fail("it names a host")
	case strings.Contains(strings.SplitN(path, "?", 2)[0], "//"):
		return fail("it holds an empty segment")
	case strings.ContainsAny(path, "\\#{}"):
		return fail("it holds a backslash, a fragment or an unfilled {placeholder}")
	case strings.ContainsFunc(path, func(r rune) bool { return r < 0x21 || r == 0x7f }):
		return fail("it holds a space or a control character")
	}
	u, err := url.Parse(path)
	if err != nil {
		return fail(err.Error())
	}
	if u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return fail("it names a host")
	}
	raw := u.EscapedPath()
	for seg := range strings.SplitSeq(raw, "/") {
		if s, err := url.PathUnescape(seg); err != nil || s == "." || s == ".." {
			return fail("it holds a dot segment")
		}
	}
	query, err = url.ParseQuery(u.RawQuery)
	if err != nil {
		return fail(err.Error())
	}
	return raw, query, nil
}

// excerptPath cuts a path shown in an error to 200 bytes: it is the caller's, but may be
// long.
func excerptPath(path string) string {
	if len(path) > 200 {
		return path[:200] + "..."
	}
	return path
}

// PathOf returns template with each of its {placeholders}, in order, replaced by the
// next of values written as fmt.Sprint writes it and escaped as one path segment, as a
// generated method escapes its path parameters: "../admin" becomes "..%2Fadmin", ".."
// "%2E%2E". A placeholder left without a value stays as it is written, and an empty
// value, or one left without a placeholder, is written "{}", so that Do refuses the path.
func PathOf(template string, values ...any) string {
	var b strings.Builder
	rest := template
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 || len(values) == 0 {
			break
		}
		b.WriteString(rest[:open])
		if v := fmt.Sprint(values[0]); v != "" {
			b.WriteString(pathEscape(v))
		} else {
			b.WriteString("{}") // no segment: refused, as a method refuses an empty path parameter
		}
		values, rest = values[1:], rest[open+end+1:]
	}
	b.WriteString(rest)
	if len(values) > 0 {
		b.WriteString("{}")
	}
	return b.String()
}
