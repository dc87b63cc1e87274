package wire

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// Call options given to the client apply to every call, before the call's own, which
// win where both set the same thing.
func TestCallDefaults(t *testing.T) {
	rt := &recorder{statuses: []int{503, 503, 503}}
	c := newTestClient(t, rt, WithCallDefaults(WithHeader("OpenAI-Beta", "assistants=v2"), WithMaxAttempts(1)))
	if _, err := c.Call(t.Context(), NewRequest("GET"), &retrying, "", nil); !errors.Is(err, runtime.ErrRetriesOff) {
		t.Errorf("err = %v, want one attempt", err)
	}
	if _, err := c.Call(t.Context(), NewRequest("GET"), &retrying, "", []CallOption{WithHeader("OpenAI-Beta", "v3"), WithMaxAttempts(3)}); err != nil {
		t.Errorf("err = %v, want the call's three attempts", err)
	}
	var got []string
	for _, r := range rt.reqs {
		got = append(got, r.Header.Get("OpenAI-Beta"))
	}
	if strings.Join(got, " ") != "assistants=v2 v3 v3 v3" {
		t.Errorf("headers %q", got)
	}
}

// An option that describes one call cannot be every call's: NewClient fails, naming it.
func TestCallDefaultsOfOneCall(t *testing.T) {
	var info ResponseInfo
	for _, o := range []struct {
		name string
		opt  CallOption
	}{
		{"WithIdempotencyKey", WithIdempotencyKey("k-1")},
		{"WithIdempotencyKey", WithHeader("idempotency-key", "k-1")}, // the same thing
		{"WithIdempotent", WithIdempotent()},
		{"WithResponseInfo", WithResponseInfo(&info)},
		{"WithCursor", WithCursor("c")},
		{"WithMaxPages", WithMaxPages(2)},
	} {
		_, err := NewClient("https://api.example.com", WithCallDefaults(WithHeader("A", "b"), o.opt))
		if !errors.Is(err, runtime.ErrOptionDoesNotApply) || !strings.Contains(err.Error(), o.name+" given to NewClient") {
			t.Errorf("%s: err = %v", o.name, err)
		}
	}
	if _, err := NewClient("https://api.example.com", WithCallDefaults(WithHeader("A", "b"), WithStreamIdleTimeout(time.Second))); err != nil {
		t.Errorf("err = %v for options of every call", err)
	}
}

// A client whose base URL or options cannot be used is made all the same, and every
// call it makes fails with why, before anything is sent: streams and page walks too.
func TestNewReportsAtFirstUse(t *testing.T) {
	rt := &recorder{}
	for _, tc := range []struct {
		opts []Option
		want string
	}{
		{[]Option{WithBaseURL("ftp://files.example.com")}, "want an absolute http or https URL"},
		{[]Option{WithBaseURL("https://api.example.com/v1?key=s3cret")}, "must not have a query"},
		{nil, "no base URL"},
		{[]Option{WithBaseURL("https://api.example.com"), WithCallDefaults(WithIdempotent())}, "WithIdempotent given to NewClient"},
	} {
		c := New(append([]Option{WithHTTPClient(&http.Client{Transport: rt})}, tc.opts...)...)
		if c.Err() == nil || !strings.Contains(c.Err().Error(), tc.want) || strings.Contains(c.Err().Error(), "s3cret") {
			t.Errorf("Err() = %v, want %q", c.Err(), tc.want)
		}
		_, err := c.Call(t.Context(), NewRequest("GET"), &retrying, "", nil)
		if !errors.Is(err, c.Err()) {
			t.Errorf("Call: %v", err)
		}
		if _, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &retrying, StreamConfig{}, nil); !errors.Is(err, c.Err()) {
			t.Errorf("OpenStream: %v", err)
		}
	}
	if len(rt.reqs) != 0 {
		t.Errorf("%d requests sent", len(rt.reqs))
	}
	c := New(WithSpecServers("https://api.example.com/v1"), WithHTTPClient(&http.Client{Transport: rt}))
	if _, err := c.Call(t.Context(), NewRequest("GET"), &retrying, "", nil); err != nil || c.Err() != nil || rt.reqs[0].URL.String() != "https://api.example.com/v1" {
		t.Errorf("the spec's server: %v", err)
	}
}
