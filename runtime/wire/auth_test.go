package wire

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/retrygen/retrygen/runtime"
)

// hopper answers a request for a path in hops with a 307 to its Location, and any other
// with 200; it keeps every request it gets.
type hopper struct {
	hops map[string]string // path → Location

	mu   sync.Mutex
	reqs []*http.Request
}

func (h *hopper) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.reqs = append(h.reqs, r)
	h.mu.Unlock()
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: r}
	if loc, ok := h.hops[r.URL.Path]; ok {
		resp.StatusCode = http.StatusTemporaryRedirect
		resp.Header.Set("Location", loc)
	}
	return resp, nil
}

// F4: no credential follows a redirect off the first request's origin (scheme, host,
// port; a default port is the same as none): not an API key in the query, even when the
// Location repeats it, in a cookie or in a header. On the origin they stay. A subdomain
// keeps headers and cookies, as net/http has it for Authorization, but not query keys.
func TestCredentialsStayOnTheirOrigin(t *testing.T) {
	const key = "K3Y-S3CRET"
	tests := []struct {
		name, base string
		hops       map[string]string
		// The last request carries the query key, and the header key and cookie.
		query, headers bool
		// net/http itself drops Cookie on a redirect whose host name differs, in case
		// only: the safe way, and not the client's doing.
		cookieDropped bool
	}{
		{"https to http, other port", "https://api.test:8443", map[string]string{"/a": "http://api.test:9000/b?x=1&api_key=" + key}, false, false, false},
		{"https to https, other port", "https://api.test:8443", map[string]string{"/a": "https://api.test:9443/b?x=1&api_key=" + key}, false, false, false},
		{"https to http, same host", "https://api.test", map[string]string{"/a": "http://api.test/b?x=1&api_key=" + key}, false, false, false},
		{"other host", "https://api.test", map[string]string{"/a": "https://evil.test/b?x=1&api_key=" + key}, false, false, false},
		{"name in other case", "https://api.test", map[string]string{"/a": "https://evil.test/b?x=1&API_KEY=" + key}, false, false, false},
		{"away and back", "https://api.test", map[string]string{"/a": "https://evil.test/b", "/b": "https://api.test/c?x=1&api_key=" + key}, false, false, false},
		{"IPv6, other port", "https://[::1]:8443", map[string]string{"/a": "https://[::1]:9443/b?x=1&api_key=" + key}, false, false, false},
		{"IPv6, other address", "https://[::1]", map[string]string{"/a": "https://[::2]/b?x=1&api_key=" + key}, false, false, false},
		{"same origin", "https://api.test", map[string]string{"/a": "/b?x=1&api_key=" + key}, true, true, false},
		{"default port spelled out", "https://api.test", map[string]string{"/a": "https://api.test:443/b?x=1&api_key=" + key}, true, true, false},
		{"upper case", "https://api.test", map[string]string{"/a": "HTTPS://API.TEST/b?x=1&api_key=" + key}, true, true, true},
		{"subdomain", "https://api.test", map[string]string{"/a": "https://eu.api.test/b?x=1&api_key=" + key}, false, true, false},
		{"IPv6, default port spelled out", "https://[::1]", map[string]string{"/a": "https://[::1]:443/b?x=1&api_key=" + key}, true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &hopper{hops: tt.hops}
			c, err := NewClient(tt.base, WithHTTPClient(&http.Client{Transport: h}),
				WithCredential("query", APIKey("query", "api_key", key)),
				WithCredential("cookie", APIKey("cookie", "sid", "C00KIE-S3CRET")),
				WithCredential("header", APIKey("header", "X-Api-Key", "H3ADER-S3CRET")))
			if err != nil {
				t.Fatal(err)
			}
			r := NewRequest("GET")
			r.Path("/a")
			r.Security([]string{"query", "cookie", "header"})
			resp, err := c.Call(context.Background(), r, &runtime.Policy{MaxAttempts: 1}, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			Discard(resp)
			last := h.reqs[len(h.reqs)-1]
			if len(h.reqs) != len(tt.hops)+1 || last.URL.Query().Get("x") != "1" {
				t.Fatalf("requests %v; want the chain to end at ?x=1", h.reqs)
			}
			type carried struct{ got, want bool }
			carries := map[string]carried{
				"query key":  {strings.Contains(strings.ToLower(last.URL.RawQuery), "api_key"), tt.query},
				"header key": {last.Header.Get("X-Api-Key") != "", tt.headers},
			}
			if !tt.cookieDropped {
				carries["cookie"] = carried{last.Header.Get("Cookie") != "", tt.headers}
			}
			for what, c := range carries {
				if c.got != c.want {
					t.Errorf("%s from %s: %s present = %v, want %v", last.URL, tt.base, what, c.got, c.want)
				}
			}
		})
	}
}
