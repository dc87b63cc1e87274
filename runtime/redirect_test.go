package runtime

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
)

// redirectChain answers each request from a table of path → Location; a path without an
// entry answers 200.
func redirectChain(hops map[string]string) *stub {
	return &stub{fn: func(n int, r *http.Request) (*http.Response, error) {
		h := http.Header{}
		status := 200
		if loc, ok := hops[r.URL.Host+r.URL.Path]; ok {
			status = http.StatusTemporaryRedirect
			h.Set("Location", loc)
		}
		return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
	}}
}

func TestRedirectKeepsCredentialsOnTheirHost(t *testing.T) {
	tests := []struct {
		name string
		hops map[string]string
		keep []bool // per request of the chain: does it carry X-Api-Key
	}{
		{"same host", map[string]string{"api.test/a": "http://api.test/b"}, []bool{true, true}},
		{"subdomain", map[string]string{"api.test/a": "http://eu.api.test/b"}, []bool{true, true}},
		{"other host", map[string]string{"api.test/a": "http://evil.test/b"}, []bool{true, false}},
		{"parent domain", map[string]string{"eu.api.test/a": "http://api.test/b"}, []bool{true, false}},
		{"away and back", map[string]string{"api.test/a": "http://evil.test/b", "evil.test/b": "http://api.test/c"}, []bool{true, false, false}},
		{"same port", map[string]string{"api.test/a": "http://api.test:80/b"}, []bool{true, true}},
		{"other port", map[string]string{"api.test/a": "http://api.test:8080/b"}, []bool{true, false}},
		{"upgrade to https", map[string]string{"api.test/a": "https://api.test/b"}, []bool{true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := redirectChain(tt.hops)
			e := &Engine{HTTPClient: &http.Client{Transport: s}}
			start := "http://api.test/a"
			if tt.name == "parent domain" {
				start = "http://eu.api.test/a"
			}
			req, _ := http.NewRequest("GET", start, nil)
			req.Header.Set("X-Api-Key", "s3cr3t")
			req.Header.Set("Accept", "application/json")
			resp, err := e.Do(t.Context(), req, &Policy{MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if len(s.requests) != len(tt.keep) {
				t.Fatalf("%d requests, want %d", len(s.requests), len(tt.keep))
			}
			for i, r := range s.requests {
				if got := r.Header.Get("X-Api-Key") != ""; got != tt.keep[i] {
					t.Errorf("request %d to %s: X-Api-Key present = %v, want %v", i, r.URL, got, tt.keep[i])
				}
				if r.Header.Get("Accept") != "application/json" {
					t.Errorf("request %d to %s lost Accept", i, r.URL)
				}
			}
		})
	}
}

func TestRedirectRunsTheClientsOwnCheck(t *testing.T) {
	stop := errors.New("no redirects here")
	var calls int
	s := redirectChain(map[string]string{"api.test/a": "http://evil.test/b"})
	hc := &http.Client{Transport: s, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		calls++
		if req.Header.Get("X-Api-Key") != "" {
			t.Errorf("the client's CheckRedirect saw the key: it should run after the guard")
		}
		return stop
	}}
	e := &Engine{HTTPClient: hc}
	req, _ := http.NewRequest("GET", "http://api.test/a", nil)
	req.Header.Set("X-Api-Key", "s3cr3t")
	_, err := e.Do(t.Context(), req, &Policy{MaxAttempts: 1})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("err = %v after %d calls; want the client's own error after 1", err, calls)
	}
	if hc.CheckRedirect == nil || hc.Transport != s {
		t.Fatal("the caller's client was changed")
	}
}

func TestRedirectLimit(t *testing.T) {
	s := redirectChain(map[string]string{"api.test/a": "http://api.test/a"})
	e := &Engine{HTTPClient: &http.Client{Transport: s}}
	req, _ := http.NewRequest("GET", "http://api.test/a", nil)
	_, err := e.Do(t.Context(), req, &Policy{MaxAttempts: 3, StatusCodes: []StatusCode{Class5XX}, Idempotent: true, ConnectionErrors: true})
	var rerr *Error
	if !errors.As(err, &rerr) || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Fatalf("err = %v, want the redirect limit", err)
	}
	if rerr.Attempts != 1 || s.count() != 10 {
		t.Fatalf("%d attempts, %d requests; want 1 attempt of 10 requests (a redirect loop is not retried)", rerr.Attempts, s.count())
	}
}

// F4: credentials never follow a redirect that leaves the first request's origin: a scheme
// downgrade on the same host name, or another port, counts as leaving. net/http alone
// keeps Authorization and Cookie there, since it compares host names only.
func TestRedirectDowngradeDropsCredentials(t *testing.T) {
	for _, target := range []string{"http://api.test/b", "http://api.test:8443/b", "https://api.test:8443/b"} {
		t.Run(target, func(t *testing.T) {
			s := redirectChain(map[string]string{"api.test/a": target})
			e := &Engine{HTTPClient: &http.Client{Transport: s}}
			req, _ := http.NewRequest("GET", "https://api.test/a", nil)
			req.Header.Set("Authorization", "Bearer s3cr3t")
			req.Header.Set("Cookie", "session=c00kie")
			req.Header.Set("X-Api-Key", "k3y")
			req.Header.Set("X-Tenant-Token", "t0k")
			resp, err := e.Do(t.Context(), req, &Policy{MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if len(s.requests) != 2 {
				t.Fatalf("%d requests, want 2", len(s.requests))
			}
			for _, h := range []string{"Authorization", "Cookie", "X-Api-Key", "X-Tenant-Token"} {
				if v := s.requests[1].Header.Get(h); v != "" {
					t.Errorf("redirect to %s carries %s: %q", target, h, v)
				}
			}
		})
	}
}

// The policy's idempotency key header, whatever its name, follows a redirect to another
// host with the same value: the request must stay deduplicated there.
func TestRedirectKeepsTheIdempotencyKey(t *testing.T) {
	for _, name := range []string{"Idempotency-Key", "X-Idempotency-Key", "x-request-id"} {
		t.Run(name, func(t *testing.T) {
			s := redirectChain(map[string]string{"api.test/a": "http://other.test/b"})
			e := &Engine{HTTPClient: &http.Client{Transport: s}}
			req, _ := http.NewRequest("POST", "http://api.test/a", strings.NewReader("{}"))
			req.Header.Set("X-Api-Key", "k3y")
			p := &Policy{MaxAttempts: 1, Idempotent: true, IdempotencyKey: name}
			resp, err := e.Do(t.Context(), req, p)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if len(s.requests) != 2 {
				t.Fatalf("%d requests, want 2", len(s.requests))
			}
			first, second := s.requests[0].Header.Get(name), s.requests[1].Header.Get(name)
			if first == "" || second != first {
				t.Errorf("key %q on the first request, %q after the redirect; want the same", first, second)
			}
			if s.requests[1].Header.Get("X-Api-Key") != "" {
				t.Error("the API key followed the redirect")
			}
		})
	}
}

// A redirect the caller's CheckRedirect refuses is never retried: it would be refused again.
func TestRefusedRedirectIsNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stop := errors.New("no redirects here")
		s := redirectChain(map[string]string{"api.test/a": "http://api.test/b"})
		hc := &http.Client{Transport: s, CheckRedirect: func(*http.Request, []*http.Request) error { return stop }}
		e := &Engine{HTTPClient: hc}
		req, _ := http.NewRequest("GET", "http://api.test/a", nil)
		_, err := e.Do(t.Context(), req, idempotent())
		if !errors.Is(err, stop) || s.count() != 1 || mustError(t, err).Attempts != 1 {
			t.Fatalf("err = %v after %d requests; want the refusal after 1", err, s.count())
		}
	})
}

// dropQuery removes the named parameters whatever their case or escaping, a ';'-joined
// one included, and leaves the others as written.
func TestDropQuery(t *testing.T) {
	for raw, want := range map[string]string{
		"x=1&api_key=k&y=%2F":  "x=1&y=%2F",
		"API_KEY=k&x=1":        "x=1",
		"api%5Fkey=k&x=1":      "x=1",
		"x=1;api_key=k&y=2":    "y=2",
		"api_key&api_key=":     "",
		"x=1&y=2":              "x=1&y=2",
		"b=2&a=1&api_key=k&c=": "b=2&a=1&c=",
	} {
		u := &url.URL{RawQuery: raw}
		dropQuery(u, []string{"api_key"})
		if u.RawQuery != want {
			t.Errorf("%q: got %q, want %q", raw, u.RawQuery, want)
		}
	}
}
