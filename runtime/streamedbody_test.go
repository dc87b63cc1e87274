package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// Under WithStreamedBody, AttemptTimeout and MaxElapsed bound an attempt until its
// response header: a body that keeps coming for longer is read whole, and its attempt's
// context ends when it is closed.
func TestStreamedBodyOutlivesAttemptBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Policy)
	}{
		{"AttemptTimeout", func(p *Policy) { p.AttemptTimeout = 300 * time.Millisecond }},
		{"MaxElapsed", func(p *Policy) { p.MaxElapsed = 300 * time.Millisecond }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var attemptCtx context.Context
				s := &stub{fn: func(_ int, r *http.Request) (*http.Response, error) {
					attemptCtx = r.Context()
					resp := response(200, nil, "")
					resp.Body = streamBody(r.Context(), 1<<20, 64<<10, 100*time.Millisecond)
					return resp, nil
				}}
				p := idempotent()
				tc.set(p)
				resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p, WithStreamedBody())
				if err != nil {
					t.Fatal(err)
				}
				if n, err := io.Copy(io.Discard, resp.Body); err != nil || n != 1<<20 {
					t.Fatalf("read %d bytes, err %v; want 1 MiB over 1.6s", n, err)
				}
				if attemptCtx.Err() != nil {
					t.Fatal("the attempt's context ended before Close")
				}
				resp.Body.Close()
				if !errors.Is(attemptCtx.Err(), context.Canceled) {
					t.Errorf("after Close the attempt's context is %v, want canceled", attemptCtx.Err())
				}
			})
		})
	}
}

// Under WithStreamedBody an attempt whose header does not come within AttemptTimeout
// fails with context.DeadlineExceeded, as without it, and is retried.
func TestStreamedBodyAttemptTimeoutBoundsTheHeader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: func(n int, r *http.Request) (*http.Response, error) {
			if n == 1 {
				return hang(n, r)
			}
			return response(200, nil, "ok"), nil
		}}
		e := engineFor(s, 0.5)
		var events []RetryEvent
		e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
		p := idempotent()
		p.AttemptTimeout = time.Second
		start := time.Now()
		resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p, WithStreamedBody())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if el := time.Since(start); el != time.Second+50*time.Millisecond {
			t.Errorf("elapsed %v, want 1s + 50ms", el)
		}
		if s.count() != 2 || len(events) != 1 || !errors.Is(events[0].Err, context.DeadlineExceeded) {
			t.Fatalf("%d attempts, events %+v; want 2 attempts and one retry after a timeout", s.count(), events)
		}
		// What is left of MaxElapsed bounds the wait for the header the same way.
		s.fn = hang
		p.AttemptTimeout, p.MaxElapsed = 0, 500*time.Millisecond
		start = time.Now()
		_, err = e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p, WithStreamedBody())
		if el := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || el != 500*time.Millisecond {
			t.Errorf("err %v after %v; want DeadlineExceeded after 500ms", err, el)
		}
	})
}
