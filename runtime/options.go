package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// ErrOptionDoesNotApply: a call option cannot apply to the call's operation, so the call
// fails before anything is sent rather than ignore it.
var ErrOptionDoesNotApply = errors.New("call option does not apply")

// CallOption changes one call's behaviour. Generated packages re-export these so that
// their users need not import this package.
type CallOption func(*callConfig)

type callConfig struct {
	maxAttempts    int // 0: the policy's
	noRetry        bool
	idempotencyKey string
	keySet         bool          // WithIdempotencyKey was given, even with an empty key
	idempotent     bool          // WithIdempotent
	outcome        *Outcome      // WithOutcome
	attemptTimeout time.Duration // 0: the policy's
	header         [][2]string
	noRedirects    bool                                       // WithoutRedirects
	streamedBody   bool                                       // WithStreamedBody
	check          func(*http.Response) error                 // WithAnswerCheck
	headerTimeout  time.Duration                              // WithHeaderTimeout; 0 for the engine's
	headerErr      error                                      // what an attempt fails with when it runs out
	refresh        func(context.Context) (http.Header, error) // WithTokenRefresh
}

// WithMaxAttempts overrides the policy's MaxAttempts for one call; n < 1 keeps the policy's.
// It does not make a call retry-safe: an operation that is not retried stays so.
func WithMaxAttempts(n int) CallOption { return func(c *callConfig) { c.maxAttempts = n } }

// WithoutRedirects makes a redirect the call's answer: the 3xx response ends the call as an
// *Error whose Header holds its Location, rather than being followed. Generated methods of
// operations whose only declared responses are redirects use it to return the Location.
func WithoutRedirects() CallOption { return func(c *callConfig) { c.noRedirects = true } }

// WithoutRetry sends the request once, whatever the policy says.
func WithoutRetry() CallOption { return func(c *callConfig) { c.noRetry = true } }

// WithIdempotencyKey sends key as the idempotency key of this call instead of a random one,
// in the operation's idempotency key header. An operation that has none, and is not
// retry-safe by itself (a POST or PATCH without a key), sends key as Idempotency-Key and
// so becomes retry-safe for this call. On an operation that is retried without a key (a
// GET, a PUT, a POST declared idempotent) the key would not be sent: that fails the call
// with ErrOptionDoesNotApply before anything is sent. An empty key is no key: the
// operation's header gets a fresh one, and an operation without one fails the call the
// same way. A request that already carries the header keeps its value.
func WithIdempotencyKey(key string) CallOption {
	return func(c *callConfig) { c.idempotencyKey, c.keySet = key, true }
}

// Outcome is how a call went, success included: what WithOutcome fills.
type Outcome struct {
	// Attempts is the number of attempts made, net/http's own re-sends included; 0 when
	// none was.
	Attempts int
	// RetryAfter is the wait the last response that asked for one asked for (Retry-After,
	// retry-after-ms or an exhausted RateLimit quota); 0 when none did.
	RetryAfter time.Duration
}

// WithOutcome fills *o when the call ends, however it ends.
func WithOutcome(o *Outcome) CallOption { return func(c *callConfig) { c.outcome = o } }

// WithIdempotent declares this call retry-safe without an idempotency key: repeating it
// does no harm (a search sent as a POST, say), so an attempt that may have reached the
// server is retried under the operation's policy.
func WithIdempotent() CallOption { return func(c *callConfig) { c.idempotent = true } }

// attempts returns the attempts a call may make whose policy allows n, as WithoutRetry
// and WithMaxAttempts change it.
func (c *callConfig) attempts(n int) int {
	switch {
	case c.noRetry:
		return 1
	case c.maxAttempts > 0:
		return c.maxAttempts
	}
	return n
}

// apply returns p as the call's options change it, or why an option cannot apply.
func (c *callConfig) apply(p *Policy) (*Policy, error) {
	if !c.keySet && !c.idempotent {
		return p, nil
	}
	cp := *p
	cp.StatusCodes = slices.Clone(p.StatusCodes)
	if c.keySet {
		switch {
		case cp.IdempotencyKey != "":
			// The operation's own header; an empty key gets a fresh one, as no key does.
		case strings.TrimSpace(c.idempotencyKey) == "":
			return nil, fmt.Errorf("%w: WithIdempotencyKey with an empty key, which is no key", ErrOptionDoesNotApply)
		case cp.Idempotent:
			return nil, fmt.Errorf("%w: WithIdempotencyKey: the operation sends no idempotency key header (it is retried without one, or its key is a field of the body, which the caller sets)", ErrOptionDoesNotApply)
		default:
			cp.IdempotencyKey = DefaultIdempotencyKeyHeader
			cp.Idempotent = true
		}
	}
	if c.idempotent {
		cp.Idempotent = true
	}
	return &cp, nil
}

// DefaultIdempotencyKeyHeader is the header WithIdempotencyKey uses on an operation that
// declares none.
const DefaultIdempotencyKeyHeader = "Idempotency-Key"

// WithAttemptTimeout overrides the policy's AttemptTimeout for one call; d <= 0 keeps the
// policy's.
func WithAttemptTimeout(d time.Duration) CallOption {
	return func(c *callConfig) { c.attemptTimeout = d }
}

// WithStreamedBody marks a call whose 2xx body is a stream, read for as long as it
// delivers (server-sent events): the policy's AttemptTimeout, and what is left of
// MaxElapsed, bound each attempt until its response header arrives, not the reading of
// the body, which only the call's context (and the caller closing it) ends. A failed
// attempt's body is still drained for DrainTimeout at most.
func WithStreamedBody() CallOption { return func(c *callConfig) { c.streamedBody = true } }

// WithHeaderTimeout bounds each attempt's wait for its response header, once its
// request is written, to d when d is shorter than Engine.ResponseHeaderTimeout: an event
// stream waits no longer for its header than for any byte of its events. An attempt that
// runs out fails with err, which must report Timeout() true, so that it is classified as
// a timeout: retried when the policy retries what may have reached the server. d <= 0
// keeps the engine's bound.
func WithHeaderTimeout(d time.Duration, err error) CallOption {
	return func(c *callConfig) { c.headerTimeout, c.headerErr = d, err }
}

// WithAnswerCheck makes check look at the start of each 2xx answer of the call before Do
// returns it: an event stream's first event, which may be an error in place of the
// answer. check may read from the body; the caller reads on from where it stopped. An
// error it returns fails the attempt: the answer is closed, and the attempt counts, for
// the retries, the budget, the breaker and OneRetryLayer, as a response with the status
// the error stands for (see FailedAnswer), retried when the policy retries that status;
// an error that stands for none is not retried. The call's *Error then has the answer's
// status, and the check's error as Err.
func WithAnswerCheck(check func(*http.Response) error) CallOption {
	return func(c *callConfig) { c.check = check }
}

// checkAnswer runs the call's WithAnswerCheck on a 2xx answer; nil without one.
func (c *callConfig) checkAnswer(resp *http.Response) error {
	if c.check == nil {
		return nil
	}
	return c.check(resp)
}

// FailedAnswer is an error of a WithAnswerCheck that stands for an HTTP status: an error
// event that says the server is overloaded stands for a 503.
type FailedAnswer interface {
	error
	AnswerStatus() int
}

// answerStatus returns the status err, the error of a WithAnswerCheck, stands for: 0 when
// it names none.
func answerStatus(err error) int {
	var f FailedAnswer
	if errors.As(err, &f) {
		return f.AnswerStatus()
	}
	return 0
}

// WithHeader sets a header on every attempt of one call, replacing any value the request
// has for that key. Later WithHeader options for the same key win.
func WithHeader(key, value string) CallOption {
	return func(c *callConfig) { c.header = append(c.header, [2]string{key, value}) }
}
