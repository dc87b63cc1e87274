package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// A20: the attempt header, the hook and the log, and one engine shared by many goroutines.
func TestAttemptHeaderHookLogAndSharedEngine(t *testing.T) {
	t.Run("attempt header", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: sequence(503, 503, 200)}
			e := engineFor(s, 0.5)
			e.AttemptHeader = "Retry-Attempt"
			resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var got []string
			for _, r := range s.requests {
				got = append(got, r.Header.Get("Retry-Attempt"))
			}
			if strings.Join(got, ",") != "0,1,2" {
				t.Errorf("attempt headers %q, want 0,1,2", got)
			}
			s.n, s.requests = 0, nil
			req := newRequest(t, t.Context(), "GET", testURL, nil)
			req.Header.Set("Retry-Attempt", "mine")
			resp, err = e.Do(t.Context(), req, idempotent())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			for _, r := range s.requests {
				if r.Header.Get("Retry-Attempt") != "mine" {
					t.Errorf("the request's own value was replaced by %q", r.Header.Get("Retry-Attempt"))
				}
			}
			e.AttemptHeader = ""
			s.n, s.requests = 0, nil
			resp, _ = e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
			resp.Body.Close()
			if s.requests[0].Header.Get("Retry-Attempt") != "" {
				t.Error("an attempt header was sent without AttemptHeader")
			}
		})
	})
	t.Run("hook and log", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
			s := &stub{fn: func(n int, _ *http.Request) (*http.Response, error) {
				switch n {
				case 1:
					return response(503, nil, "secret-body"), nil
				case 2:
					return nil, reset
				}
				return response(200, nil, ""), nil
			}}
			e := engineFor(s, 0.5)
			var events []RetryEvent
			e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
			var logs bytes.Buffer
			e.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			req := newRequest(t, t.Context(), "GET", "https://user:pa55@api.test/pets", nil)
			req.Header.Set("Authorization", "Bearer s3cr3t-TOKEN")
			req.Header.Set("X-Api-Key", "k3y")
			resp, err := e.Do(t.Context(), req, idempotent())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if len(events) != 2 || !errors.Is(events[1].Err, syscall.ECONNRESET) {
				t.Fatalf("events %v, want 2, the second with the reset", events)
			}
			events[1].Err = nil
			want := []RetryEvent{
				{Method: "GET", URL: "https://api.test/pets", Attempt: 1, Wait: 50 * time.Millisecond, StatusCode: 503},
				{Method: "GET", URL: "https://api.test/pets", Attempt: 2, Wait: 100 * time.Millisecond},
			}
			if fmt.Sprint(events) != fmt.Sprint(want) {
				t.Errorf("events\n%v\nwant\n%v", events, want)
			}
			out := logs.String()
			for _, want := range []string{
				"level=WARN msg=\"retrying HTTP request\" http.request.method=GET url.full=https://api.test/pets http.request.resend_count=1 retry.wait=50ms retry.cause=backoff http.response.status_code=503\n",
				"http.request.resend_count=2 retry.wait=100ms retry.cause=backoff error.type=connection_reset error=",
				"connection reset by peer",
				"level=INFO msg=\"HTTP call ended\" http.request.method=GET url.full=https://api.test/pets retrygen.stop_reason=succeeded retrygen.attempts=3\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("log without %q:\n%s", want, out)
				}
			}
			if strings.Count(out, "level=WARN") != 2 {
				t.Errorf("log, want 2 WARN records:\n%s", out)
			}
			for _, secret := range []string{"pa55", "s3cr3t", "k3y", "secret-body"} {
				if strings.Contains(out, secret) {
					t.Errorf("the log leaks %q:\n%s", secret, out)
				}
			}
		})
	})
	t.Run("error text never leaks secrets", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
				return response(503, http.Header{"Set-Cookie": {"session=c00kie"}}, "secret-body"), nil
			}}
			req := newRequest(t, t.Context(), "GET", "https://user:pa55@api.test/pets", nil)
			req.Header.Set("Authorization", "Bearer s3cr3t-TOKEN")
			_, err := engineFor(s, 0).Do(t.Context(), req, idempotent())
			for _, text := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err)} {
				for _, secret := range []string{"pa55", "s3cr3t", "c00kie", "secret-body"} {
					if strings.Contains(text, secret) {
						t.Errorf("error text leaks %q: %s", secret, text)
					}
				}
			}
		})
	})
	t.Run("200 goroutines share one engine", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var mu sync.Mutex
			r := rand.New(rand.NewPCG(7, 7))
			s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
				mu.Lock()
				fail := r.Float64() < 0.3
				mu.Unlock()
				if fail {
					return response(503, nil, ""), nil
				}
				return response(200, nil, ""), nil
			}}
			var retries atomic.Int32
			e := &Engine{
				HTTPClient: &http.Client{Transport: s},
				Budget:     DefaultBudget(),
				Breaker:    NewBreaker(50, time.Second),
				OnRetry:    func(RetryEvent) { retries.Add(1) },
			}
			p := idempotent()
			var wg sync.WaitGroup
			var ok, failed atomic.Int32
			for range 200 {
				wg.Go(func() {
					resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
					var ee *Error
					switch {
					case err == nil:
						resp.Body.Close()
						ok.Add(1)
					case errors.As(err, &ee):
						failed.Add(1)
					default:
						t.Errorf("untyped error %v", err)
					}
				})
			}
			wg.Wait()
			if ok.Load()+failed.Load() != 200 {
				t.Fatalf("%d + %d outcomes for 200 calls", ok.Load(), failed.Load())
			}
			n := s.count()
			// 200 first attempts; retries within the default budget: one per successful
			// attempt (one per call that succeeded) plus the floor of three.
			if n > 200*p.MaxAttempts || n-200 > int(ok.Load())+3 || int(retries.Load()) != n-200 {
				t.Errorf("%d attempts, %d retries reported, for 200 calls", n, retries.Load())
			}
		})
	})
}

// The hook and logger cost nothing when unset; Override sees a copy.
func TestOverride(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: status(503)}
		e := engineFor(s, 0)
		e.Override = func(p *Policy) { p.MaxAttempts = 2 }
		p := idempotent()
		_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
		if mustError(t, err).Attempts != 2 || p.MaxAttempts != 3 {
			t.Fatalf("attempts %d, policy now %d; want 2 and the policy untouched", mustError(t, err).Attempts, p.MaxAttempts)
		}
		e.Override = func(p *Policy) { p.StatusCodes[0] = 404 }
		_, _ = e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
		if p.StatusCodes[0] != 408 {
			t.Fatalf("Override changed the operation's status codes: %v", p.StatusCodes)
		}
		e.Override = func(p *Policy) { p.Jitter = "bogus" }
		_, err = e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
		if ee := mustError(t, err); ee.Attempts != 0 || !strings.Contains(err.Error(), `Jitter must be one of`) || s.count() != 5 {
			t.Fatalf("invalid policy: %v after %d round trips", err, s.count())
		}
	})
}

// Zero delays mean no wait: an override can turn backoff off, e.g. for tests.
func TestZeroDelaysWaitNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: sequence(503, 503, 200)}
		e := engineFor(s, 0.99)
		e.Override = func(p *Policy) { p.InitialDelay, p.MaxDelay = 0, 0 }
		start := time.Now()
		resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if el := time.Since(start); el != 0 || s.count() != 3 {
			t.Fatalf("%d attempts in %v, want 3 at once", s.count(), el)
		}
	})
}

// Engine.Rand drives the jitter: a seeded source gives the same waits every run.
func TestInjectedRandom(t *testing.T) {
	waits := func(seed uint64) []time.Duration {
		var got []time.Duration
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(503)}
			src := rand.New(rand.NewPCG(seed, 7))
			e := &Engine{HTTPClient: &http.Client{Transport: s}, Rand: src.Float64}
			p := idempotent()
			p.MaxAttempts = 5
			e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
			got = s.gaps()
		})
		return got
	}
	a, b, c := waits(1), waits(1), waits(2)
	if len(a) != 4 || !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Fatalf("seed 1: %v then %v; seed 2: %v", a, b, c)
	}
	src := rand.New(rand.NewPCG(1, 7))
	p := idempotent()
	var prev time.Duration
	for i, g := range a {
		want := p.Backoff(i+1, prev, src.Float64())
		if g != want {
			t.Errorf("wait %d = %v, want %v from the seeded source", i+1, g, want)
		}
		prev = want
	}
}

// Override gets the policy with the defaults its zero fields stand for filled in, so that
// appending to StatusCodes adds to the statuses retried; the defaults themselves, and an
// empty list (no status retried), stay as they are.
func TestOverrideSeesTheDefaults(t *testing.T) {
	var seen Policy
	e := &Engine{Override: func(p *Policy) {
		seen = *p
		seen.StatusCodes = slices.Clone(p.StatusCodes)
		if len(p.StatusCodes) > 0 {
			p.StatusCodes[0] = 999 // the call's own list, not the defaults
		}
		p.StatusCodes = append(p.StatusCodes, 409)
	}}
	got, err := e.CallPolicy(&Policy{Idempotent: true})
	if err != nil {
		t.Fatal(err)
	}
	if seen.MaxAttempts != DefaultMaxAttempts || seen.Multiplier != DefaultMultiplier || seen.Jitter != JitterFull ||
		!slices.Equal(seen.StatusCodes, DefaultStatusCodes()) {
		t.Errorf("Override saw %+v", seen)
	}
	for _, code := range []int{409, 429, 503} {
		if !got.RetriesStatus(code) {
			t.Errorf("%d not retried under %v", code, got.StatusCodes)
		}
	}
	if !slices.Equal(DefaultStatusCodes(), []StatusCode{408, 429, 500, 502, 503, 504}) || !(&Policy{}).RetriesStatus(408) {
		t.Errorf("Override changed the defaults: %v", DefaultStatusCodes())
	}
	got, err = e.CallPolicy(&Policy{StatusCodes: []StatusCode{}})
	if err != nil || !slices.Equal(got.StatusCodes, []StatusCode{409}) {
		t.Errorf("from an empty list: %v, %v", got.StatusCodes, err)
	}
}
