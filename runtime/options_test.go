package runtime

import (
	"errors"
	"net/http"
	"reflect"
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

// CallPolicy is the policy Do makes a call by: Override first (on a copy with the
// defaults filled in), then the options, MaxAttempts included; the operation's own policy
// is left as it was.
func TestCallPolicy(t *testing.T) {
	post := Policy{MaxAttempts: 4, StatusCodes: []StatusCode{503}}
	for _, tt := range []struct {
		name     string
		override func(*Policy)
		opts     []CallOption
		want     Policy
		err      error
	}{
		{"none", nil, nil, post, nil},
		{"Override", func(p *Policy) { p.MaxAttempts = 2 }, nil, Policy{MaxAttempts: 2, StatusCodes: []StatusCode{503}, Multiplier: DefaultMultiplier, Jitter: JitterFull}, nil},
		{"WithMaxAttempts", nil, []CallOption{WithMaxAttempts(7)}, Policy{MaxAttempts: 7, StatusCodes: []StatusCode{503}}, nil},
		{"WithMaxAttempts(0)", nil, []CallOption{WithMaxAttempts(0)}, post, nil},
		{"WithoutRetry", func(p *Policy) { p.MaxAttempts = 9 }, []CallOption{WithoutRetry(), WithMaxAttempts(5)}, Policy{MaxAttempts: 1, StatusCodes: []StatusCode{503}, Multiplier: DefaultMultiplier, Jitter: JitterFull}, nil},
		{"WithIdempotent", nil, []CallOption{WithIdempotent()}, Policy{MaxAttempts: 4, StatusCodes: []StatusCode{503}, Idempotent: true}, nil},
		{"WithIdempotencyKey", nil, []CallOption{WithIdempotencyKey("k")},
			Policy{MaxAttempts: 4, StatusCodes: []StatusCode{503}, Idempotent: true, IdempotencyKey: DefaultIdempotencyKeyHeader}, nil},
		{"WithIdempotencyKey empty", nil, []CallOption{WithIdempotencyKey(" ")}, Policy{}, ErrOptionDoesNotApply},
	} {
		e := &Engine{Override: tt.override}
		got, err := e.CallPolicy(&post, tt.opts...)
		if !errors.Is(err, tt.err) || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, %v; want %+v, %v", tt.name, got, err, tt.want, tt.err)
		}
	}
	if post.MaxAttempts != 4 || post.Idempotent || post.StatusCodes[0] != 503 {
		t.Errorf("CallPolicy changed the policy it was given: %+v", post)
	}
}
