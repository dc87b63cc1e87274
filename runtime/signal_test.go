package runtime

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestServerSignal(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    http.Header
		want signal
	}{
		{"none", header(), signalNone},
		{"true", header("x-should-retry", "true"), signalRetry},
		{"false", header("x-should-retry", "false"), signalStop},
		{"any case", header("X-Should-Retry", "TRUE"), signalRetry},
		{"mixed case", header("x-should-retry", "fAlSe"), signalStop},
		{"blanks around", header("x-should-retry", " \ttrue "), signalRetry},
		{"Stripe true", header("Stripe-Should-Retry", "true"), signalRetry},
		{"Stripe false", header("stripe-should-retry", "false"), signalStop},
		{"both agree", header("x-should-retry", "true", "Stripe-Should-Retry", "True"), signalRetry},
		{"both disagree", header("x-should-retry", "true", "Stripe-Should-Retry", "false"), signalStop},
		{"repeated, disagreeing", header("x-should-retry", "true", "x-should-retry", "false"), signalStop},
		{"repeated, false first", header("x-should-retry", "false", "x-should-retry", "true"), signalStop},
		{"repeated, agreeing", header("x-should-retry", "true", "x-should-retry", "true"), signalRetry},
		{"joined list, disagreeing", header("x-should-retry", "true, false"), signalStop},
		{"joined list, agreeing", header("x-should-retry", "true,true"), signalRetry},
		{"empty", header("x-should-retry", ""), signalNone},
		{"yes is not true", header("x-should-retry", "yes"), signalNone},
		{"1 is not true", header("x-should-retry", "1"), signalNone},
		{"quoted is not true", header("x-should-retry", `"true"`), signalNone},
		{"truex is not true", header("x-should-retry", "truex"), signalNone},
		{"inner blank", header("x-should-retry", "tr ue"), signalNone},
		{"garbage beside true", header("x-should-retry", "maybe", "x-should-retry", "true"), signalRetry},
		{"another header", header("Should-Retry", "false", "X-Retry", "true"), signalNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := serverSignal(tc.h); got != tc.want {
				t.Errorf("serverSignal(%v) = %d, want %d", tc.h, got, tc.want)
			}
		})
	}
}

// notRetrySafe is the policy of a POST without an idempotency key: 3 attempts, 100ms
// doubling, retried by itself only when the connection could not be opened.
func notRetrySafe() *Policy {
	p := idempotent()
	p.Idempotent = false
	return p
}

// answer answers attempt n with the status and header pairs of answers[n-1], then 200.
type answer struct {
	code   int
	header []string
}

func answers(list ...answer) func(int, *http.Request) (*http.Response, error) {
	return func(n int, _ *http.Request) (*http.Response, error) {
		if n > len(list) {
			return response(200, nil, "ok"), nil
		}
		a := list[n-1]
		return response(a.code, header(a.header...), "answer"), nil
	}
}

// A POST without a key that the server answers 503 with its word that a retry is safe is
// retried, body and all, and OnRetry says why.
func TestServerSaysRetry(t *testing.T) {
	for _, name := range []string{"x-should-retry", "Stripe-Should-Retry"} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &stub{fn: answers(answer{503, []string{name, "true"}})}
				e := engineFor(s, 0.5)
				var events []RetryEvent
				e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
				var logs bytes.Buffer
				e.Logger = slog.New(slog.NewTextHandler(&logs, nil))
				req := newRequest(t, t.Context(), "POST", testURL, strings.NewReader(`{"amount":1}`))
				resp, err := e.Do(t.Context(), req, notRetrySafe())
				if err != nil {
					t.Fatalf("err = %v after %d attempts", err, s.count())
				}
				resp.Body.Close()
				if s.count() != 2 || !bytes.Equal(s.bodies[0], s.bodies[1]) {
					t.Fatalf("%d attempts with bodies %q; want 2, the same body", s.count(), s.bodies)
				}
				if len(events) != 1 || !events[0].ServerSaidRetry || events[0].StatusCode != 503 {
					t.Fatalf("events = %+v, want one retry of the 503 the server said to retry", events)
				}
				if !strings.Contains(logs.String(), "retry.cause=server_said_retry") {
					t.Errorf("the log does not say the server asked for the retry: %s", logs.String())
				}
			})
		})
	}
	t.Run("a status the policy does not list", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: answers(answer{400, []string{"x-should-retry", "true"}})}
			resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
			if err != nil || s.count() != 2 {
				t.Fatalf("err = %v after %d attempts; want success after 2", err, s.count())
			}
			resp.Body.Close()
		})
	})
	t.Run("a 200 that says true is a success", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: answers(answer{200, []string{"x-should-retry", "true"}})}
			resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "POST", testURL, nil), notRetrySafe())
			if err != nil || s.count() != 1 {
				t.Fatalf("err = %v after %d attempts; want success after 1", err, s.count())
			}
			resp.Body.Close()
		})
	})
	// A redirect the call stops at, and a 304, are answers, not failures: a true on them
	// repeats nothing.
	t.Run("a redirect or a 304 that says true is the answer", func(t *testing.T) {
		for _, code := range []int{302, 304} {
			synctest.Test(t, func(t *testing.T) {
				s := &stub{fn: answers(answer{code, []string{"x-should-retry", "true", "Location", "/elsewhere"}})}
				_, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent(), WithoutRedirects())
				if e := mustError(t, err); s.count() != 1 || e.StatusCode != code || !errors.Is(err, ErrStatusNotRetried) {
					t.Fatalf("%d: err = %v after %d attempts; want the %d after 1", code, err, s.count(), code)
				}
			})
		}
	})
	t.Run("a retry on a status that is retried anyway says so too", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: answers(answer{503, nil}, answer{503, []string{"x-should-retry", "true"}})}
			e := engineFor(s, 0.5)
			var events []RetryEvent
			e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
			resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if len(events) != 2 || events[0].ServerSaidRetry || !events[1].ServerSaidRetry {
				t.Fatalf("events = %+v; want the second alone marked", events)
			}
		})
	})
}

// The server's false ends the call at once, whatever the policy retries.
func TestServerSaysNoRetry(t *testing.T) {
	for _, name := range []string{"x-should-retry", "Stripe-Should-Retry"} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &stub{fn: answers(answer{503, []string{name, "false"}})}
				start := time.Now()
				_, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
				e := mustError(t, err)
				if s.count() != 1 || e.Attempts != 1 || e.StatusCode != 503 || !errors.Is(err, ErrServerSaidNoRetry) || time.Since(start) != 0 {
					t.Fatalf("err = %v (cause %v) after %d attempts; want the 503 after 1, the server's word as cause", err, e.Cause, s.count())
				}
				if string(e.Body) != "answer" {
					t.Errorf("Body = %q, want the response's", e.Body)
				}
				if !strings.Contains(err.Error(), "the server said not to") {
					t.Errorf("the error does not say why the call stopped: %v", err)
				}
			})
		})
	}
	t.Run("values that disagree", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: answers(answer{503, []string{"x-should-retry", "true", "Stripe-Should-Retry", "false"}})}
			_, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
			if s.count() != 1 || !errors.Is(err, ErrServerSaidNoRetry) {
				t.Fatalf("err = %v after %d attempts; want ErrServerSaidNoRetry after 1", err, s.count())
			}
		})
	})
	t.Run("Retry-After does not outweigh it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: answers(answer{429, []string{"x-should-retry", "false", "Retry-After", "1"}})}
			_, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
			if s.count() != 1 || !errors.Is(err, ErrServerSaidNoRetry) || mustError(t, err).RetryAfter != time.Second {
				t.Fatalf("err = %v after %d attempts; want ErrServerSaidNoRetry after 1, the hint kept", err, s.count())
			}
		})
	})
}

// The server's true stays within everything else that bounds retries.
func TestServerSaysRetryWithinBounds(t *testing.T) {
	retrySafe := []string{"x-should-retry", "true"}
	do := func(t *testing.T, e *Engine, p *Policy, body io.Reader) error {
		t.Helper()
		resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "POST", testURL, body), p)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	t.Run("max attempts", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: answers(answer{503, retrySafe}, answer{503, retrySafe}, answer{503, retrySafe}, answer{503, retrySafe})}
			err := do(t, engineFor(s, 0.5), notRetrySafe(), nil)
			if s.count() != 3 || !errors.Is(err, ErrExhausted) {
				t.Fatalf("err = %v after %d attempts; want ErrExhausted after 3", err, s.count())
			}
		})
	})
	t.Run("budget", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// A 409 the server says to retry is a failure, not an answer that funds retries:
			// with a budget funded by successes alone, its retry is refused.
			s := &stub{fn: answers(answer{409, retrySafe})}
			e := engineFor(s, 0.5)
			e.Budget = NewSuccessBudget(0, 0, 1)
			err := do(t, e, notRetrySafe(), nil)
			if s.count() != 1 || !errors.Is(err, ErrBudgetExhausted) {
				t.Fatalf("err = %v after %d attempts; want ErrBudgetExhausted after 1", err, s.count())
			}
		})
	})
	t.Run("breaker", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// The POST's first answer says retry; while it waits, a GET fails and opens the
			// breaker; the POST's second answer says retry again, and the breaker ends it.
			s := &stub{fn: func(n int, r *http.Request) (*http.Response, error) {
				if r.Method == "GET" {
					return response(503, nil, ""), nil
				}
				return response(503, header(retrySafe...), ""), nil
			}}
			e := engineFor(s, 0.5)
			e.Breaker = NewBreaker(1, time.Minute)
			var (
				wg  sync.WaitGroup
				err error
			)
			wg.Go(func() { err = do(t, e, notRetrySafe(), nil) })
			synctest.Wait() // the POST waits its backoff
			once := idempotent()
			once.MaxAttempts = 1
			if _, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), once); errors.Is(err, ErrCircuitOpen) {
				t.Fatalf("GET: %v", err)
			}
			wg.Wait()
			if s.count() != 3 || !errors.Is(err, ErrCircuitOpen) || mustError(t, err).Attempts != 2 {
				t.Fatalf("POST: %v after %d round trips; want ErrCircuitOpen after 2 attempts of its own", err, s.count())
			}
		})
	})
	t.Run("Retry-After is a floor", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: answers(answer{400, []string{"x-should-retry", "true", "Retry-After", "2"}})}
			if err := do(t, engineFor(s, 0.5), notRetrySafe(), nil); err != nil {
				t.Fatal(err)
			}
			if g := s.gaps(); len(g) != 1 || g[0] != 2*time.Second+50*time.Millisecond {
				t.Fatalf("gaps = %v, want [2.05s]: the hint plus the backoff", g)
			}
		})
	})
	t.Run("MaxRetryAfter", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: answers(answer{503, []string{"x-should-retry", "true", "Retry-After", "61"}})}
			err := do(t, engineFor(s, 0.5), notRetrySafe(), nil)
			if s.count() != 1 || !errors.Is(err, ErrRetryAfterTooLong) {
				t.Fatalf("err = %v after %d attempts; want ErrRetryAfterTooLong after 1", err, s.count())
			}
		})
	})
	t.Run("deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: answers(answer{503, retrySafe})}
			p := notRetrySafe()
			p.InitialDelay, p.MaxDelay = time.Second, time.Second
			p.MaxElapsed = 400 * time.Millisecond
			err := do(t, engineFor(s, 0.5), p, nil)
			if s.count() != 1 || !errors.Is(err, ErrExhausted) {
				t.Fatalf("err = %v after %d attempts; want ErrExhausted (MaxElapsed) after 1", err, s.count())
			}
		})
	})
	t.Run("a body that cannot be replayed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: answers(answer{503, retrySafe})}
			err := do(t, engineFor(s, 0.5), notRetrySafe(), io.MultiReader(strings.NewReader("data")))
			if s.count() != 1 || !errors.Is(err, ErrBodyNotReplayable) {
				t.Fatalf("err = %v after %d attempts; want ErrBodyNotReplayable after 1", err, s.count())
			}
		})
	})
	t.Run("WithoutRetry", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: answers(answer{503, retrySafe})}
			resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "POST", testURL, nil), notRetrySafe(), WithoutRetry())
			if resp != nil {
				resp.Body.Close()
			}
			if s.count() != 1 || !errors.Is(err, ErrRetriesOff) {
				t.Fatalf("err = %v after %d attempts; want ErrRetriesOff after 1", err, s.count())
			}
		})
	})
}

// Policy.IgnoreServerSignals, set on the policy or by a client-wide override, leaves the
// decision to the policy alone.
func TestIgnoreServerSignals(t *testing.T) {
	for _, how := range []string{"policy", "override"} {
		t.Run(how, func(t *testing.T) {
			engine := func(s *stub) (*Engine, func(*Policy) *Policy) {
				e := engineFor(s, 0.5)
				if how == "override" {
					e.Override = func(p *Policy) { p.IgnoreServerSignals = true }
					return e, func(p *Policy) *Policy { return p }
				}
				return e, func(p *Policy) *Policy { p.IgnoreServerSignals = true; return p }
			}
			synctest.Test(t, func(t *testing.T) {
				s := &stub{fn: answers(answer{503, []string{"x-should-retry", "true"}})}
				e, ignore := engine(s)
				var events []RetryEvent
				e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
				_, err := e.Do(t.Context(), newRequest(t, t.Context(), "POST", testURL, nil), ignore(notRetrySafe()))
				if s.count() != 1 || !errors.Is(err, ErrNotRetrySafe) {
					t.Fatalf("true ignored: err = %v after %d attempts; want ErrNotRetrySafe after 1", err, s.count())
				}

				s = &stub{fn: answers(answer{503, []string{"Stripe-Should-Retry", "false"}}, answer{503, []string{"x-should-retry", "true"}})}
				e, ignore = engine(s)
				e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
				resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), ignore(idempotent()))
				if err != nil || s.count() != 3 {
					t.Fatalf("false ignored: err = %v after %d attempts; want success after 3", err, s.count())
				}
				resp.Body.Close()
				if len(events) != 2 || events[0].ServerSaidRetry || events[1].ServerSaidRetry {
					t.Fatalf("events = %+v; want two retries, neither the server's", events)
				}
			})
		})
	}
	t.Run("the zero policy honours the server", func(t *testing.T) {
		var p Policy
		if p.IgnoreServerSignals || DefaultPolicy().IgnoreServerSignals {
			t.Fatal("the zero or default policy ignores the server's word")
		}
	})
}
