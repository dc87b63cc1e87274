package runtime

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// redirectSafeHeaders are the request headers a redirect to another host may keep: they
// describe the content and its negotiation, never who is asking.
var redirectSafeHeaders = map[string]bool{
	"Accept":              true,
	"Accept-Charset":      true,
	"Accept-Encoding":     true,
	"Accept-Language":     true,
	"Cache-Control":       true,
	"Content-Language":    true,
	"Content-Length":      true,
	"Content-Type":        true,
	"Idempotency-Key":     true,
	"If-Match":            true,
	"If-Modified-Since":   true,
	"If-None-Match":       true,
	"If-Unmodified-Since": true,
	"Range":               true,
	"User-Agent":          true,
}

// guardRedirects returns a copy of hc whose redirects away from the first request's
// origin carry only the headers in redirectSafeHeaders and the call's idempotency key, and
// none of the query parameters named in queryCredentials, even when the Location repeats
// them. The origin is the scheme, the host name (or one of its subdomains, the rule
// net/http uses for Authorization) and the port: a redirect from https to http on the same
// host, or to another port, leaves it. net/http itself strips only Authorization, Cookie
// and Proxy-Authorization, and only when the host name changes, so an API key in a header
// of its own (X-Api-Key), set by a request editor or a header parameter, would follow the
// redirect to any host, and every credential would follow a downgrade to cleartext. Once
// a chain has left the origin, later hops stay stripped, even back on it.
//
// For the query parameters the origin is stricter: a subdomain is another origin. A key
// in the URL goes to the host it was written for only.
//
// The idempotency key is kept whatever its header's name: the call's policy names it, and
// reaches CheckRedirect through the request's context (see attemptFrom).
//
// A call made WithoutRedirects stops at the first redirect, whatever hc would do.
//
// hc's own CheckRedirect, if any, runs after; an error it returns (other than
// http.ErrUseLastResponse) is wrapped as a refusal, which the engine never retries.
func guardRedirects(hc *http.Client, queryCredentials []string) *http.Client {
	guarded := *hc
	next := hc.CheckRedirect
	guarded.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		a := attemptFrom(req.Context())
		if a != nil && a.noRedirects {
			return http.ErrUseLastResponse
		}
		if leftOrigin(via[0].URL, via[1:], req, true) {
			for name := range req.Header {
				if !redirectSafeHeaders[name] && (a == nil || name != a.keyHeader) {
					delete(req.Header, name)
				}
			}
		}
		if len(queryCredentials) > 0 && leftOrigin(via[0].URL, via[1:], req, false) {
			dropQuery(req.URL, queryCredentials)
		}
		var err error
		switch {
		case next != nil:
			err = next(req, via)
		case len(via) >= 10: // net/http's own limit, which a CheckRedirect replaces
			err = errTooManyRedirects
		}
		if err != nil && err != http.ErrUseLastResponse {
			return &redirectRefused{err: err}
		}
		if err == nil {
			a.redirected()
		}
		return err
	}
	return &guarded
}

var errTooManyRedirects = errors.New("stopped after 10 redirects")

// redirectRefused is a CheckRedirect's refusal. The same request would be refused again,
// so the engine never retries it.
type redirectRefused struct{ err error }

func (e *redirectRefused) Error() string { return e.err.Error() }
func (e *redirectRefused) Unwrap() error { return e.err }

// leftOrigin reports whether any hop of a redirect chain, first request excluded, went to
// another origin than the first request's: another scheme, another port (a scheme's
// default port is the same as none), or another host, case folded. With subdomains, a
// subdomain of the first request's host counts as its origin.
func leftOrigin(first *url.URL, hops []*http.Request, next *http.Request, subdomains bool) bool {
	home := strings.ToLower(first.Hostname())
	scheme, port := strings.ToLower(first.Scheme), effectivePort(first)
	away := func(u *url.URL) bool {
		host := strings.ToLower(u.Hostname())
		return strings.ToLower(u.Scheme) != scheme || effectivePort(u) != port ||
			host != home && !(subdomains && isDomainOrSubdomain(host, home))
	}
	if away(next.URL) {
		return true
	}
	for _, r := range hops {
		if away(r.URL) {
			return true
		}
	}
	return false
}

// dropQuery removes from u's query every parameter whose name is one of names, case
// folded. The other parameters stay as they were written, in their order. A ';' counts as
// a separator too, as some servers read it, so no parameter can hide behind one.
func dropQuery(u *url.URL, names []string) {
	if u.RawQuery == "" || len(names) == 0 {
		return
	}
	named := func(pair string) bool {
		for piece := range strings.SplitSeq(pair, ";") {
			key, _, _ := strings.Cut(piece, "=")
			if k, err := url.QueryUnescape(key); err == nil {
				key = k
			}
			if slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, key) }) {
				return true
			}
		}
		return false
	}
	pairs := strings.Split(u.RawQuery, "&")
	u.RawQuery = strings.Join(slices.DeleteFunc(pairs, named), "&")
}

// effectivePort returns u's port, or its scheme's default.
func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// isDomainOrSubdomain reports whether sub is parent or a subdomain of it, as net/http
// decides it for sensitive headers.
func isDomainOrSubdomain(sub, parent string) bool {
	if sub == parent {
		return true
	}
	if strings.ContainsAny(sub, ":%") { // an IPv6 address, not a name
		return false
	}
	return strings.HasSuffix(sub, parent) && len(sub) > len(parent) && sub[len(sub)-len(parent)-1] == '.'
}
