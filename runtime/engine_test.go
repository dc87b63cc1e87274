package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

const testURL = "http://api.test/pets"

// A6: Retry-After is a floor with the jittered backoff on top.
func TestRetryAfterIsFloorUnderJitter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rnd float64
		s := &stub{fn: func(n int, _ *http.Request) (*http.Response, error) {
			if n%2 == 1 {
				return response(503, header("Retry-After", "2"), ""), nil
			}
			return response(200, nil, ""), nil
		}}
		e := &Engine{HTTPClient: &http.Client{Transport: s}, Rand: func() float64 { return rnd }}
		p := idempotent()
		p.InitialDelay = 500 * time.Millisecond
		var lo, hi time.Duration = math.MaxInt64, 0
		for i := range 1000 {
			rnd = float64(i) / 1000
			start := time.Now()
			resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			wait := time.Since(start)
			if want := 2*time.Second + time.Duration(rnd*float64(500*time.Millisecond)); wait != want {
				t.Fatalf("rnd %v: waited %v, want %v", rnd, wait, want)
			}
			lo, hi = min(lo, wait), max(hi, wait)
		}
		if lo != 2*time.Second || hi < 2490*time.Millisecond || hi >= 2500*time.Millisecond {
			t.Errorf("waits span [%v, %v], want [2s, 2.5s)", lo, hi)
		}
	})
	t.Run("zero hint at attempt 3 still backs off", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: func(n int, _ *http.Request) (*http.Response, error) {
				if n < 4 {
					return response(503, header("Retry-After", "0"), ""), nil
				}
				return response(200, nil, ""), nil
			}}
			p := idempotent()
			p.MaxAttempts = 4
			resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond}
			if g := s.gaps(); len(g) != 3 || g[0] != want[0] || g[1] != want[1] || g[2] != want[2] {
				t.Fatalf("gaps = %v, want %v", g, want)
			}
		})
	})
	t.Run("ignored when the policy says so", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: func(n int, _ *http.Request) (*http.Response, error) {
				if n == 1 {
					return response(503, header("Retry-After", "3600"), ""), nil
				}
				return response(200, nil, ""), nil
			}}
			p := idempotent()
			p.RetryAfter = false
			resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if g := s.gaps(); len(g) != 1 || g[0] != 50*time.Millisecond {
				t.Fatalf("gaps = %v, want [50ms]", g)
			}
		})
	})
}

// A8: a hint over MaxRetryAfter, or past the deadline or MaxElapsed, ends the call at once.
func TestRetryAfterTooLongEndsCall(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hint     string
		deadline time.Duration // of the caller's context; 0 for none
		elapsed  time.Duration // MaxElapsed
		want     time.Duration
	}{
		{"a year", "31536000", 0, 0, 8760 * time.Hour},
		{"past 64 bits", "99999999999999999999", 0, 0, math.MaxInt64},
		{"a date a day ahead", "Sun, 02 Jan 2000 00:00:00 GMT", 0, 0, 24 * time.Hour},
		{"beyond the deadline", "10", 5 * time.Second, 0, 10 * time.Second},
		{"beyond MaxElapsed", "10", 0, 5 * time.Second, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The bubble's clock starts at 2000-01-01 00:00:00 UTC.
				s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
					return response(503, header("Retry-After", tc.hint), "slow down"), nil
				}}
				ctx := t.Context()
				if tc.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.deadline)
					defer cancel()
				}
				p := idempotent()
				p.MaxElapsed = tc.elapsed
				start := time.Now()
				_, err := engineFor(s, 0.5).Do(ctx, newRequest(t, ctx, "GET", testURL, nil), p)
				e := mustError(t, err)
				if !errors.Is(err, ErrRetryAfterTooLong) || e.RetryAfter != tc.want {
					t.Fatalf("err = %v (RetryAfter %v), want ErrRetryAfterTooLong carrying %v", err, e.RetryAfter, tc.want)
				}
				if s.count() != 1 || e.Attempts != 1 || time.Since(start) != 0 {
					t.Errorf("%d round trips, Attempts %d, after %v; want 1, 1, at once", s.count(), e.Attempts, time.Since(start))
				}
				if e.StatusCode != 503 || string(e.Body) != "slow down" || e.Header.Get("Retry-After") != tc.hint {
					t.Errorf("last response lost: %d %q %v", e.StatusCode, e.Body, e.Header)
				}
			})
		})
	}
	t.Run("a backoff past the deadline is not started", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(503)}
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			p := idempotent()
			p.Jitter = JitterNone
			p.InitialDelay = 400 * time.Millisecond
			start := time.Now()
			_, err := engineFor(s, 0.5).Do(ctx, newRequest(t, ctx, "GET", testURL, nil), p)
			if !errors.Is(err, context.DeadlineExceeded) || s.count() != 1 || time.Since(start) != 0 {
				t.Fatalf("err = %v after %d attempts and %v; want DeadlineExceeded, 1, at once", err, s.count(), time.Since(start))
			}
			if mustError(t, err).StatusCode != 503 {
				t.Error("the last status is lost")
			}
		})
	})
	t.Run("a backoff past MaxElapsed is not started", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(503)}
			p := idempotent()
			p.Jitter = JitterNone
			p.MaxAttempts = 10
			p.MaxElapsed = 1 * time.Second // waits 100, 200, 400ms fit; the 800ms one does not
			start := time.Now()
			_, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
			if !errors.Is(err, ErrExhausted) || s.count() != 4 || time.Since(start) != 700*time.Millisecond {
				t.Fatalf("err = %v after %d attempts and %v; want ErrExhausted, 4, 700ms", err, s.count(), time.Since(start))
			}
		})
	})
}

// A9: cancelling during a wait returns at once and stops the timer; a done context sends nothing.
func TestCancelDuringWaitReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: status(503)}
		e := engineFor(s, 0.5)
		var stops, stoppedActive atomic.Int32
		e.newTimer = func(d time.Duration) (<-chan time.Time, func() bool) {
			tm := time.NewTimer(d)
			return tm.C, func() bool {
				stops.Add(1)
				ok := tm.Stop()
				if ok {
					stoppedActive.Add(1)
				}
				return ok
			}
		}
		p := idempotent()
		p.Jitter = JitterNone
		p.InitialDelay = 10 * time.Second
		p.MaxDelay = 10 * time.Second
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		start := time.Now()
		_, err := e.Do(ctx, newRequest(t, ctx, "GET", testURL, nil), p)
		if el := time.Since(start); el != time.Second {
			t.Errorf("returned after %v, want 1s", el)
		}
		if !errors.Is(err, context.Canceled) || mustError(t, err).StatusCode != 503 || mustError(t, err).Attempts != 1 {
			t.Fatalf("err = %v, want context.Canceled after one 503", err)
		}
		time.Sleep(time.Hour)
		if s.count() != 1 {
			t.Errorf("%d round trips after the cancel, want 1", s.count())
		}
		if stops.Load() != 1 || stoppedActive.Load() != 1 {
			t.Errorf("timer stopped %d times (%d while pending), want 1", stops.Load(), stoppedActive.Load())
		}
	})
	t.Run("context done before the call", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(200)}
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			var getBodies atomic.Int32
			body := newTrackedBody(10)
			req := newRequest(t, ctx, "PUT", testURL, body)
			req.GetBody = func() (io.ReadCloser, error) { getBodies.Add(1); return newTrackedBody(10), nil }
			_, err := engineFor(s, 0.5).Do(ctx, req, idempotent())
			if !errors.Is(err, context.Canceled) || s.count() != 0 || getBodies.Load() != 0 {
				t.Fatalf("err = %v, %d round trips, %d GetBody calls; want Canceled, 0, 0", err, s.count(), getBodies.Load())
			}
			if mustError(t, err).Attempts != 0 || body.closes.Load() != 1 {
				t.Errorf("Attempts = %d, body closed %d times; want 0 and 1", mustError(t, err).Attempts, body.closes.Load())
			}
		})
	})
}

// hang blocks until the attempt's context is done.
func hang(_ int, r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// A10: the caller's deadline ends an attempt in flight and is never retried.
func TestCallerDeadlineNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: hang}
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		start := time.Now()
		_, err := engineFor(s, 0.5).Do(ctx, newRequest(t, ctx, "GET", testURL, nil), idempotent())
		if el := time.Since(start); el != 3*time.Second {
			t.Errorf("returned after %v, want 3s", el)
		}
		if !errors.Is(err, context.DeadlineExceeded) || s.count() != 1 || mustError(t, err).Attempts != 1 {
			t.Fatalf("err = %v after %d round trips; want DeadlineExceeded after 1", err, s.count())
		}
	})
}

// A11: a per-attempt timeout is retried, unlike the caller's deadline.
func TestAttemptTimeoutRetried(t *testing.T) {
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
		resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
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
		if t.Context().Err() != nil {
			t.Error("the caller's context was cancelled")
		}
	})
	t.Run("WithAttemptTimeout overrides the policy", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: func(n int, r *http.Request) (*http.Response, error) {
				if n == 1 {
					return hang(n, r)
				}
				return response(200, nil, ""), nil
			}}
			start := time.Now()
			resp, err := engineFor(s, 0).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent(), WithAttemptTimeout(250*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if el := time.Since(start); el != 250*time.Millisecond {
				t.Errorf("elapsed %v, want 250ms", el)
			}
		})
	})
}

// streamBody serves size bytes in chunks, one per gap, until ctx is done.
func streamBody(ctx context.Context, size, chunk int, gap time.Duration) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		buf := bytes.Repeat([]byte("y"), chunk)
		for sent := 0; sent < size; sent += chunk {
			select {
			case <-ctx.Done():
				pw.CloseWithError(ctx.Err())
				return
			case <-time.After(gap):
			}
			if _, err := pw.Write(buf); err != nil {
				return
			}
		}
		pw.Close()
	}()
	return pr
}

// A12: the attempt's context lives until the caller closes the body.
func TestAttemptContextLivesUntilBodyClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var attemptCtx context.Context
		s := &stub{fn: func(_ int, r *http.Request) (*http.Response, error) {
			attemptCtx = r.Context()
			resp := response(200, nil, "")
			resp.Body = streamBody(r.Context(), 1<<20, 64<<10, 100*time.Millisecond)
			return resp, nil
		}}
		p := idempotent()
		p.AttemptTimeout = 30 * time.Second
		resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		if err != nil || n != 1<<20 {
			t.Fatalf("read %d bytes, err %v; want 1 MiB", n, err)
		}
		if attemptCtx.Err() != nil {
			t.Fatal("the attempt's context ended before Close")
		}
		resp.Body.Close()
		if !errors.Is(attemptCtx.Err(), context.Canceled) {
			t.Errorf("after Close the attempt's context is %v, want canceled", attemptCtx.Err())
		}
		resp.Body.Close() // a second Close is harmless
	})
	t.Run("the timeout still bounds the body", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: func(_ int, r *http.Request) (*http.Response, error) {
				resp := response(200, nil, "")
				resp.Body = streamBody(r.Context(), 1<<20, 64<<10, 100*time.Millisecond)
				return resp, nil
			}}
			p := idempotent()
			p.AttemptTimeout = time.Second
			resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("read error %v, want DeadlineExceeded", err)
			}
		})
	})
}

// A13: a persistent failure makes exactly MaxAttempts attempts and says so.
func TestRetriesUpToMaxAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: func(n int, _ *http.Request) (*http.Response, error) {
			return response(503, header("X-Try", string(rune('0'+n))), "down"), nil
		}}
		_, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", "https://user:pa55@api.test/pets?limit=1", nil), idempotent())
		e := mustError(t, err)
		if s.count() != 3 || e.Attempts != 3 || e.StatusCode != 503 || !errors.Is(err, ErrExhausted) {
			t.Fatalf("%d round trips, %+v; want 3 attempts ending in 503, ErrExhausted", s.count(), e)
		}
		if e.Header.Get("X-Try") != "3" || string(e.Body) != "down" {
			t.Errorf("Header/Body are not the last response's: %v %q", e.Header, e.Body)
		}
		msg := err.Error()
		want := "GET https://api.test/pets?limit=REDACTED: 503 Service Unavailable after 3 attempts: retry attempts exhausted"
		if msg != want {
			t.Errorf("message\n%s\nwant\n%s", msg, want)
		}
		if strings.Contains(msg, "pa55") {
			t.Error("the password leaks")
		}
	})
	t.Run("transport errors", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
			s := &stub{fn: func(int, *http.Request) (*http.Response, error) { return nil, reset }}
			_, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
			var op *net.OpError
			if !errors.As(err, &op) || !errors.Is(err, syscall.ECONNRESET) || !errors.Is(err, ErrExhausted) || s.count() != 3 {
				t.Fatalf("err = %v after %d attempts; want the reset, reachable, after 3", err, s.count())
			}
			want := "GET http://api.test/pets: read tcp: connection reset by peer after 3 attempts: retry attempts exhausted"
			if err.Error() != want {
				t.Errorf("message\n%s\nwant\n%s", err.Error(), want)
			}
		})
	})
	t.Run("per-call attempt limits", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(503)}
			e := engineFor(s, 0)
			_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent(), WithMaxAttempts(6))
			if mustError(t, err).Attempts != 6 {
				t.Errorf("WithMaxAttempts(6): %d attempts", mustError(t, err).Attempts)
			}
			_, err = e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent(), WithoutRetry())
			if e := mustError(t, err); e.Attempts != 1 || !errors.Is(err, ErrRetriesOff) {
				t.Errorf("WithoutRetry: %d attempts, %v", e.Attempts, err)
			}
		})
	})
}

// A14: what is retried and what is not.
func TestWhatIsRetried(t *testing.T) {
	run := func(t *testing.T, p *Policy, fn func(int, *http.Request) (*http.Response, error)) (int, error) {
		t.Helper()
		var n int
		var err error
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: fn}
			start := time.Now()
			var resp *http.Response
			resp, err = engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
			if resp != nil {
				resp.Body.Close()
			}
			n = s.count()
			if n == 1 && time.Since(start) != 0 {
				t.Errorf("a call of one attempt took %v", time.Since(start))
			}
		})
		return n, err
	}
	for _, code := range []int{400, 401, 403, 404, 405, 409, 410, 422, 501, 505} {
		if n, err := run(t, idempotent(), status(code)); n != 1 || !errors.Is(err, ErrStatusNotRetried) {
			t.Errorf("%d: %d attempts, %v; want 1, ErrStatusNotRetried", code, n, err)
		}
	}
	for _, code := range []int{408, 429, 500, 502, 503, 504} {
		if n, _ := run(t, idempotent(), status(code)); n != 3 {
			t.Errorf("%d: %d attempts, want 3", code, n)
		}
	}
	t.Run("400 with Retry-After does not wait", func(t *testing.T) {
		n, err := run(t, idempotent(), func(int, *http.Request) (*http.Response, error) {
			return response(400, header("Retry-After", "5"), ""), nil
		})
		if n != 1 || mustError(t, err).StatusCode != 400 {
			t.Errorf("%d attempts, %v", n, err)
		}
	})
	t.Run("5XX class", func(t *testing.T) {
		p := idempotent()
		p.StatusCodes = []StatusCode{Class5XX}
		for _, code := range []int{500, 503, 507, 511, 599} {
			if n, _ := run(t, p, status(code)); n != 3 {
				t.Errorf("%d under 5XX: %d attempts, want 3", code, n)
			}
		}
		// No retry fixes these: the class leaves them out, a number brings them in.
		for _, code := range []int{501, 505} {
			if n, _ := run(t, p, status(code)); n != 1 {
				t.Errorf("%d under 5XX: %d attempts, want 1", code, n)
			}
			byNumber := idempotent()
			byNumber.StatusCodes = []StatusCode{Class5XX, StatusCode(code)}
			if n, _ := run(t, byNumber, status(code)); n != 3 {
				t.Errorf("%d listed by number: %d attempts, want 3", code, n)
			}
		}
	})
	notIdempotent := idempotent()
	notIdempotent.Idempotent = false
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	fail := func(err error) func(int, *http.Request) (*http.Response, error) {
		return func(int, *http.Request) (*http.Response, error) { return nil, err }
	}
	for _, tc := range []struct {
		name string
		p    *Policy
		fn   func(int, *http.Request) (*http.Response, error)
		want int
	}{
		{"503 on a non-idempotent call", notIdempotent, status(503), 1},
		{"reset on a non-idempotent call", notIdempotent, fail(reset), 1},
		{"refused on a non-idempotent call", notIdempotent, fail(dial), 3},
		{"proxy refused on a non-idempotent call", notIdempotent, fail(&net.OpError{Op: "proxyconnect", Err: syscall.ECONNREFUSED}), 3},
		{"reset on an idempotent call", idempotent(), fail(reset), 3},
		{"io.ErrUnexpectedEOF", idempotent(), fail(io.ErrUnexpectedEOF), 3},
		{"unknown authority", idempotent(), fail(x509.UnknownAuthorityError{}), 1},
		{"hostname mismatch", idempotent(), fail(x509.HostnameError{Host: "x"}), 1},
		{"no such host", idempotent(), fail(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}), 1},
		{"DNS timeout", idempotent(), fail(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "timeout", Name: "x", IsTimeout: true}}), 3},
		{"RetryableError false", idempotent(), fail(retryable(false)), 1},
		{"RetryableError true", notIdempotent, fail(retryable(true)), 1},
		{"RetryableError true, idempotent", idempotent(), fail(retryable(true)), 3},
		{"connection errors off", func() *Policy { p := idempotent(); p.ConnectionErrors = false; return p }(), fail(dial), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n, _ := run(t, tc.p, tc.fn); n != tc.want {
				t.Errorf("%d attempts, want %d", n, tc.want)
			}
		})
	}
	t.Run("redirect limit", func(t *testing.T) {
		var attempts int
		n, err := run(t, idempotent(), func(int, *http.Request) (*http.Response, error) {
			return response(302, header("Location", "/again"), ""), nil
		})
		attempts = mustError(t, err).Attempts
		if attempts != 1 || n != 10 || !strings.Contains(err.Error(), "stopped after 10 redirects") {
			t.Errorf("%d engine attempts (%d round trips): %v; want 1", attempts, n, err)
		}
	})
	t.Run("net/http refusals", func(t *testing.T) {
		// A real transport refuses these before dialling; were they dialled, 127.0.0.1:1
		// would refuse the connection, which is retried.
		for _, tc := range []struct {
			url, key, value, want string
		}{
			{"ftp://127.0.0.1:1/x", "", "", "unsupported protocol scheme"},
			{"http://127.0.0.1:1/x", "X-Bad", "a\r\nX-Evil: 1", "invalid header field value"},
			{"http://127.0.0.1:1/x", "Bad Name", "v", "invalid header field name"},
		} {
			tr := &http.Transport{}
			var retries int
			e := &Engine{HTTPClient: &http.Client{Transport: tr}, OnRetry: func(RetryEvent) { retries++ }, Rand: func() float64 { return 0 }}
			req := newRequest(t, t.Context(), "GET", tc.url, nil)
			if tc.key != "" {
				req.Header[tc.key] = []string{tc.value}
			}
			_, err := e.Do(t.Context(), req, idempotent())
			if err == nil || !strings.Contains(err.Error(), tc.want) || retries != 0 || mustError(t, err).Attempts != 1 {
				t.Errorf("%s %q: %v after %d retries; want %q, no retry", tc.url, tc.value, err, retries, tc.want)
			}
			tr.CloseIdleConnections()
		}
	})
	t.Run("caller cancellation", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
				cancel()
				return nil, &net.OpError{Op: "read", Err: context.Canceled}
			}}
			_, err := engineFor(s, 0.5).Do(ctx, newRequest(t, ctx, "GET", testURL, nil), idempotent())
			if s.count() != 1 || !errors.Is(err, context.Canceled) {
				t.Errorf("%d attempts, %v; want 1 and context.Canceled", s.count(), err)
			}
		})
	})
}

type retryable bool

func (r retryable) Error() string        { return "custom failure" }
func (r retryable) RetryableError() bool { return bool(r) }

// countingGetBody wraps a body source, counting GetBody calls and handing out tracked bodies.
type countingGetBody struct {
	data   []byte
	calls  atomic.Int32
	bodies []*trackedBody
}

func (c *countingGetBody) get() (io.ReadCloser, error) {
	c.calls.Add(1)
	b := &trackedBody{r: bytes.NewReader(c.data)}
	c.bodies = append(c.bodies, b)
	return b, nil
}

// A15: request bodies are replayed byte-identical; each attempt's body is closed once.
func TestRequestBodyReplayedIdentically(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		data := bytes.Repeat([]byte("order-42;"), 1000)
		s := &stub{fn: sequence(503, 503, 201)}
		gb := &countingGetBody{data: data}
		first := &trackedBody{r: bytes.NewReader(data)}
		req := newRequest(t, t.Context(), "POST", testURL, first)
		req.ContentLength = int64(len(data))
		req.GetBody = gb.get
		p := idempotent()
		p.IdempotencyKey = "Idempotency-Key"
		resp, err := engineFor(s, 0.5).Do(t.Context(), req, p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if s.count() != 3 || gb.calls.Load() != 2 {
			t.Fatalf("%d attempts, %d GetBody calls; want 3 and 2", s.count(), gb.calls.Load())
		}
		want := sha256.Sum256(data)
		for i, b := range s.bodies {
			if sha256.Sum256(b) != want || s.requests[i].ContentLength != int64(len(data)) {
				t.Errorf("attempt %d sent %d bytes (Content-Length %d), not the original", i+1, len(b), s.requests[i].ContentLength)
			}
		}
		for i, b := range append([]*trackedBody{first}, gb.bodies...) {
			if b.closes.Load() != 1 {
				t.Errorf("body %d closed %d times, want 1", i+1, b.closes.Load())
			}
		}
		keys := map[string]bool{}
		for _, r := range s.requests {
			keys[r.Header.Get("Idempotency-Key")] = true
		}
		if len(keys) != 1 {
			t.Errorf("idempotency keys %v, want one for all attempts", keys)
		}
	})
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// One idempotency key per logical call, the caller's when given, never replacing the request's.
func TestIdempotencyKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: sequence(503, 200)}
		e := engineFor(s, 0)
		p := idempotent()
		p.IdempotencyKey = "Idempotency-Key"
		call := func(req *http.Request, opts ...CallOption) []string {
			s.mu.Lock()
			s.n, s.requests = 0, nil
			s.mu.Unlock()
			resp, err := e.Do(t.Context(), req, p, opts...)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var keys []string
			for _, r := range s.requests {
				keys = append(keys, r.Header.Get("Idempotency-Key"))
			}
			return keys
		}
		req := newRequest(t, t.Context(), "POST", testURL, nil)
		k1 := call(req)
		k2 := call(req)
		if len(k1) != 2 || k1[0] != k1[1] || !uuidV4.MatchString(k1[0]) {
			t.Errorf("keys of one call %q, want one UUIDv4 twice", k1)
		}
		if k2[0] == k1[0] {
			t.Error("two calls share a key")
		}
		if req.Header.Get("Idempotency-Key") != "" {
			t.Error("Do changed the caller's request")
		}
		if k := call(newRequest(t, t.Context(), "POST", testURL, nil), WithIdempotencyKey("order-7")); k[0] != "order-7" || k[1] != "order-7" {
			t.Errorf("WithIdempotencyKey sent %q", k)
		}
		own := newRequest(t, t.Context(), "POST", testURL, nil)
		own.Header.Set("idempotency-key", "from-param")
		if k := call(own, WithIdempotencyKey("option")); k[0] != "from-param" || k[1] != "from-param" {
			t.Errorf("a request's own key was replaced: %q", k)
		}
		// An empty key counts as no key: the call gets a key of its own.
		for name, opts := range map[string][]CallOption{
			"request editor": nil,
			"WithHeader":     {WithHeader("Idempotency-Key", "")},
			"blank":          {WithHeader("Idempotency-Key", " ")},
			"empty option":   {WithIdempotencyKey("")},
		} {
			req := newRequest(t, t.Context(), "POST", testURL, nil)
			if name == "request editor" {
				req.Header.Set("Idempotency-Key", "")
			}
			if k := call(req, opts...); len(k) != 2 || k[0] != k[1] || !uuidV4.MatchString(k[0]) {
				t.Errorf("%s with an empty key: sent %q, want one UUIDv4 twice", name, k)
			}
		}
		p.IdempotencyKey = ""
		if k := call(newRequest(t, t.Context(), "POST", testURL, nil)); k[0] != "" {
			t.Errorf("a key was sent without a key header: %q", k)
		}
		// Without a key header in the policy, an empty key is not sent at all: net/http
		// would take its mere presence as leave to re-send the POST.
		for _, name := range []string{"Idempotency-Key", "X-Idempotency-Key"} {
			req := newRequest(t, t.Context(), "POST", testURL, nil)
			req.Header.Set(name, "")
			call(req)
			for _, r := range s.requests {
				if _, ok := r.Header[name]; ok {
					t.Errorf("an empty %s was sent", name)
				}
			}
		}
	})
	seen := map[string]bool{}
	for range 10000 {
		k := newUUID()
		if !uuidV4.MatchString(k) || seen[k] {
			t.Fatalf("key %q malformed or repeated", k)
		}
		seen[k] = true
	}
}

func TestWithHeader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: sequence(503, 200)}
		req := newRequest(t, t.Context(), "GET", testURL, nil)
		req.Header.Set("X-Trace", "old")
		resp, err := engineFor(s, 0).Do(t.Context(), req, idempotent(), WithHeader("X-Trace", "new"), WithHeader("X-Extra", "1"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		for i, r := range s.requests {
			if r.Header.Get("X-Trace") != "new" || r.Header.Get("X-Extra") != "1" {
				t.Errorf("attempt %d headers %v", i+1, r.Header)
			}
		}
		if req.Header.Get("X-Trace") != "old" {
			t.Error("Do changed the caller's request")
		}
	})
}

// A16: a body that cannot be replayed ends the call instead of sending an empty retry.
func TestNonReplayableBodyEndsCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: status(503)}
		req := newRequest(t, t.Context(), "PUT", testURL, io.MultiReader(strings.NewReader("data")))
		if req.GetBody != nil {
			t.Fatal("the test needs a request without GetBody")
		}
		start := time.Now()
		_, err := engineFor(s, 0.5).Do(t.Context(), req, idempotent())
		e := mustError(t, err)
		if !errors.Is(err, ErrBodyNotReplayable) || s.count() != 1 || e.StatusCode != 503 || time.Since(start) != 0 {
			t.Fatalf("err = %v after %d attempts; want ErrBodyNotReplayable with status 503 after 1, at once", err, s.count())
		}
	})
	t.Run("GetBody fails", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			errX := errors.New("spool gone")
			s := &stub{fn: status(503)}
			req := newRequest(t, t.Context(), "PUT", testURL, strings.NewReader("data"))
			req.GetBody = func() (io.ReadCloser, error) { return nil, errX }
			start := time.Now()
			_, err := engineFor(s, 0.5).Do(t.Context(), req, idempotent())
			if !errors.Is(err, errX) || !errors.Is(err, ErrBodyNotReplayable) || s.count() != 1 || time.Since(start) != 0 {
				t.Fatalf("err = %v after %d attempts and %v; want errX, 1, at once", err, s.count(), time.Since(start))
			}
		})
	})
	t.Run("NoBody needs no replay", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: sequence(503, 204)}
			req := newRequest(t, t.Context(), "DELETE", testURL, http.NoBody)
			resp, err := engineFor(s, 0.5).Do(t.Context(), req, idempotent())
			if err != nil || s.count() != 2 {
				t.Fatalf("err = %v after %d attempts", err, s.count())
			}
			resp.Body.Close()
		})
	})
}

// A17: failed attempts' bodies are drained (bounded) and closed; the final body is left open.
func TestFailedBodiesDrainedAndClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var bodies []*trackedBody
		s := &stub{fn: func(n int, _ *http.Request) (*http.Response, error) {
			b := newTrackedBody(100 << 10)
			bodies = append(bodies, b)
			resp := response(503, nil, "")
			if n == 4 {
				resp.StatusCode = 200
			}
			resp.Body = b
			return resp, nil
		}}
		p := idempotent()
		p.MaxAttempts = 4
		resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range bodies[:3] {
			if b.closes.Load() != 1 || b.read.Load() > drainLimit || b.read.Load() == 0 {
				t.Errorf("body %d: closed %d times, %d bytes read; want 1 and (0, %d]", i+1, b.closes.Load(), b.read.Load(), drainLimit)
			}
		}
		if last := bodies[3]; last.closes.Load() != 0 || last.read.Load() != 0 {
			t.Errorf("final body: closed %d, read %d; want open and unread", last.closes.Load(), last.read.Load())
		}
		resp.Body.Close()
	})
	t.Run("final error body is bounded", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			b := newTrackedBody(1 << 20)
			s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
				resp := response(404, nil, "")
				resp.Body = b
				return resp, nil
			}}
			_, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
			if e := mustError(t, err); len(e.Body) != ErrorBodyLimit || b.read.Load() != ErrorBodyLimit || b.closes.Load() != 1 {
				t.Errorf("Body %d bytes, %d read, closed %d; want %d, %d, 1", len(e.Body), b.read.Load(), b.closes.Load(), ErrorBodyLimit, ErrorBodyLimit)
			}
		})
	})
}

// A17, on the wire: drained failures keep one connection for all attempts.
func TestDrainedAttemptsShareConnection(t *testing.T) {
	var arrivals atomic.Int32
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrivals.Add(1) < 3 {
			w.WriteHeader(503)
			w.Write(bytes.Repeat([]byte("e"), 2<<10))
			return
		}
		io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	e := &Engine{HTTPClient: &http.Client{Transport: tr}, Rand: func() float64 { return 0 }}
	resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", srv.URL, nil), idempotent())
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if arrivals.Load() != 3 || conns.Load() != 1 {
		t.Errorf("%d arrivals on %d connections, want 3 on 1", arrivals.Load(), conns.Load())
	}
}

// 10,000 calls cancelled mid-backoff stop every timer and leave no goroutine behind (the
// bubble would report one still blocked).
func TestCancelledCallsLeaveNoTimers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: status(503)}
		e := engineFor(s, 0.5)
		var started, stopped atomic.Int32
		e.newTimer = func(d time.Duration) (<-chan time.Time, func() bool) {
			started.Add(1)
			tm := time.NewTimer(d)
			return tm.C, func() bool {
				if tm.Stop() {
					stopped.Add(1)
				}
				return true
			}
		}
		p := idempotent()
		p.Jitter = JitterNone
		p.InitialDelay, p.MaxDelay = 10*time.Second, 10*time.Second
		ctx, cancel := context.WithCancel(t.Context())
		const calls = 10000
		done := make(chan error, calls)
		for range calls {
			go func() {
				_, err := e.Do(ctx, newRequest(t, ctx, "GET", testURL, nil), p)
				done <- err
			}()
		}
		time.Sleep(time.Second)
		cancel()
		for range calls {
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want Canceled", err)
			}
		}
		if started.Load() != calls || stopped.Load() != calls {
			t.Errorf("%d timers started, %d stopped while pending; want %d each", started.Load(), stopped.Load(), calls)
		}
	})
}
