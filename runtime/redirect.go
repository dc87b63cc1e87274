package runtime

import (
	"errors"
	"net/http"
	"net/url"
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

// guardRedirects returns a copy of hc whose redirects away from the first request's host
// (or its subdomains, the rule net/http uses for Authorization) carry only the headers in
// redirectSafeHeaders. net/http itself strips only Authorization, Cookie and
// Proxy-Authorization there, so an API key in a header of its own (X-Api-Key), set by a
// request editor or a header parameter, would follow the redirect to any host. Once a chain
// has left the host, later hops stay stripped, even back on the first host. hc's own
// CheckRedirect, if any, runs after.
func guardRedirects(hc *http.Client) *http.Client {
	guarded := *hc
	next := hc.CheckRedirect
	guarded.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if leftHost(via[0].URL, via[1:], req) {
			for name := range req.Header {
				if !redirectSafeHeaders[name] {
					delete(req.Header, name)
				}
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 { // net/http's own limit, which a CheckRedirect replaces
			return errTooManyRedirects
		}
		return nil
	}
	return &guarded
}

var errTooManyRedirects = errors.New("stopped after 10 redirects")

// leftHost reports whether any hop of a redirect chain, first request excluded, went to a
// host that is neither the first request's nor one of its subdomains.
func leftHost(first *url.URL, hops []*http.Request, next *http.Request) bool {
	home := strings.ToLower(first.Hostname())
	away := func(u *url.URL) bool { return !isDomainOrSubdomain(strings.ToLower(u.Hostname()), home) }
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
