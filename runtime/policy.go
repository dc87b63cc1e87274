package runtime

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Jitter names how a backoff step is randomised.
type Jitter string

const (
	// JitterFull waits uniform [0, ceiling). It spreads clients that failed together best.
	JitterFull Jitter = "full"
	// JitterEqual waits ceiling/2 + uniform [0, ceiling/2).
	JitterEqual Jitter = "equal"
	// JitterDecorrelated waits min(MaxDelay, uniform [InitialDelay, 3 × the previous wait)).
	JitterDecorrelated Jitter = "decorrelated"
	// JitterNone waits the ceiling itself.
	JitterNone Jitter = "none"
)

// StatusCode is an HTTP status code, or a class of them: the single digits 1 to 5 stand for
// 1XX to 5XX. Class5XX leaves out 501 and 505, which no retry can fix; list them by number
// to retry them.
type StatusCode int

// Status classes, for Policy.StatusCodes.
const (
	Class1XX StatusCode = 1
	Class2XX StatusCode = 2
	Class3XX StatusCode = 3
	Class4XX StatusCode = 4
	Class5XX StatusCode = 5
)

// Defaults of x-retry, as DefaultPolicy sets them. A zero Policy field stands for its
// default only where zero would be meaningless: MaxAttempts and Multiplier here, and an
// empty Jitter and a nil StatusCodes (see Policy). A zero delay is no delay, and a zero
// MaxRetryAfter allows no wait for a server hint.
const (
	DefaultMaxAttempts   = 4
	DefaultInitialDelay  = 500 * time.Millisecond
	DefaultMaxDelay      = 10 * time.Second
	DefaultMultiplier    = 2.0
	DefaultMaxRetryAfter = 60 * time.Second
)

// defaultStatusCodes is what a nil Policy.StatusCodes means. It is never handed out, so
// nobody can change it.
var defaultStatusCodes = []StatusCode{408, 429, 500, 502, 503, 504}

// DefaultStatusCodes returns the statuses retried by default: 408, 429, 500, 502, 503, 504.
func DefaultStatusCodes() []StatusCode {
	return append([]StatusCode(nil), defaultStatusCodes...)
}

// Policy says how one operation is retried. Generated clients hold one per operation as a
// package-level literal that sets every field. Start from DefaultPolicy to get the
// defaults: a zero duration means zero (no delay, no wait allowed for a server hint), not
// "the default". The zero values that do stand for a default are those that would be
// meaningless themselves, each documented: MaxAttempts, Multiplier, Jitter and a nil
// StatusCodes. The booleans have no default: DefaultPolicy sets ConnectionErrors and
// RetryAfter; IgnoreServerSignals is put negatively so that its zero value is the default.
//
// To turn waits off, in tests for example, set InitialDelay and MaxDelay to 0 (and
// RetryAfter to false, or MaxRetryAfter to 0 so that a server hint ends the call).
type Policy struct {
	// MaxAttempts is the number of attempts in total, the first included; 0 means 4.
	MaxAttempts int
	// InitialDelay is the backoff ceiling of the first retry; 0 means no delay
	// (DefaultInitialDelay is 500ms).
	InitialDelay time.Duration
	// MaxDelay caps one backoff step; 0 means no delay at all (DefaultMaxDelay is 10s). It
	// must not be less than InitialDelay.
	MaxDelay time.Duration
	// Multiplier grows the ceiling from one step to the next; 0 means 2.
	Multiplier float64
	// Jitter randomises each step; "" means JitterFull.
	Jitter Jitter
	// StatusCodes are the response statuses that are retried; nil means 408, 429, 500, 502,
	// 503 and 504. An empty, non-nil slice retries no status.
	StatusCodes []StatusCode
	// ConnectionErrors retries transport failures (reset, refused, timeout).
	ConnectionErrors bool
	// AttemptTimeout bounds each attempt; 0 means none.
	AttemptTimeout time.Duration
	// MaxElapsed bounds the whole call across attempts and waits; 0 leaves it to the context.
	MaxElapsed time.Duration
	// RetryAfter honours Retry-After and retry-after-ms (or else an exhausted RateLimit
	// quota's reset) as a floor under the backoff; see ParseRetryAfter.
	RetryAfter bool
	// MaxRetryAfter is the longest server hint the engine waits for; a longer one ends the
	// call. 0 allows no wait: any positive hint ends the call (DefaultMaxRetryAfter is 60s).
	MaxRetryAfter time.Duration
	// IgnoreServerSignals makes the engine ignore the server's word on repeating a
	// request: the response header fields x-should-retry and Stripe-Should-Retry. When
	// false (the default) it follows it on an error answer (4xx, 5xx; a redirect the call
	// stops at, or a 304, is an answer the word is not about). false ends the call with
	// ErrServerSaidNoRetry, whatever the policy retries. true makes the answer retried
	// even when its status is not in StatusCodes (a 400 included: the server knows its
	// own answer) or the operation is not Idempotent, since the server says repeating it
	// is safe; such a retry
	// stays within MaxAttempts, the budget, the breaker, the deadlines and Retry-After, and
	// needs a request body that can be replayed, like any other.
	IgnoreServerSignals bool
	// Idempotent reports that the request may be repeated after it may have reached the
	// server: the method is safe or idempotent, or the operation carries an idempotency key.
	// When false only attempts whose connection could not be opened are retried.
	Idempotent bool
	// IdempotencyKey is the header that carries the call's idempotency key; "" sends none.
	IdempotencyKey string
	// ReadBody makes the engine read a 2xx response's whole body within its attempt and
	// hand it over in memory, so that a body cut short (RFC 9112 §8) or one that outlasts
	// AttemptTimeout is a failed attempt like any other transport failure, retried under the
	// same rules. Generated clients set it for responses they decode whole; leave it off for
	// bodies meant to be streamed.
	ReadBody bool
}

// DefaultPolicy returns the defaults of x-retry: 4 attempts, 500ms initial delay doubling
// up to 10s, full jitter, statuses 408 429 500 502 503 504, connection errors retried,
// Retry-After honoured up to 60s. Idempotent is false and IdempotencyKey empty: they depend
// on the operation.
func DefaultPolicy() Policy {
	return Policy{
		MaxAttempts:      DefaultMaxAttempts,
		InitialDelay:     DefaultInitialDelay,
		MaxDelay:         DefaultMaxDelay,
		Multiplier:       DefaultMultiplier,
		Jitter:           JitterFull,
		StatusCodes:      DefaultStatusCodes(),
		ConnectionErrors: true,
		RetryAfter:       true,
		MaxRetryAfter:    DefaultMaxRetryAfter,
	}
}

// resolved returns a copy of p with every zero field that stands for a default set to it.
func (p *Policy) resolved() Policy {
	r := *p
	if r.MaxAttempts == 0 {
		r.MaxAttempts = DefaultMaxAttempts
	}
	if r.Multiplier == 0 {
		r.Multiplier = DefaultMultiplier
	}
	if r.Jitter == "" {
		r.Jitter = JitterFull
	}
	if r.StatusCodes == nil {
		r.StatusCodes = defaultStatusCodes
	}
	return r
}

// Validate reports every field of p that the engine cannot honour, joined into one error.
// Zero fields are valid: MaxAttempts, Multiplier, Jitter and a nil StatusCodes stand for
// their defaults, the others for zero. Engine.Do validates each policy and sends nothing
// under an invalid one.
func (p *Policy) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("runtime: Policy."+format, args...))
	}
	if p.MaxAttempts < 0 {
		bad("MaxAttempts must be >= 1, got %d", p.MaxAttempts)
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{
		{"InitialDelay", p.InitialDelay},
		{"MaxDelay", p.MaxDelay},
		{"AttemptTimeout", p.AttemptTimeout},
		{"MaxElapsed", p.MaxElapsed},
		{"MaxRetryAfter", p.MaxRetryAfter},
	} {
		if f.d < 0 {
			bad("%s must not be negative, got %v", f.name, f.d)
		}
	}
	if math.IsNaN(p.Multiplier) || math.IsInf(p.Multiplier, 0) || (p.Multiplier != 0 && p.Multiplier < 1) {
		bad("Multiplier must be a finite number >= 1, got %v", p.Multiplier)
	}
	switch p.Jitter {
	case "", JitterFull, JitterEqual, JitterDecorrelated, JitterNone:
	default:
		bad("Jitter must be one of full, equal, decorrelated, none; got %q", string(p.Jitter))
	}
	for _, c := range p.StatusCodes {
		if !(c >= Class1XX && c <= Class5XX) && !(c >= 100 && c <= 599) {
			bad("StatusCodes: %d is neither a status 100-599 nor a class digit 1-5", int(c))
		}
	}
	if p.IdempotencyKey != "" && !ValidHeaderName(p.IdempotencyKey) {
		bad("IdempotencyKey %q is not a valid header name", p.IdempotencyKey)
	}
	if p.InitialDelay >= 0 && p.MaxDelay >= 0 {
		r := p.resolved()
		if r.MaxDelay < r.InitialDelay {
			bad("MaxDelay (%v) must not be less than InitialDelay (%v)", r.MaxDelay, r.InitialDelay)
		}
	}
	return errors.Join(errs...)
}

// valid is Validate without building messages, for the engine's hot path.
func (p *Policy) valid() bool {
	if p.MaxAttempts < 0 || p.InitialDelay < 0 || p.MaxDelay < 0 || p.AttemptTimeout < 0 ||
		p.MaxElapsed < 0 || p.MaxRetryAfter < 0 {
		return false
	}
	if math.IsNaN(p.Multiplier) || math.IsInf(p.Multiplier, 0) || (p.Multiplier != 0 && p.Multiplier < 1) {
		return false
	}
	switch p.Jitter {
	case "", JitterFull, JitterEqual, JitterDecorrelated, JitterNone:
	default:
		return false
	}
	for _, c := range p.StatusCodes {
		if !(c >= Class1XX && c <= Class5XX) && !(c >= 100 && c <= 599) {
			return false
		}
	}
	if p.IdempotencyKey != "" && !ValidHeaderName(p.IdempotencyKey) {
		return false
	}
	return p.MaxDelay >= p.InitialDelay
}

// ValidHeaderName reports whether s is an RFC 9110 token, the syntax of a header field
// name (and of Policy.IdempotencyKey).
func ValidHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '!' || c == '#' || c == '$' || c == '%' || c == '&' || c == '\'' || c == '*' ||
			c == '+' || c == '-' || c == '.' || c == '^' || c == '_' || c == '`' || c == '|' || c == '~':
		default:
			return false
		}
	}
	return true
}

// RetriesStatus reports whether p retries a response with this status: it is one of
// StatusCodes (the defaults when nil), or in a class listed there (see retriesStatus). A
// caller that classifies failures of its own, such as an event stream's error event, asks
// it as the engine does.
func (p *Policy) RetriesStatus(code int) bool { return p.retriesStatus(code) }

// retriesStatus reports whether p retries a response with this status. A class covers its
// hundred codes except 501 Not Implemented and 505 HTTP Version Not Supported, which no
// retry can fix: they are retried only when listed by number.
func (p *Policy) retriesStatus(code int) bool {
	codes := p.StatusCodes
	if codes == nil {
		codes = defaultStatusCodes
	}
	for _, c := range codes {
		if int(c) == code {
			return true
		}
		if c >= Class1XX && c <= Class5XX && code/100 == int(c) && code != 501 && code != 505 {
			return true
		}
	}
	return false
}

// Ceiling returns the backoff ceiling of retry number retry (1 for the wait after the first
// attempt): min(MaxDelay, InitialDelay × Multiplier^(retry-1)). It is computed by repeated
// multiplication (by squaring, so that a huge retry number costs a few steps) in floating
// point and compared with MaxDelay before it is converted, so it never overflows, never goes
// negative and is never NaN. A retry below 1 counts as 1.
func (p *Policy) Ceiling(retry int) time.Duration {
	r := p.resolved()
	return ceiling(&r, retry)
}

func ceiling(r *Policy, retry int) time.Duration {
	initial, maxD := r.InitialDelay, r.MaxDelay
	if initial >= maxD {
		return maxD
	}
	m := r.Multiplier
	if !(m > 1) || math.IsInf(m, 0) { // also catches NaN; Validate rejects both
		return initial
	}
	// factor = m^(retry-1), stopping as soon as it reaches maxD/initial.
	limit := float64(maxD) / float64(initial)
	factor, base := 1.0, m
	for e := retry - 1; e > 0; e >>= 1 {
		if e&1 == 1 {
			factor *= base
			if factor >= limit {
				return maxD
			}
		}
		base *= base // may reach +Inf, which only ever makes factor >= limit
	}
	c := float64(initial) * factor
	if c >= float64(maxD) {
		return maxD
	}
	return time.Duration(c)
}

// Backoff returns the wait before retry number retry (1 for the wait after the first
// attempt) under p's jitter, given rnd uniform in [0, 1) and prev, the Backoff value of the
// previous retry (used by decorrelated jitter only; 0 for the first). A rnd outside [0, 1)
// is clamped into it. The result lies in [0, MaxDelay].
//
// It is a pure function: Engine.Do and `retrygen herd` both call it.
func (p *Policy) Backoff(retry int, prev time.Duration, rnd float64) time.Duration {
	r := p.resolved()
	return backoff(&r, retry, prev, rnd)
}

func backoff(r *Policy, retry int, prev time.Duration, rnd float64) time.Duration {
	rnd = clampRand(rnd)
	switch r.Jitter {
	case JitterNone:
		return ceiling(r, retry)
	case JitterEqual:
		c := ceiling(r, retry)
		half := c / 2
		return half + time.Duration(rnd*float64(c-half))
	case JitterDecorrelated:
		lo := r.InitialDelay
		if lo >= r.MaxDelay {
			return r.MaxDelay
		}
		if prev < lo {
			prev = lo
		}
		hi := 3 * float64(prev)
		w := float64(lo) + rnd*(hi-float64(lo))
		if w >= float64(r.MaxDelay) {
			return r.MaxDelay
		}
		return time.Duration(w)
	default: // JitterFull
		c := ceiling(r, retry)
		return time.Duration(rnd * float64(c))
	}
}

// Wait returns the whole wait before retry number retry: the server's hint (a Retry-After
// value, 0 when there is none) as a floor, with Backoff(retry, prev, rnd) added on top, so
// that clients one rate limiter told the same hint do not all come back in the same instant.
// The sum saturates instead of overflowing.
func (p *Policy) Wait(retry int, prev, hint time.Duration, rnd float64) time.Duration {
	r := p.resolved()
	return addSat(max(hint, 0), backoff(&r, retry, prev, rnd))
}

// addSat returns a+b for non-negative a and b, or the largest Duration if that overflows.
func addSat(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// clampRand brings rnd into [0, 1); NaN counts as 0.
func clampRand(rnd float64) float64 {
	if !(rnd >= 0) { // also NaN
		return 0
	}
	if rnd >= 1 {
		return math.Nextafter(1, 0)
	}
	return rnd
}
