package wire

import (
	"errors"
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
