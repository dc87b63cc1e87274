package runtime

import (
	"errors"
	"math"
	"net"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// A18: the budget's arithmetic, in virtual time, and what the engine does with it.
func TestRetryBudgetCapsRetries(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	withdraw := func(b *Budget, now time.Time, n int) (granted int) {
		for range n {
			if b.Withdraw(now) {
				granted++
			}
		}
		return granted
	}

	t.Run("ratio of recent calls", func(t *testing.T) {
		b := NewBudget(0.5, 0)
		for range 10 {
			b.Deposit(at(0))
		}
		if g := withdraw(b, at(0), 8); g != 5 {
			t.Fatalf("10 calls at ratio 0.5 granted %d retries, want 5", g)
		}
		if b.Withdraw(at(5 * time.Second)) {
			t.Fatal("a retry was granted with the budget spent")
		}
		b.Deposit(at(5 * time.Second))
		b.Deposit(at(5 * time.Second))
		if g := withdraw(b, at(5*time.Second), 3); g != 1 {
			t.Fatalf("12 calls, 5 retries: granted %d more, want 1", g)
		}
		// At 10s the first slot leaves the window: 2 calls, 1 retry remain.
		if g := withdraw(b, at(10*time.Second), 3); g != 0 {
			t.Fatalf("granted %d at 10s, want 0 (2 calls × 0.5 = 1, spent)", g)
		}
		// At 15s nothing is left in the window, so nothing is allowed either.
		if g := withdraw(b, at(15*time.Second), 3); g != 0 {
			t.Fatalf("granted %d with no recent calls, want 0", g)
		}
		for range 4 {
			b.Deposit(at(16 * time.Second))
		}
		if g := withdraw(b, at(16*time.Second), 3); g != 2 {
			t.Fatalf("granted %d after 4 fresh calls, want 2", g)
		}
	})
	t.Run("floor without traffic", func(t *testing.T) {
		b := NewBudget(0, 1)
		if g := withdraw(b, at(0), 20); g != 10 {
			t.Fatalf("floor of 1/s granted %d in one window, want 10", g)
		}
		if g := withdraw(b, at(9*time.Second), 5); g != 0 {
			t.Fatalf("granted %d within the same window, want 0", g)
		}
		if g := withdraw(b, at(10*time.Second), 20); g != 10 {
			t.Fatalf("granted %d in the next window, want 10", g)
		}
	})
	t.Run("successes fund retries, calls do not", func(t *testing.T) {
		b := NewSuccessBudget(0, 0, 1)
		for range 100 {
			b.Deposit(at(0))
		}
		if b.Withdraw(at(0)) {
			t.Fatal("a retry was granted with no success and no ratio")
		}
		for range 4 {
			b.Succeeded(at(time.Second))
		}
		if g := withdraw(b, at(2*time.Second), 10); g != 4 {
			t.Fatalf("4 successes granted %d retries, want 4", g)
		}
		// At 11s the successes of the first second leave the window.
		b.Succeeded(at(11 * time.Second))
		if g := withdraw(b, at(11*time.Second), 10); g != 0 {
			t.Fatalf("granted %d at 11s, want 0 (1 success, the 4 retries of 2s still count)", g)
		}
		if g := withdraw(b, at(12*time.Second), 10); g != 1 {
			t.Fatalf("granted %d at 12s, want 1", g)
		}
		var none *Budget
		none.Succeeded(at(0)) // a nil budget ignores successes
		b = NewBudget(0.1, 0)
		b.Succeeded(at(0))
		b.Succeeded(at(0))
		if b.Withdraw(at(0)) {
			t.Error("NewBudget counted a success")
		}
	})
	t.Run("default: three retries per success, less one per failure, plus three per window", func(t *testing.T) {
		b := DefaultBudget()
		for range 100 {
			b.Deposit(at(0))
		}
		if g := withdraw(b, at(time.Second), 50); g != 3 {
			t.Fatalf("100 calls and no success granted %d retries, want the floor of 3", g)
		}
		for range 20 {
			b.Succeeded(at(2 * time.Second))
		}
		if g := withdraw(b, at(2*time.Second), 100); g != 60 {
			t.Fatalf("20 successes granted %d more retries, want 60", g)
		}
		// 70 failures take back what the successes paid, and no more: the floor stays.
		for range 70 {
			b.Failed(at(3 * time.Second))
		}
		if g := withdraw(b, at(3*time.Second), 10); g != 0 {
			t.Fatalf("granted %d with the successes' share spent, want 0", g)
		}
		// Once the retries of 2s leave the window, only the floor is left.
		if g := withdraw(b, at(12*time.Second), 10); g != 3 {
			t.Fatalf("granted %d at 12s, want the floor's 3", g)
		}
		if DefaultBudgetRatio != 0 || DefaultBudgetMinRetriesSec != 0.3 || DefaultBudgetSuccessRatio != 3 || DefaultBudgetFailureCost != 1 {
			t.Fatal("the documented defaults changed")
		}
	})
	t.Run("failures take back what successes paid", func(t *testing.T) {
		b := NewBudgetOf(BudgetTerms{PerSuccess: 2, PerFailure: 1})
		for range 10 {
			b.Succeeded(at(0))
		}
		for range 5 {
			b.Failed(at(0))
		}
		if g := withdraw(b, at(0), 100); g != 15 {
			t.Fatalf("10 successes at 2 and 5 failures at 1 granted %d, want 15", g)
		}
		var none *Budget
		none.Failed(at(0)) // a nil budget ignores failures
		b = NewBudgetOf(BudgetTerms{PerSuccess: math.Inf(1), PerFailure: math.Inf(1), PerSecond: 0.1})
		b.Succeeded(at(0))
		b.Failed(at(0))
		if g := withdraw(b, at(0), 10); g != 1 {
			t.Fatalf("infinite terms on both sides granted %d, want the floor's 1", g)
		}
	})
	t.Run("odd arguments and clocks", func(t *testing.T) {
		var none *Budget
		none.Deposit(at(0))
		if !none.Withdraw(at(0)) {
			t.Error("a nil budget refused a retry")
		}
		for _, b := range []*Budget{NewBudget(-1, -1), NewBudget(math.NaN(), math.NaN()), NewBudget(0, 0),
			NewSuccessBudget(-1, -1, -1), NewSuccessBudget(math.NaN(), math.NaN(), math.NaN())} {
			b.Deposit(at(0))
			b.Succeeded(at(0))
			if b.Withdraw(at(0)) {
				t.Error("a zero budget granted a retry")
			}
		}
		b := NewBudget(math.Inf(1), 0)
		b.Deposit(at(0))
		if g := withdraw(b, at(0), 100); g != 100 {
			t.Errorf("an infinite ratio granted %d of 100", g)
		}
		b = NewSuccessBudget(0, 0, math.Inf(1))
		b.Succeeded(at(0))
		if g := withdraw(b, at(0), 100); g != 100 {
			t.Errorf("an infinite success ratio granted %d of 100", g)
		}
		// A clock that jumps back counts as the latest time seen.
		b = NewBudget(0.5, 0)
		for range 4 {
			b.Deposit(at(time.Minute))
		}
		if !b.Withdraw(at(-time.Hour)) {
			t.Error("a retry after a clock jump back was refused")
		}
		if g := withdraw(b, at(time.Minute), 3); g != 1 {
			t.Errorf("granted %d after the jump, want 1 (4 calls × 0.5 − 1)", g)
		}
	})
	t.Run("engine: the first attempt goes out, the retry is refused", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(503)}
			e := engineFor(s, 0.5)
			e.Budget = NewBudget(0, 0)
			_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
			if ee := mustError(t, err); !errors.Is(err, ErrBudgetExhausted) || s.count() != 1 || ee.StatusCode != 503 || ee.Attempts != 1 {
				t.Fatalf("err = %v after %d round trips; want ErrBudgetExhausted with the 503, after 1", err, s.count())
			}
			reset := &net.OpError{Op: "read", Err: syscall.ECONNRESET}
			s.fn = func(int, *http.Request) (*http.Response, error) { return nil, reset }
			_, err = e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
			var op *net.OpError
			if !errors.Is(err, ErrBudgetExhausted) || !errors.As(err, &op) {
				t.Fatalf("err = %v, want ErrBudgetExhausted wrapping the reset", err)
			}
		})
	})
	t.Run("engine: a storm is bounded", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			budget *Budget
			max    int
		}{
			{"with the default budget", DefaultBudget(), 1000 + 3},
			{"with the former default, 10% + 1/s", NewBudget(0.1, 1), 1000 + 100 + 10},
			{"without a budget", nil, 3000},
		} {
			synctest.Test(t, func(t *testing.T) {
				s := &stub{fn: status(503)}
				e := &Engine{HTTPClient: &http.Client{Transport: s}, Budget: tc.budget}
				var wg sync.WaitGroup
				for range 1000 {
					wg.Go(func() {
						_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
						if err == nil {
							t.Error("a call succeeded against a dead server")
						}
					})
				}
				wg.Wait()
				if n := s.count(); n > tc.max || (tc.budget == nil && n != tc.max) {
					t.Errorf("%s: %d arrivals for 1000 calls, want at most %d", tc.name, n, tc.max)
				} else {
					t.Logf("%s: %d arrivals for 1000 calls (amplification %.3f)", tc.name, n, float64(n)/1000)
				}
			})
		}
	})
}

// Available counts down as retries are taken, and says below 1 when Withdraw refuses.
func TestBudgetAvailable(t *testing.T) {
	now := time.Unix(0, 0)
	b := NewBudget(0, 0.3) // three retries per window
	for want := 3.0; want > 0; want-- {
		if got := b.Available(now); math.Abs(got-want) > 1e-9 {
			t.Errorf("available %v, want %v", got, want)
		}
		if !b.Withdraw(now) {
			t.Fatal("a retry refused while some were available")
		}
	}
	if got := b.Available(now); got >= 1 || b.Withdraw(now) {
		t.Errorf("available %v after three retries, and Withdraw allowed one", got)
	}
	if got := (*Budget)(nil).Available(now); !math.IsInf(got, 1) {
		t.Errorf("a nil budget: %v available, want +Inf", got)
	}
}
