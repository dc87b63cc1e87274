package runtime

import (
	"context"
	"net/http"
	"time"
)

// situation is everything the engine knows when an attempt has failed: the attempt's
// outcome and the call's state. It holds no clock and no connection; decide reads it and
// nothing else.
type situation struct {
	pol         *Policy // resolved
	attempt     int     // the attempt that just ended, from 1
	maxAttempts int

	// The outcome: a transport error, or else a response's status and header.
	err        error
	callerDone bool // the caller's context was done when the attempt ended
	status     int
	header     http.Header
	signal     signal // what the response says of repeating it, unless the policy ignores that

	now         time.Time     // when the attempt ended: the base of HTTP-dates and deadlines
	deadline    time.Time     // the caller's context deadline; zero for none
	elapsedEnd  time.Time     // the end of Policy.MaxElapsed; zero for none
	prevBackoff time.Duration // the jittered part of the previous wait; 0 before the first
	rnd         float64       // uniform in [0, 1), drawn for this decision

	mustReplay  bool    // the request has a body that a retry must send again
	canReplay   bool    // and req.GetBody to make it
	breakerOpen bool    // the client's breaker refuses further attempts
	budget      *Budget // asked last, once the retry is otherwise decided; nil allows all
}

// verdict is what decide makes of a situation: retry after wait, or stop.
type verdict struct {
	retry   bool
	wait    time.Duration // before the next attempt, when retry
	backoff time.Duration // the jittered part of wait: the next situation's prevBackoff
	// cause is why the call stops when the outcome could have been retried (a sentinel or
	// context.DeadlineExceeded); nil when the outcome itself is final.
	cause      error
	retryAfter time.Duration // the server's hint, when it ended the call
}

func stop(cause error) verdict { return verdict{cause: cause} }

// decide says whether the call goes on after an attempt that did not succeed, and after
// what wait. It performs no I/O and reads no clock: the same situation gives the same
// verdict, except that a retry withdraws from s.budget.
//
// In order: an outcome the policy does not retry stops the call with the reason
// (ErrNotRetryable, ErrConnectionErrorsOff, ErrServerSaidNoRetry, ErrStatusNotRetried,
// ErrNotRetrySafe, ErrOutcomeUnknown; no cause for the caller's own cancellation, which is its own reason;
// see refusal for the server's word); then the
// attempts, the breaker, a body that cannot be replayed, a server hint that does not fit
// (ErrRetryAfterTooLong), a wait that does not fit the deadline (context.DeadlineExceeded)
// or MaxElapsed (ErrExhausted), and the budget each stop it with their cause. When a
// server hint fits but the jittered backoff on top of it does not, the backoff is cut to
// the room left (rnd × room) rather than ending the call.
func decide(s *situation) verdict {
	pol := s.pol
	var hint time.Duration
	if s.err != nil {
		switch kind := classify(s.err, s.callerDone); {
		case kind == failTerminal:
			if s.callerDone {
				return stop(nil) // the caller's own cancellation says why
			}
			return stop(ErrNotRetryable)
		case !pol.ConnectionErrors:
			return stop(ErrConnectionErrorsOff)
		case kind == failMaybeSent && !pol.Idempotent:
			return stop(ErrOutcomeUnknown)
		}
	} else {
		if s.status >= 200 && s.status <= 299 {
			return stop(nil)
		}
		if why := s.refusal(); why != nil {
			return stop(why)
		}
		if pol.RetryAfter {
			if h, ok := ParseRetryAfter(s.header, s.now); ok {
				hint = h
			}
		}
	}

	if s.attempt >= s.maxAttempts {
		if s.maxAttempts == 1 {
			return stop(ErrRetriesOff)
		}
		return stop(ErrExhausted)
	}
	if s.breakerOpen {
		return stop(ErrCircuitOpen)
	}
	if s.mustReplay && !s.canReplay {
		return stop(ErrBodyNotReplayable)
	}
	hasDeadline, hasElapsed := !s.deadline.IsZero(), !s.elapsedEnd.IsZero()
	if hint > 0 {
		if hint > pol.MaxRetryAfter ||
			(hasDeadline && !s.now.Add(hint).Before(s.deadline)) ||
			(hasElapsed && !s.now.Add(hint).Before(s.elapsedEnd)) {
			return verdict{cause: ErrRetryAfterTooLong, retryAfter: hint}
		}
	}
	b := backoff(pol, s.attempt, s.prevBackoff, s.rnd)
	if hint > 0 {
		// The hint fits (checked above); when the jitter on top does not, cut it to what
		// fits, drawn with the same random number so that clients still spread out.
		end := s.deadline
		if hasElapsed && (!hasDeadline || s.elapsedEnd.Before(end)) {
			end = s.elapsedEnd
		}
		if !end.IsZero() {
			if room := end.Sub(s.now) - hint; b >= room {
				b = time.Duration(clampRand(s.rnd) * float64(room))
				if b >= room {
					b = room - 1
				}
			}
		}
	}
	wait := addSat(hint, b)
	if hasDeadline && !s.now.Add(wait).Before(s.deadline) {
		return stop(context.DeadlineExceeded)
	}
	if hasElapsed && !s.now.Add(wait).Before(s.elapsedEnd) {
		return stop(ErrExhausted)
	}
	if !s.budget.Withdraw(s.now) {
		return stop(ErrBudgetExhausted)
	}
	return verdict{retry: true, wait: wait, backoff: b}
}

// refusal returns why the non-2xx response of s is not retried, whatever the attempts and
// the time left, or nil when it may be. The server's false refuses it
// (ErrServerSaidNoRetry); its true accepts it, since the server says the answer is worth
// retrying and repeating the request safe; without either, a status the policy does not
// retry (ErrStatusNotRetried) or an operation that is not retry-safe (ErrNotRetrySafe)
// refuses it.
func (s *situation) refusal() error {
	switch {
	case s.signal == signalStop:
		return ErrServerSaidNoRetry
	case s.signal == signalRetry:
		return nil
	case !s.pol.retriesStatus(s.status):
		return ErrStatusNotRetried
	case !s.pol.Idempotent:
		return ErrNotRetrySafe
	}
	return nil
}

// signal returns what a response with status and header h says of repeating its
// request, or signalNone when p ignores the server's word. Only an error status (4xx,
// 5xx) is one the word can be about: a redirect the call stops at, or a 304, is an
// answer, not a failure to repeat.
func (p *Policy) signal(status int, h http.Header) signal {
	if p.IgnoreServerSignals || status < 400 {
		return signalNone
	}
	return serverSignal(h)
}
