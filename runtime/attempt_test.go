package runtime

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"testing"
	"testing/synctest"
	"time"
)

// The wait for a response header starts no timer when a deadline (the caller's, or the
// attempt's own) would end the attempt first: such a timer could never fire before it.
func TestHeaderTimerOnlyWhenItCanFire(t *testing.T) {
	for _, tc := range []struct {
		name      string
		deadline  time.Duration // the caller's; 0 for none
		attempt   time.Duration // Policy.AttemptTimeout; 0 for none
		streamed  bool          // WithStreamedBody: the attempt's limit ends with the answer
		wantTimer bool
	}{
		{"no deadline", 0, 0, false, true},
		{"a later deadline", time.Hour, 0, false, true},
		{"an earlier deadline", 5 * time.Second, 0, false, false},
		{"an earlier attempt timeout", 0, 5 * time.Second, false, false},
		{"an earlier attempt timeout, streamed", 0, 5 * time.Second, true, false},
		{"a later attempt timeout", 0, time.Hour, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var armed bool
				tr := &stub{fn: func(_ int, r *http.Request) (*http.Response, error) {
					httptrace.ContextClientTrace(r.Context()).WroteRequest(httptrace.WroteRequestInfo{})
					a := attemptFrom(r.Context())
					a.mu.Lock()
					armed = a.timer != nil
					a.mu.Unlock()
					return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
				}}
				e := &Engine{HTTPClient: &http.Client{Transport: tr}}
				ctx := t.Context()
				if tc.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.deadline)
					defer cancel()
				}
				p := idempotent()
				p.AttemptTimeout = tc.attempt
				var opts []CallOption
				if tc.streamed {
					opts = append(opts, WithStreamedBody())
				}
				resp, err := e.Do(ctx, newRequest(t, ctx, "GET", "http://api.test/pets", nil), p, opts...)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if armed != tc.wantTimer {
					t.Errorf("header timer started: %v; want %v (ResponseHeaderTimeout %v)", armed, tc.wantTimer, DefaultResponseHeaderTimeout)
				}
			})
		})
	}
}
