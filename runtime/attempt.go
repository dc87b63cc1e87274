package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/retrygen/retrygen/runtime/internal/membody"
)

// attempt is the state of one engine attempt that net/http's hooks reach through the
// request's context: the redirect guard reads the call's idempotency key header from it,
// and an httptrace hook counts net/http's own re-sends in it.
//
// net/http sends a request again by itself, within one client.Do, when a reused
// keep-alive connection turns out to be dead (HTTP/1.1) or when the server refuses a
// stream (HTTP/2 REFUSED_STREAM, up to 6 times with backoff of its own). Each such re-send
// takes a connection again, which the GetConn hook sees; a redirect, which also takes one,
// is told apart by the guard's CheckRedirect. The engine counts every re-send as an
// attempt, and aborts the attempt when a re-send would exceed the attempts the call has
// left (maxResends), so that the server sees at most the policy's MaxAttempts requests.
type attempt struct {
	keyHeader     string        // canonical name of the call's idempotency key header; "" for none
	maxResends    int           // re-sends allowed within this attempt
	headerTimeout time.Duration // the wait for a response header once a request is written; 0 for none
	headerLimit   time.Duration // the call's own bound on that wait (WithHeaderTimeout); 0 for none
	headerErr     error         // what the call's own bound fails the attempt with
	deadline      time.Time     // when a deadline ends the wait for the answer, if one does
	noRedirects   bool          // a redirect is the answer, not followed (WithoutRedirects)
	answerBound   bool          // the attempt's time limit ends with its answer (WithStreamedBody)
	facts         callFacts     // the call's, for CallInfoFrom
	resendCount   int           // the attempts of the call before this one, for AttemptFrom

	// The attempt's request, context, trace and response bodies live in the attempt
	// itself, so that an attempt takes one allocation of its own for all of them.
	req         http.Request   // the copy of the call's request that the attempt sends
	ctx         attemptContext // the request's context
	root        rootContext    // the cancelable context under ctx, when start chose it
	trace       httptrace.ClientTrace
	cancelCause context.CancelCauseFunc // cancels the context under ctx when it is a context.WithCancelCause
	cancelLimit context.CancelFunc      // cancels it when it is a context.WithTimeout
	body        attemptBody             // the 2xx body Do returns, while it is the network's
	mem         membody.Body            // the 2xx body read whole (Policy.ReadBody)

	mu       sync.Mutex
	hopConns int   // connections taken for the current request of a redirect chain
	resends  int   // net/http's own re-sends
	aborted  error // why the engine aborted the attempt, if it did
	bodyErr  error // the first error the request body returned; see watchBody
	answered bool  // client.Do returned: the header timeout no longer applies
	timer    *time.Timer
	limit    *time.Timer // the attempt's time limit, when it ends with the answer
}

type attemptKey struct{}

// attemptFrom returns the attempt whose request ctx belongs to, or nil.
func attemptFrom(ctx context.Context) *attempt {
	a, _ := ctx.Value(attemptKey{}).(*attempt)
	return a
}

// start returns the attempt's context, derived from parent, and when limited ended after
// d with context.DeadlineExceeded: it is canceled by abort and release, and holds the
// attempt for attemptFrom and the attempt's trace hooks for net/http. When parent carries
// a trace of its own, or traceKey is unknown, httptrace.WithClientTrace adds the hooks,
// composed with parent's.
//
// One cancelable context does it all. With a time limit it is context.WithTimeout's.
// Without one, under a parent that is never canceled (context.Background, a
// context.WithoutCancel), it is the attempt's own rootContext, which takes no allocation;
// under any other it is context.WithCancelCause's, so that the contexts net/http derives
// from the attempt's register with a canceler of the context package's own.
func (a *attempt) start(parent context.Context, d time.Duration, limited bool) context.Context {
	composed := traceKey == nil || httptrace.ContextClientTrace(parent) != nil
	switch {
	case limited:
		ctx, cancel := context.WithTimeout(parent, d)
		a.cancelLimit = cancel
		a.ctx = attemptContext{Context: ctx, a: a}
	case parent.Done() == nil && !composed:
		// The trace's context layer would hide the root's AfterFunc from the contexts
		// derived below it; context.WithCancelCause takes that case.
		a.root = rootContext{Context: parent}
		a.ctx = attemptContext{Context: &a.root, a: a}
	default:
		ctx, cancel := context.WithCancelCause(parent)
		a.cancelCause = cancel
		a.ctx = attemptContext{Context: ctx, a: a}
	}
	a.trace.GetConn, a.trace.WroteRequest = a.getConn, a.wroteRequest
	if composed {
		// httptrace composes the attempt's hooks with the caller's own trace.
		return httptrace.WithClientTrace(&a.ctx, &a.trace)
	}
	a.ctx.traced = true
	return &a.ctx
}

// cancel cancels the attempt's context, with cause (context.Canceled when nil) under a
// context.WithCancelCause; the others say context.Canceled, and the attempt keeps the
// cause itself (see attempt.cause).
func (a *attempt) cancel(cause error) {
	switch {
	case a.cancelCause != nil:
		a.cancelCause(cause)
	case a.cancelLimit != nil:
		a.cancelLimit()
	default:
		a.root.cancel(cause)
	}
}

// attemptContext is an attempt's context: a cancelable context that also answers for the
// attempt (attemptKey) and, once its trace is set (traceKey), for the attempt's trace, so
// that neither takes a context.WithValue layer.
type attemptContext struct {
	context.Context
	a      *attempt
	traced bool // Value answers traceKey with &a.trace
}

func (c *attemptContext) Value(key any) any {
	switch {
	case key == attemptKey{}:
		return c.a
	case c.traced && key == traceKey:
		return &c.a.trace
	}
	return c.Context.Value(key)
}

// AfterFunc lets the contexts derived from an attempt's context register with the
// context under it (see rootContext.AfterFunc); the context package looks for the method
// on the context it derives from.
func (c *attemptContext) AfterFunc(f func()) (stop func() bool) {
	if r, ok := c.Context.(*rootContext); ok {
		return r.AfterFunc(f)
	}
	return context.AfterFunc(c.Context, f)
}

func (c *attemptContext) String() string { return fmt.Sprint(c.Context) + ".WithValue(attempt)" }

// abort ends the attempt: its request, or the reading of its body, fails with cause.
func (a *attempt) abort(cause error) {
	a.mu.Lock()
	if a.aborted == nil {
		a.aborted = cause
	}
	a.mu.Unlock()
	a.cancel(cause)
}

// cause returns why the engine aborted the attempt, or nil.
func (a *attempt) cause() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.aborted
}

// release frees the attempt's context. It may be called more than once.
func (a *attempt) release() {
	if a == nil {
		return
	}
	a.cancel(nil)
}

// getConn is the httptrace GetConn hook: a second connection for the same request of a
// redirect chain is a re-send.
func (a *attempt) getConn(string) {
	a.mu.Lock()
	a.hopConns++
	over := false
	if a.hopConns > 1 {
		a.resends++
		over = a.resends > a.maxResends
	}
	a.mu.Unlock()
	if over {
		a.abort(errResendLimit)
	}
}

// wroteRequest is the httptrace WroteRequest hook: it starts (or, for the next request of
// a redirect chain, restarts) the wait for the response header. Counting from the end of
// the write leaves a long upload alone. A wait that a.deadline ends first needs no timer
// of its own.
func (a *attempt) wroteRequest(httptrace.WroteRequestInfo) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.answered || a.headerTimeout <= 0 {
		return
	}
	if !a.deadline.IsZero() && !a.deadline.After(time.Now().Add(a.headerTimeout)) {
		if a.timer != nil {
			a.timer.Stop() // an earlier request's wait, of a redirect chain
		}
		return
	}
	if a.timer == nil {
		a.timer = time.AfterFunc(a.headerTimeout, a.headerTimedOut)
	} else {
		a.timer.Reset(a.headerTimeout)
	}
}

func (a *attempt) headerTimedOut() {
	if a.headerErr != nil {
		a.timedOut(a.headerErr)
		return
	}
	a.timedOut(errResponseHeaderTimeout)
}

// boundHeader returns the wait for a response header: d, the engine's (0 for none), or
// the call's own bound when that is shorter, whose end then fails the attempt with the
// call's error (WithHeaderTimeout).
func (a *attempt) boundHeader(d time.Duration) time.Duration {
	if a.headerLimit > 0 && (d <= 0 || a.headerLimit < d) {
		return a.headerLimit
	}
	a.headerErr = nil
	return d
}

// limitAnswer aborts the attempt with context.DeadlineExceeded, as a context deadline
// would end it, unless its answer comes within d.
func (a *attempt) limitAnswer(d time.Duration) {
	if end := time.Now().Add(d); a.deadline.IsZero() || end.Before(a.deadline) {
		a.deadline = end
	}
	a.limit = time.AfterFunc(d, func() { a.timedOut(context.DeadlineExceeded) })
}

// timedOut aborts the attempt with cause unless its answer has come.
func (a *attempt) timedOut(cause error) {
	a.mu.Lock()
	if a.answered {
		a.mu.Unlock()
		return
	}
	if a.aborted == nil {
		a.aborted = cause
	}
	a.mu.Unlock()
	a.cancel(cause)
}

// gotAnswer marks the end of the wait for a response header: client.Do returned.
func (a *attempt) gotAnswer() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answered = true
	if a.timer != nil {
		a.timer.Stop()
	}
	if a.limit != nil {
		a.limit.Stop()
	}
}

// redirected marks the start of a redirect chain's next request.
func (a *attempt) redirected() {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.hopConns = 0
	a.mu.Unlock()
}

// resent returns how many re-sends of net/http's went out, the one refused excluded.
func (a *attempt) resent() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return min(a.resends, a.maxResends)
}

// timeoutError is an attempt timeout of the engine's own; like net/http's, it reports
// Timeout.
type timeoutError struct{ msg string }

func (e *timeoutError) Error() string   { return e.msg }
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }

var (
	errResponseHeaderTimeout = &timeoutError{"timeout awaiting response headers (Engine.ResponseHeaderTimeout)"}
	errDrainTimeout          = &timeoutError{"timeout draining the response body"}
	errResendLimit           = errors.New("net/http re-sent the request beyond the attempts left")
)
