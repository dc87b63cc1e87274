package wire

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/runtime"
)

// PathOf escapes each value as one segment, as a generated method escapes its path
// parameters; a mismatch between placeholders and values leaves a path Do refuses.
func TestPathOf(t *testing.T) {
	for _, tc := range []struct {
		template string
		values   []any
		want     string
	}{
		{"/repos/{owner}/{repo}/topics", []any{"octo", "hello"}, "/repos/octo/hello/topics"},
		{"/items/{id}", []any{42}, "/items/42"},
		{"/items/{id}", []any{"../admin"}, "/items/..%2Fadmin"},
		{"/items/{id}", []any{".."}, "/items/%2E%2E"},
		{"/items/{id}", []any{"a b?c#d"}, "/items/a%20b%3Fc%23d"},
		{"/items/{id}/{more}", []any{"x"}, "/items/x/{more}"},
		{"/items", []any{"x"}, "/items{}"},
		{"/items/{id}", []any{""}, "/items/{}"},
	} {
		if got := PathOf(tc.template, tc.values...); got != tc.want {
			t.Errorf("PathOf(%q, %v) = %q, want %q", tc.template, tc.values, got, tc.want)
		}
	}
}

// A path that would leave the base URL, or that servers read as another one, is refused
// before anything is sent.
func TestEndpointPathRefused(t *testing.T) {
	rt := &recorder{}
	c := newTestClient(t, rt)
	e := &Endpoint{Idempotent: &retrying, NotIdempotent: &runtime.Policy{}}
	for _, path := range []string{
		"", "repos", "//evil.test/x", "http://evil.test/x", "/a/../../admin", "/a/%2e%2e/admin", "/a/./b", "/a/%2E/b",
		`/a\..\b`, "/a#frag", "/a/{id}", "/a b", "/a\x00b", "/a//b", "/a/%zz",
		PathOf("/items/{id}", ".."[:0]), PathOf("/items", "x"),
	} {
		err := c.DoJSON(t.Context(), e, "GET", path, nil, nil, nil)
		if !errors.Is(err, errEndpointPath) {
			t.Errorf("path %q: err = %v", path, err)
		}
	}
	if len(rt.reqs) != 0 {
		t.Errorf("%d requests sent", len(rt.reqs))
	}
}

// Do goes under the base URL with the path, its query and the client's credentials; a
// GET is retried, a POST only with an idempotency key.
func TestEndpointDo(t *testing.T) {
	rt := &recorder{statuses: []int{503}}
	c := newTestClient(t, rt, WithCredential("key", APIKey("query", "api_key", "s3cret-key")))
	e := &Endpoint{Idempotent: &retrying, NotIdempotent: &runtime.Policy{MaxAttempts: 3, StatusCodes: []runtime.StatusCode{503}},
		Security: [][]string{{"key"}}}
	var out struct{ OK bool }
	if err := c.DoJSON(t.Context(), e, "GET", PathOf("/repos/{owner}/topics", "o/ct")+"?per_page=5", nil, &out, nil); err != nil || !out.OK {
		t.Fatalf("err = %v, out %+v", err, out)
	}
	if len(rt.reqs) != 2 || rt.reqs[1].URL.String() != "https://api.example.com/v1/repos/o%2Fct/topics?api_key=s3cret-key&per_page=5" ||
		rt.reqs[1].Header.Get("Accept") != "application/json" {
		t.Fatalf("requests %v", rt.reqs)
	}

	rt.statuses = []int{503}
	err := c.DoJSON(t.Context(), e, "POST", "/items", map[string]int{"n": 1}, nil, nil)
	if !errors.Is(err, runtime.ErrNotRetrySafe) || len(rt.reqs) != 3 || rt.bodies[2] != `{"n":1}` ||
		rt.reqs[2].Header.Get("Content-Type") != "application/json" || strings.Contains(err.Error(), "s3cret-key") {
		t.Fatalf("POST without a key: %v after %d requests", err, len(rt.reqs))
	}
	rt.statuses = []int{503}
	if err := c.DoJSON(t.Context(), e, "POST", "/items", strings.NewReader("raw"), nil, []CallOption{WithIdempotencyKey("k-1")}); err != nil {
		t.Fatal(err)
	}
	if len(rt.reqs) != 5 || rt.bodies[4] != "raw" || rt.reqs[4].Header.Get("Idempotency-Key") != "k-1" ||
		rt.reqs[4].Header.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("POST with a key: %d requests, last %v", len(rt.reqs), rt.reqs[len(rt.reqs)-1].Header)
	}

	resp, err := c.DoRaw(t.Context(), e, http.MethodGet, "/raw", nil, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("DoRaw: %v", err)
	}
	resp.Body.Close()
}
