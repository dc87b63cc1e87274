package runtime

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// A19: the breaker opens, refuses without sending, probes once, and closes or re-opens.
func TestCircuitBreakerOpensProbesCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		code := 503
		var mu sync.Mutex
		release := make(chan struct{})
		block := false
		s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
			mu.Lock()
			c, b := code, block
			mu.Unlock()
			if b {
				<-release
			}
			return response(c, nil, ""), nil
		}}
		e := engineFor(s, 0.5)
		e.Breaker = NewBreaker(5, 30*time.Second)
		once := idempotent()
		once.MaxAttempts = 1
		call := func() error {
			resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), once)
			if resp != nil {
				resp.Body.Close()
			}
			return err
		}
		for i := range 5 {
			if err := call(); errors.Is(err, ErrCircuitOpen) {
				t.Fatalf("call %d refused before the threshold", i+1)
			}
		}
		err := call()
		if !errors.Is(err, ErrCircuitOpen) || s.count() != 5 || mustError(t, err).Attempts != 0 {
			t.Fatalf("call 6: %v with %d round trips; want ErrCircuitOpen and no new round trip", err, s.count())
		}
		time.Sleep(30*time.Second - time.Nanosecond)
		if err := call(); !errors.Is(err, ErrCircuitOpen) {
			t.Fatalf("before the cool-down ends: %v", err)
		}
		time.Sleep(time.Nanosecond)

		// One probe goes out; a concurrent call is refused while it is out.
		mu.Lock()
		code, block = 503, true
		mu.Unlock()
		probeDone := make(chan error)
		go func() { probeDone <- call() }()
		synctest.Wait()
		if err := call(); !errors.Is(err, ErrCircuitOpen) {
			t.Fatalf("a call during the probe: %v, want ErrCircuitOpen", err)
		}
		mu.Lock()
		block = false
		mu.Unlock()
		close(release)
		if err := <-probeDone; errors.Is(err, ErrCircuitOpen) || s.count() != 6 {
			t.Fatalf("probe: %v after %d round trips", err, s.count())
		}
		// The probe failed: open again for a full cool-down.
		if err := call(); !errors.Is(err, ErrCircuitOpen) {
			t.Fatalf("after a failed probe: %v, want ErrCircuitOpen", err)
		}
		time.Sleep(30 * time.Second)
		mu.Lock()
		code = 200
		mu.Unlock()
		if err := call(); err != nil {
			t.Fatalf("second probe: %v", err)
		}
		for i := range 3 {
			if err := call(); err != nil {
				t.Fatalf("call %d after a good probe: %v", i, err)
			}
		}
	})
	t.Run("counts calls, not attempts", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(503)}
			e := engineFor(s, 0.5)
			e.Breaker = NewBreaker(3, time.Minute)
			p := idempotent() // 3 attempts
			for i := range 3 {
				_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
				if ee := mustError(t, err); errors.Is(err, ErrCircuitOpen) || ee.Attempts != 3 {
					t.Fatalf("call %d: %v after %d attempts; want 3 attempts, breaker closed", i+1, err, ee.Attempts)
				}
			}
			_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
			if !errors.Is(err, ErrCircuitOpen) || s.count() != 9 {
				t.Fatalf("call 4: %v after %d round trips; want ErrCircuitOpen after 9", err, s.count())
			}
		})
	})
	t.Run("a call fails on 5xx and 429 whatever the retry list", func(t *testing.T) {
		for _, code := range []int{500, 501, 503, 429} {
			synctest.Test(t, func(t *testing.T) {
				s := &stub{fn: status(code)}
				e := engineFor(s, 0.5)
				e.Breaker = NewBreaker(2, time.Minute)
				p := idempotent()
				p.StatusCodes = []StatusCode{} // retries no status at all
				for range 2 {
					e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
				}
				if _, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p); !errors.Is(err, ErrCircuitOpen) {
					t.Errorf("%d twice, not retried: third call %v, want ErrCircuitOpen", code, err)
				}
			})
		}
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(404)}
			e := engineFor(s, 0.5)
			e.Breaker = NewBreaker(1, time.Minute)
			for range 3 {
				if _, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent()); errors.Is(err, ErrCircuitOpen) {
					t.Fatal("404s opened the breaker")
				}
			}
		})
	})
	t.Run("a probe that panics or is cancelled frees the slot", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var mode atomic.Int32 // 0: 503, 1: panic, 2: hang, 3: 200
			s := &stub{fn: func(_ int, r *http.Request) (*http.Response, error) {
				switch mode.Load() {
				case 1:
					panic("transport bug")
				case 2:
					return hang(0, r)
				case 3:
					return response(200, nil, ""), nil
				}
				return response(503, nil, ""), nil
			}}
			e := engineFor(s, 0.5)
			e.Breaker = NewBreaker(1, time.Minute)
			once := idempotent()
			once.MaxAttempts = 1
			call := func(ctx context.Context) error {
				resp, err := e.Do(ctx, newRequest(t, ctx, "GET", testURL, nil), once)
				if resp != nil {
					resp.Body.Close()
				}
				return err
			}
			call(t.Context()) // opens it
			time.Sleep(time.Minute)
			mode.Store(1)
			func() {
				defer func() { recover() }()
				call(t.Context())
				t.Fatal("the probe did not panic")
			}()
			mode.Store(2)
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			if err := call(ctx); errors.Is(err, ErrCircuitOpen) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("after a panicking probe: %v; want a new probe, cancelled", err)
			}
			cancel()
			mode.Store(3)
			if err := call(t.Context()); err != nil {
				t.Fatalf("after a cancelled probe: %v; want a new probe that succeeds", err)
			}
			mode.Store(0)
			if err := call(t.Context()); errors.Is(err, ErrCircuitOpen) {
				t.Fatal("a good probe did not close the breaker")
			}
		})
	})
	t.Run("a call in its wait stops when the breaker opens", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(503)}
			e := engineFor(s, 0.5)
			e.Breaker = NewBreaker(1, time.Minute)
			p := idempotent()
			p.MaxAttempts = 5
			once := idempotent()
			once.MaxAttempts = 1
			done := make(chan error)
			go func() {
				_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
				done <- err
			}()
			synctest.Wait() // in its first wait
			e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), once)
			err := <-done
			if ee := mustError(t, err); !errors.Is(err, ErrCircuitOpen) || ee.StatusCode != 503 || ee.Attempts != 2 {
				t.Fatalf("err = %v (%d attempts); want ErrCircuitOpen with the 503 after 2", err, ee.Attempts)
			}
		})
	})
	t.Run("not-retried statuses and cancellations do not trip it", func(t *testing.T) {
		b := NewBreaker(2, time.Minute)
		now := time.Now()
		for range 5 {
			b.record(now, false, outcomeNeutral)
		}
		b.record(now, false, outcomeFailure)
		b.record(now, false, outcomeSuccess)
		b.record(now, false, outcomeFailure)
		if b.isOpen(now) {
			t.Fatal("failures separated by a success opened the breaker")
		}
		b.record(now, false, outcomeFailure)
		if !b.isOpen(now) {
			t.Fatal("two consecutive failures did not open it")
		}
		// A straggler's success while open changes nothing.
		b.record(now, false, outcomeSuccess)
		if !b.isOpen(now) {
			t.Fatal("a straggler closed the breaker")
		}
		// A neutral probe hands the probe to the next attempt.
		later := now.Add(time.Minute)
		if ok, probe := b.allow(later); !ok || !probe {
			t.Fatal("no probe after the cool-down")
		}
		b.record(later, true, outcomeNeutral)
		if ok, probe := b.allow(later); !ok || !probe {
			t.Fatal("a cancelled probe blocked the breaker")
		}
		var none *Breaker
		if ok, _ := none.allow(now); !ok || none.isOpen(now) {
			t.Fatal("a nil breaker refused")
		}
	})
}

// State says closed, open, then half open once the cool-down ends, and closed again
// after a probe that succeeds.
func TestBreakerState(t *testing.T) {
	now := time.Unix(0, 0)
	b := NewBreaker(1, time.Minute)
	if s := b.State(now); s != BreakerClosed {
		t.Errorf("new: %s", s)
	}
	b.record(now, false, outcomeFailure)
	if s := b.State(now); s != BreakerOpen {
		t.Errorf("after a failure: %s", s)
	}
	later := now.Add(time.Minute)
	if s := b.State(later); s != BreakerHalfOpen {
		t.Errorf("after the cool-down: %s", s)
	}
	_, probe := b.allow(later)
	b.record(later, probe, outcomeSuccess)
	if s := b.State(later); s != BreakerClosed {
		t.Errorf("after the probe: %s", s)
	}
	if (*Breaker)(nil).State(now) != BreakerClosed {
		t.Error("a nil breaker is not closed")
	}
}
