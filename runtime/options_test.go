package runtime

import (
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// The caller may know more than the spec: WithIdempotencyKey makes one POST without a
// declared key retry-safe, sending the key; WithIdempotent does without a key. An option
// that cannot apply fails the call before anything is sent.
func TestCallerMakesOneCallRetrySafe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		post := DefaultPolicy() // a POST with no key: not retry-safe
		for _, tt := range []struct {
			name     string
			pol      Policy
			opts     []CallOption
			attempts int
			key      string // the header sent, "" for none
			notApply bool
		}{
			{"no option", post, nil, 1, "", false},
			{"WithIdempotencyKey", post, []CallOption{WithIdempotencyKey("order-7")}, 2, "order-7", false},
			{"WithIdempotent", post, []CallOption{WithIdempotent()}, 2, "", false},
			{"empty key", post, []CallOption{WithIdempotencyKey(" ")}, 0, "", true},
			{"key on a GET", *idempotent(), []CallOption{WithIdempotencyKey("k")}, 0, "", true},
			{"WithIdempotent on a GET", *idempotent(), []CallOption{WithIdempotent()}, 2, "", false},
		} {
			s := &stub{fn: sequence(503, 200)}
			e := engineFor(s, 0)
			p := tt.pol
			resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "POST", testURL, nil), &p, tt.opts...)
			if err == nil {
				resp.Body.Close()
			}
			if got := len(s.requests); got != tt.attempts {
				t.Errorf("%s: %d attempts, want %d (%v)", tt.name, got, tt.attempts, err)
			}
			if errors.Is(err, ErrOptionDoesNotApply) != tt.notApply {
				t.Errorf("%s: err %v, want ErrOptionDoesNotApply %v", tt.name, err, tt.notApply)
			}
			for _, r := range s.requests {
				if got := r.Header.Get("Idempotency-Key"); got != tt.key {
					t.Errorf("%s: key %q sent, want %q", tt.name, got, tt.key)
				}
			}
			if tt.name == "no option" && !errors.Is(err, ErrNotRetrySafe) {
				t.Errorf("no option: err %v, want it to say the POST is not retry-safe", err)
			}
		}
	})
}

// WithOutcome reports the attempts and the server's last hint, success included.
func TestWithOutcome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: func(n int, _ *http.Request) (*http.Response, error) {
			switch n {
			case 1:
				return response(503, nil, ""), nil
			case 2:
				return response(429, http.Header{"Retry-After": {"2"}}, ""), nil
			}
			return response(200, nil, "ok"), nil
		}}
		e := engineFor(s, 0)
		var o Outcome
		resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent(), WithOutcome(&o))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if o.Attempts != 3 || o.RetryAfter != 2*time.Second {
			t.Errorf("outcome %+v, want 3 attempts and a 2s hint", o)
		}
	})
}
