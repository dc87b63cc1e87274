package runtime

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// WithTokenRefresh makes a 401 answer whose WWW-Authenticate challenge says the bearer
// token is invalid (RFC 6750 §3.1, error="invalid_token": expired or revoked) call
// refresh, and repeat the attempt once with the header fields refresh returns (a fresh
// Authorization) in place of the request's. The repeat is not a retry: the server refused
// the request before it ran, so it is made for an operation that is not retry-safe too,
// it does not count against MaxAttempts and draws nothing from the budget. It is made
// once per call, only for a 401 from the request's own origin (not from a host a
// redirect went to), and only when the request's body can be sent again. When refresh
// returns an error or no fields, the call goes on with the 401 as with any answer.
func WithTokenRefresh(refresh func(ctx context.Context) (http.Header, error)) CallOption {
	return func(c *callConfig) { c.refresh = refresh }
}

// reauthorize decides whether the answer resp to attempt a of the call is a 401 for an
// invalid token that the call's WithTokenRefresh may repeat (see there). When it is, and
// the refresh gives fresh fields, it frees the answer and returns the header of the
// repeat (header, the call's, or req's own when nil, with the fresh fields) and the body
// to send with it.
func (e *Engine) reauthorize(ctx context.Context, req *http.Request, resp *http.Response, a *attempt, cfg *callConfig, header http.Header) (http.Header, io.ReadCloser, bool) {
	if cfg.refresh == nil || resp.StatusCode != http.StatusUnauthorized || !invalidToken(resp.Header) ||
		resp.Request == nil || !sameOrigin(resp.Request.URL, req.URL) {
		return nil, nil, false
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return nil, nil, false
	}
	fields, err := cfg.refresh(ctx)
	if err != nil || len(fields) == 0 {
		return nil, nil, false
	}
	var body io.ReadCloser
	if req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
		if body, err = req.GetBody(); err != nil {
			return nil, nil, false
		}
	}
	drain(resp.Body, drainLimit, a)
	a.release()
	if header == nil {
		header = req.Header
	}
	h := header.Clone()
	if h == nil {
		h = make(http.Header)
	}
	for k, v := range fields {
		h[http.CanonicalHeaderKey(k)] = v
	}
	return h, body, true
}

// invalidToken reports whether a WWW-Authenticate field of h holds a Bearer challenge
// with error="invalid_token" (RFC 6750 §3): the token expired or was revoked, so a fresh
// one may succeed where asking again with the same one cannot.
func invalidToken(h http.Header) bool {
	for _, v := range h.Values("Www-Authenticate") {
		scheme := ""
		for _, part := range splitOutsideQuotes(v, ',') {
			part = strings.TrimSpace(part)
			if i := strings.IndexAny(part, " ="); i < 0 || part[i] == ' ' {
				// A challenge starts: its scheme, then its first parameter, if any.
				scheme, part, _ = strings.Cut(part, " ")
				part = strings.TrimSpace(part)
			}
			key, value, ok := strings.Cut(part, "=")
			if ok && strings.EqualFold(scheme, "Bearer") && strings.EqualFold(strings.TrimSpace(key), "error") &&
				strings.Trim(strings.TrimSpace(value), `"`) == "invalid_token" {
				return true
			}
		}
	}
	return false
}

// sameOrigin reports whether u is on base's origin: the same scheme, host and port.
func sameOrigin(u, base *url.URL) bool {
	return !leftOrigin(base, nil, &http.Request{URL: u}, false)
}

// hiding returns the header whose values a call's errors hide once it repeated an attempt
// with a fresh token: the repeat's header h and the values of the header before it (old,
// or req's own when nil), so that neither token shows.
func hiding(h, old http.Header, req *http.Request) http.Header {
	if old == nil {
		old = req.Header
	}
	all := h.Clone()
	for k, v := range old {
		all[k] = append(all[k], v...)
	}
	return all
}
