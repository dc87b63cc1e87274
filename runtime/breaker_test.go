package runtime

import (
	"errors"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// A19: the breaker opens, refuses without sending, probes once, and closes or re-opens.
func TestA19CircuitBreaker(t *testing.T) {
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
	t.Run("trips mid-loop without waiting out the backoff", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(503)}
			e := engineFor(s, 0.5)
			e.Breaker = NewBreaker(2, time.Minute)
			p := idempotent()
			p.MaxAttempts = 5
			start := time.Now()
			_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
			ee := mustError(t, err)
			if !errors.Is(err, ErrCircuitOpen) || ee.StatusCode != 503 || ee.Attempts != 2 || s.count() != 2 {
				t.Fatalf("err = %v (%d attempts); want ErrCircuitOpen with the 503 after 2", err, ee.Attempts)
			}
			if el := time.Since(start); el != 50*time.Millisecond {
				t.Errorf("took %v, want only the first wait (50ms)", el)
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
