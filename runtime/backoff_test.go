package runtime

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"testing/synctest"
	"time"
)

// A1: delays follow the capped exponential ceiling; full jitter spreads them over [0, ceiling).
func TestBackoffCeilingAndJitter(t *testing.T) {
	t.Run("top of the range through the engine", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(503)}
			e := engineFor(s, math.Nextafter(1, 0))
			p := idempotent()
			p.MaxAttempts = 8
			_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/x", nil), p)
			if !errorIs(err, ErrExhausted) {
				t.Fatalf("err = %v, want ErrExhausted", err)
			}
			want := []time.Duration{100, 200, 400, 800, 1600, 2000, 2000}
			got := s.gaps()
			if len(got) != len(want) {
				t.Fatalf("gaps = %v, want %d of them", got, len(want))
			}
			for i, w := range want {
				w *= time.Millisecond
				if d := w - got[i]; d < 0 || d > time.Nanosecond {
					t.Errorf("wait %d = %v, want %v to within 1ns below", i+1, got[i], w)
				}
			}
		})
	})
	t.Run("zero random still makes every attempt", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(503)}
			e := engineFor(s, 0)
			p := idempotent()
			p.MaxAttempts = 5
			start := time.Now()
			_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/x", nil), p)
			if got := mustError(t, err).Attempts; got != 5 || s.count() != 5 {
				t.Fatalf("attempts = %d, round trips = %d, want 5", got, s.count())
			}
			if el := time.Since(start); el != 0 {
				t.Errorf("elapsed = %v, want 0", el)
			}
		})
	})
	t.Run("full jitter distribution", func(t *testing.T) {
		p := idempotent()
		r := rand.New(rand.NewPCG(1, 2))
		const n = 10000
		var sum time.Duration
		var low, high bool
		for range n {
			d := p.Backoff(4, 0, r.Float64()) // ceiling 800ms
			if d < 0 || d >= 800*time.Millisecond {
				t.Fatalf("delay %v outside [0, 800ms)", d)
			}
			sum += d
			low = low || d < 80*time.Millisecond
			high = high || d > 720*time.Millisecond
		}
		mean := sum / n
		if mean < 388*time.Millisecond || mean > 412*time.Millisecond {
			t.Errorf("mean = %v, want 400ms ±3%%", mean)
		}
		if !low || !high {
			t.Errorf("no delay below 80ms (%v) or above 720ms (%v): not full jitter", low, high)
		}
	})
	t.Run("jitter modes", func(t *testing.T) {
		top := math.Nextafter(1, 0)
		base := Policy{InitialDelay: 100 * time.Millisecond, MaxDelay: 2 * time.Second, Multiplier: 2}
		for _, tc := range []struct {
			jitter    Jitter
			retry     int
			prev      time.Duration
			rnd       float64
			want      time.Duration
			tolerance time.Duration
		}{
			{JitterNone, 1, 0, 0.3, 100 * time.Millisecond, 0},
			{JitterNone, 3, 0, 0.3, 400 * time.Millisecond, 0},
			{JitterNone, 9, 0, 0.3, 2 * time.Second, 0},
			{JitterFull, 3, 0, 0, 0, 0},
			{JitterFull, 3, 0, 0.5, 200 * time.Millisecond, 0},
			{JitterEqual, 3, 0, 0, 200 * time.Millisecond, 0},
			{JitterEqual, 3, 0, top, 400 * time.Millisecond, time.Nanosecond},
			{JitterDecorrelated, 1, 0, 0, 100 * time.Millisecond, 0},
			{JitterDecorrelated, 1, 0, top, 300 * time.Millisecond, time.Nanosecond},
			{JitterDecorrelated, 2, 300 * time.Millisecond, 0.5, 500 * time.Millisecond, 0},
			{JitterDecorrelated, 5, 1500 * time.Millisecond, 0.9, 2 * time.Second, 0},
			{"", 2, 0, 0.5, 100 * time.Millisecond, 0}, // "" is full jitter
		} {
			p := base
			p.Jitter = tc.jitter
			got := p.Backoff(tc.retry, tc.prev, tc.rnd)
			if d := tc.want - got; d < 0 || d > tc.tolerance {
				t.Errorf("%q Backoff(%d, %v, %v) = %v, want %v", tc.jitter, tc.retry, tc.prev, tc.rnd, got, tc.want)
			}
		}
	})
	t.Run("decorrelated through the engine feeds the previous wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: status(503)}
			e := engineFor(s, math.Nextafter(1, 0))
			p := idempotent()
			p.Jitter = JitterDecorrelated
			p.MaxDelay = 10 * time.Second
			p.MaxAttempts = 4
			_, _ = e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/x", nil), p)
			// 100ms × 3 = 300ms, × 3 = 900ms, × 3 = 2.7s (each just below).
			want := []time.Duration{300 * time.Millisecond, 900 * time.Millisecond, 2700 * time.Millisecond}
			for i, g := range s.gaps() {
				if d := want[i] - g; d < 0 || d > 10*time.Nanosecond {
					t.Errorf("wait %d = %v, want just below %v", i+1, g, want[i])
				}
			}
		})
	})
}

// A2: huge retry numbers and multipliers never overflow, go negative or panic.
func TestBackoffNeverOverflows(t *testing.T) {
	retries := []int{-5, 0, 1, 31, 62, 63, 64, 1000, math.MaxInt}
	for _, j := range []Jitter{JitterFull, JitterEqual, JitterDecorrelated, JitterNone} {
		for _, m := range []float64{1, 1.5, 2, 10, 1e300, math.MaxFloat64} {
			p := Policy{InitialDelay: time.Second, MaxDelay: 30 * time.Second, Multiplier: m, Jitter: j}
			for _, k := range retries {
				for _, rnd := range []float64{0, 0.5, math.Nextafter(1, 0), 1, 7, -1, math.NaN()} {
					d := p.Backoff(k, 29*time.Second, rnd)
					if d < 0 || d > 30*time.Second {
						t.Fatalf("%s m=%g Backoff(%d, rnd=%v) = %v, want within [0, 30s]", j, m, k, rnd, d)
					}
				}
			}
		}
	}
	// The ceiling never decreases and reaches the cap.
	p := Policy{InitialDelay: time.Nanosecond, MaxDelay: math.MaxInt64, Multiplier: 3}
	prev := time.Duration(0)
	for k := 1; k < 100; k++ {
		c := p.Ceiling(k)
		if c < prev || c <= 0 {
			t.Fatalf("Ceiling(%d) = %v after %v", k, c, prev)
		}
		prev = c
	}
	if got := p.Ceiling(math.MaxInt); got != math.MaxInt64 {
		t.Errorf("Ceiling(MaxInt) = %v, want the cap", got)
	}
	// Wait saturates instead of wrapping around.
	if got := p.Wait(math.MaxInt, 0, math.MaxInt64, 0.9); got != math.MaxInt64 {
		t.Errorf("Wait with a huge hint = %v, want the largest Duration", got)
	}
}

// DefaultPolicy holds the defaults of x-retry (docs/design.md, "Spec extensions"); a zero
// delay is no delay, and the zero values that stand for defaults are exactly those the
// package doc and Policy list.
func TestDefaultsMatchDesign(t *testing.T) {
	var zero Policy
	want := Policy{MaxAttempts: DefaultMaxAttempts, Multiplier: DefaultMultiplier, Jitter: JitterFull, StatusCodes: DefaultStatusCodes()}
	if got := zero.resolved(); !reflect.DeepEqual(got, want) {
		t.Errorf("the zero Policy stands for %+v, want %+v", got, want)
	}
	if got := zero.Ceiling(1); got != 0 {
		t.Errorf("zero policy first ceiling = %v, want 0", got)
	}
	if got := zero.Ceiling(100); got != 0 {
		t.Errorf("zero policy cap = %v, want 0", got)
	}
	noWait := DefaultPolicy()
	noWait.InitialDelay, noWait.MaxDelay = 0, 0
	for _, j := range []Jitter{JitterFull, JitterEqual, JitterDecorrelated, JitterNone} {
		noWait.Jitter = j
		if got := noWait.Wait(3, 0, 0, 0.99); got != 0 {
			t.Errorf("%s jitter with zero delays waits %v", j, got)
		}
	}
	d := DefaultPolicy()
	if d.InitialDelay != 500*time.Millisecond || d.MaxDelay != 10*time.Second {
		t.Errorf("DefaultPolicy() delays %v..%v, want 500ms..10s", d.InitialDelay, d.MaxDelay)
	}
	if d.MaxAttempts != 4 || d.Multiplier != 2 || d.Jitter != JitterFull || !d.ConnectionErrors ||
		!d.RetryAfter || d.MaxRetryAfter != time.Minute || len(d.StatusCodes) != 6 {
		t.Errorf("DefaultPolicy() = %+v", d)
	}
	for _, c := range []int{408, 429, 500, 502, 503, 504} {
		if !zero.retriesStatus(c) {
			t.Errorf("zero policy does not retry %d", c)
		}
	}
	for _, c := range []int{400, 404, 409, 501, 505} {
		if zero.retriesStatus(c) {
			t.Errorf("zero policy retries %d", c)
		}
	}
	none := Policy{StatusCodes: []StatusCode{}}
	if none.retriesStatus(503) {
		t.Error("an empty StatusCodes retries 503")
	}
	class := Policy{StatusCodes: []StatusCode{Class5XX, 429}}
	for c, want := range map[int]bool{500: true, 501: false, 505: false, 507: true, 511: true, 599: true, 429: true, 404: false, 408: false} {
		if class.retriesStatus(c) != want {
			t.Errorf("5XX+429 retries %d = %v", c, !want)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Policy
		want string // substring of the error; "" for valid
	}{
		{"zero", Policy{}, ""},
		{"default", DefaultPolicy(), ""},
		{"negative attempts", Policy{MaxAttempts: -1}, "MaxAttempts must be >= 1, got -1"},
		{"negative delay", Policy{InitialDelay: -time.Second}, "InitialDelay must not be negative"},
		{"negative max delay", Policy{MaxDelay: -1}, "MaxDelay must not be negative"},
		{"negative timeout", Policy{AttemptTimeout: -1}, "AttemptTimeout"},
		{"negative elapsed", Policy{MaxElapsed: -1}, "MaxElapsed"},
		{"negative retry-after", Policy{MaxRetryAfter: -1}, "MaxRetryAfter"},
		{"small multiplier", Policy{Multiplier: 0.5}, "Multiplier must be a finite number >= 1, got 0.5"},
		{"NaN multiplier", Policy{Multiplier: math.NaN()}, "Multiplier"},
		{"Inf multiplier", Policy{Multiplier: math.Inf(1)}, "Multiplier"},
		{"unknown jitter", Policy{Jitter: "fancy"}, `Jitter must be one of full, equal, decorrelated, none; got "fancy"`},
		{"class 6", Policy{StatusCodes: []StatusCode{6}}, "6 is neither"},
		{"status 600", Policy{StatusCodes: []StatusCode{600}}, "600 is neither"},
		{"bad key header", Policy{IdempotencyKey: "Idem Key"}, "not a valid header name"},
		{"cap below initial", Policy{InitialDelay: 20 * time.Second, MaxDelay: 10 * time.Second}, "MaxDelay (10s) must not be less than InitialDelay (20s)"},
		{"initial delay without a cap", Policy{InitialDelay: time.Second}, "MaxDelay (0s) must not be less than InitialDelay (1s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
			} else if err == nil || !contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want it to contain %q", err, tc.want)
			}
			if tc.p.valid() != (err == nil) {
				t.Errorf("valid() = %v disagrees with Validate() = %v", tc.p.valid(), err)
			}
		})
	}
}
