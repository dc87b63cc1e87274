package runtime

import (
	"sync"
	"time"
)

// Breaker is a circuit breaker shared by all calls of one client. It counts calls, not
// attempts: a call fails for the breaker when it ends with a transport error, a 5xx or a
// 429, whatever the operation's retry list; any other response is the server working and
// counts as a success. failures consecutive failed calls open it, and every call is then
// refused with ErrCircuitOpen, before anything is sent, for the cool-down. Then one call is
// let through as a probe: its success closes the breaker, its failure opens it for another
// cool-down. While the probe is out, other calls are refused. A call the caller cancelled,
// one that panicked, and one that failed for a reason of its own (a bad URL, a refused
// redirect) count neither way; when it was the probe, the next call probes instead. A call
// still retrying when the breaker opens stops before its next attempt.
//
// A nil *Breaker lets everything through. It is safe for concurrent use.
type Breaker struct {
	threshold int
	coolDown  time.Duration

	mu       sync.Mutex
	state    breakerState
	failures int       // consecutive, while closed
	until    time.Time // end of the cool-down, while open
	probing  bool      // the half-open probe is out
}

type breakerState uint8

const (
	breakerClosed breakerState = iota
	breakerOpen
	breakerHalfOpen
)

// outcome is what a call tells the breaker.
type outcome uint8

const (
	outcomeNeutral outcome = iota // counts neither way; frees a probe
	outcomeSuccess
	outcomeFailure
)

// NewBreaker returns a breaker that opens after failures consecutive failed calls and
// stays open for coolDown. A failures below 1 counts as 1, a negative coolDown as 0.
func NewBreaker(failures int, coolDown time.Duration) *Breaker {
	return &Breaker{threshold: max(failures, 1), coolDown: max(coolDown, 0)}
}

// allow reports whether a call may start at now, and whether it is the half-open probe
// whose outcome decides the breaker's state.
func (b *Breaker) allow(now time.Time) (ok, probe bool) {
	if b == nil {
		return true, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case breakerClosed:
		return true, false
	case breakerOpen:
		if now.Before(b.until) {
			return false, false
		}
		b.state, b.probing = breakerHalfOpen, true
		return true, true
	default: // half-open
		if b.probing {
			return false, false
		}
		b.probing = true
		return true, true
	}
}

// record reports a call's outcome at now. probe is what allow returned for it.
func (b *Breaker) record(now time.Time, probe bool, o outcome) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case breakerClosed:
		switch o {
		case outcomeSuccess:
			b.failures = 0
		case outcomeFailure:
			b.failures++
			if b.failures >= b.threshold {
				b.open(now)
			}
		}
	case breakerHalfOpen:
		if !probe {
			return // a call let through before the breaker opened
		}
		switch o {
		case outcomeSuccess:
			b.state, b.failures, b.probing = breakerClosed, 0, false
		case outcomeFailure:
			b.open(now)
		default:
			b.probing = false // let another call probe
		}
	}
}

func (b *Breaker) open(now time.Time) {
	b.state, b.until, b.probing, b.failures = breakerOpen, now.Add(b.coolDown), false, 0
}

// isOpen reports whether a call starting at now would be refused, without taking the probe.
func (b *Breaker) isOpen(now time.Time) bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case breakerOpen:
		return now.Before(b.until)
	case breakerHalfOpen:
		return b.probing
	}
	return false
}

// The states Breaker.State reports.
const (
	BreakerClosed   = "closed"    // calls go through
	BreakerOpen     = "open"      // calls are refused until the cool-down ends
	BreakerHalfOpen = "half_open" // one probe call decides; the next call is it once an open cool-down ends
)

// State returns the breaker's state at now, for a gauge: BreakerClosed, BreakerOpen, or
// BreakerHalfOpen, which an open breaker whose cool-down has ended reports too (its next
// call is the probe). A nil breaker is closed.
func (b *Breaker) State(now time.Time) string {
	if b == nil {
		return BreakerClosed
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.state == breakerHalfOpen, b.state == breakerOpen && !now.Before(b.until):
		return BreakerHalfOpen
	case b.state == breakerOpen:
		return BreakerOpen
	}
	return BreakerClosed
}
