package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrygen/retrygen/runtime/internal/membody"
)

// drainLimit bounds how much of a failed attempt's body is read before it is closed, so that
// a small error body leaves the connection reusable and a huge one does not hold the call.
const drainLimit = 4 << 10

// DrainTimeout bounds how long the engine reads a failed attempt's body, whether to drain
// it before a retry (up to 4 KiB) or to keep it in Error.Body (up to ErrorBodyLimit), and
// how long Drain reads any body. A body that stalls is cut there: the attempt is aborted
// and its connection closed.
const DrainTimeout = time.Second

// Defaults of the Engine's bounds, for the zero value of their fields.
const (
	// DefaultResponseHeaderTimeout bounds each attempt's wait for its response header.
	DefaultResponseHeaderTimeout = 30 * time.Second
	// DefaultMaxBodySize caps a body read whole under Policy.ReadBody: 32 MiB.
	DefaultMaxBodySize = 32 << 20
)

// Values of Engine.ResponseHeaderTimeout and Engine.MaxBodySize that turn their bound off.
const (
	NoResponseHeaderTimeout time.Duration = -1
	NoBodyLimit             int64         = -1
)

// RetryEvent describes one retry, for Engine.OnRetry.
type RetryEvent struct {
	Method string
	URL    string // redacted as in Error.URL

	Attempt    int           // the attempt that failed, from 1
	Wait       time.Duration // the wait before the next attempt
	StatusCode int           // of the failed attempt (of a 2xx its answer check failed, the status that stands for), 0 if none
	Err        error         // of the failed attempt, nil if it got a response
	// ServerSaidRetry reports that the failed attempt's response said x-should-retry:
	// true (or Stripe-Should-Retry: true) and the policy follows the server's word: the
	// retry may be one that only the server's word allows (Policy.IgnoreServerSignals).
	ServerSaidRetry bool
}

// Engine sends requests under a Policy. One Engine serves all calls of one generated client,
// so that they share its budget and breaker. The zero value is ready to use and retries
// without a budget; set the fields before the first call and do not change them after.
type Engine struct {
	// HTTPClient sends each attempt; nil means http.DefaultClient. Do not give it a
	// Transport that retries by itself: attempts would multiply. The engine sends with a
	// copy whose redirects to another origin (another scheme, port, or a host that is not
	// a subdomain) keep only content headers (Accept, Content-Type, User-Agent, ...) and
	// the call's idempotency key, so no credential follows a redirect off its origin,
	// whatever header carries it; hc's own CheckRedirect still runs.
	HTTPClient *http.Client
	// QueryCredentials names the query parameters that carry credentials (an API key in
	// the query). A redirect off the first request's origin, to a subdomain included,
	// drops them from its URL, even when the Location repeats them; names match whatever
	// their case.
	QueryCredentials []string
	// Budget caps retries to a share of recent requests; nil means no budget.
	Budget *Budget
	// Breaker stops calls while the server keeps failing; nil means none.
	Breaker *Breaker
	// Logger receives one WARN record per retry and one INFO record for each call that
	// retried or stopped for a reason of retrying, under OpenTelemetry's keys
	// (http.request.method, url.full redacted, url.template, http.request.resend_count,
	// retry.wait, retry.cause, http.response.status_code or error.type and error,
	// retrygen.stop_reason, retrygen.attempts); never header values or bodies. nil logs
	// nothing.
	Logger *slog.Logger
	// OnRetry is called before each wait; nil means no hook. Calls may run concurrently.
	OnRetry func(RetryEvent)
	// Observer sees each call, attempt and wait, and why each call stopped (see
	// Observer); nil means none, which costs nothing.
	Observer Observer
	// Override adjusts every policy before a call (a client-wide policy override). It gets a
	// copy with the defaults its zero fields stand for filled in (MaxAttempts, Multiplier,
	// Jitter, and StatusCodes: DefaultStatusCodes for nil), so that it changes what the
	// engine would do: p.StatusCodes = append(p.StatusCodes, 409) retries a 409 as well
	// as the statuses retried already. The operation's own policy is never changed.
	Override func(*Policy)
	// AttemptHeader, when set, names a header that tells the server how many attempts came
	// before this one: "0" on the first, "1" on the first retry. A request that already
	// has the header keeps its value.
	AttemptHeader string
	// ResponseHeaderTimeout bounds how long one attempt waits for a response header once
	// its request (body included) is written; each request of a redirect chain gets it
	// anew. It ends an attempt that a server holds by dribbling or withholding its header
	// even when the caller set no deadline, and leaves a long upload alone. An attempt that runs out is a failed
	// attempt like a per-attempt timeout, retried under the policy's rules. 0 means
	// DefaultResponseHeaderTimeout (30s); NoResponseHeaderTimeout turns it off. The body is
	// not bounded by it: see Policy.AttemptTimeout.
	ResponseHeaderTimeout time.Duration
	// MaxBodySize caps the bytes of a 2xx body read whole under Policy.ReadBody (after
	// any Content-Encoding is decoded, so a compression bomb stops there too). A larger
	// body ends the call with ErrBodyTooLarge, not retried. 0 means DefaultMaxBodySize
	// (32 MiB); NoBodyLimit turns the cap off.
	MaxBodySize int64
	// Rand is the random source of the jitter: each call returns a number uniform in
	// [0, 1). nil means math/rand/v2's Float64. Tests inject a seeded source, e.g.
	// rand.New(rand.NewPCG(1, 2)).Float64 (guard it with a mutex if calls run concurrently),
	// or a constant. A value outside [0, 1) is clamped into it.
	Rand func() float64

	// guarded is HTTPClient with redirects that keep credentials on their origin, made once.
	guardOnce sync.Once
	guarded   *http.Client

	// Test seams: the clock and the timer behind each wait. nil means time.Now and
	// time.NewTimer. Tests of waiting code run in a testing/synctest bubble instead.
	now      func() time.Time
	newTimer func(time.Duration) (<-chan time.Time, func() bool)
}

var zeroPolicy Policy

// Do sends req under policy p and returns the response of the final attempt when its status
// is 2xx, open for the caller to read and close. Any other outcome is an *Error: a non-2xx
// final response (its body read up to ErrorBodyLimit and closed), a transport failure, or a
// retry loop that stopped early. The request is sent at least once unless ctx is already
// done, the breaker is open or p is invalid (see Policy.Validate). req's context is
// replaced by ctx. A nil p means the zero Policy.
//
// Do retries only what p allows: a status in p.StatusCodes or a transport error (with
// p.ConnectionErrors) when p.Idempotent, and otherwise only a failure to open the
// connection, when no byte of the request left. The server's word on a 4xx or 5xx answer
// comes first unless p.IgnoreServerSignals: x-should-retry or Stripe-Should-Retry false
// ends the call, true makes the answer retried (see Policy.IgnoreServerSignals). The
// caller's cancellation or deadline is never retried; a per-attempt timeout is. Between
// attempts it waits Policy.Wait: the
// jittered backoff, on top of the server's Retry-After when p.RetryAfter. A wait that could
// not end before ctx's deadline (or p.MaxElapsed) is not started, and cancelling ctx ends a
// wait at once. Each discarded response body is drained (up to 4 KiB, for DrainTimeout at
// most) and closed first, so the connection is reused; the request body is replayed through
// req.GetBody. net/http's own re-sends within an attempt count as attempts. Each attempt
// waits ResponseHeaderTimeout at most for its response header. The breaker, if any, is
// asked once before the first attempt and told the call's outcome once it ends. A call
// that gives up for load reasons under a request of OneRetryLayer records it there. The
// Observer, if any, sees the call, each attempt and wait, and why the call stopped.
//
// When p.IdempotencyKey is set and req lacks that header (or has it empty), every attempt
// carries the same key, redirects to another host included: the WithIdempotencyKey value,
// else a random UUIDv4 (crypto/rand), sent bare
// ("8e03978e-40d5-43e8-bc93-6894a57f9324"), the form most deployed APIs expect. Do does not
// change req; when it must add headers it sends a copy.
//
// The final response's context lives until its body is closed, so a per-attempt timeout
// bounds the whole exchange, body included, without cutting a body being read in time;
// under WithStreamedBody it bounds each attempt up to its response header only.
func (e *Engine) Do(ctx context.Context, req *http.Request, p *Policy, opts ...CallOption) (*http.Response, error) {
	return e.DoOperation(ctx, Operation{}, req, p, opts...)
}

// DoOperation is Do for a call of op, an operation of the API description: the call's
// CallInfo names it, for the Observer and for CallInfoFrom. Generated clients call it.
func (e *Engine) DoOperation(ctx context.Context, op Operation, req *http.Request, p *Policy, opts ...CallOption) (*http.Response, error) {
	if req == nil || req.URL == nil {
		return nil, &Error{Err: errors.New("runtime: Do needs a request with a URL")}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if p == nil {
		p = &zeroPolicy
	}
	p = e.override(p)
	var (
		cfg     callConfig
		refused error // why the call ends before anything is sent
	)
	switch {
	case !p.valid():
		refused = &Error{Method: req.Method, URL: redactURL(req.URL), Err: p.Validate()}
	case len(opts) > 0: // a heap copy only for calls with options: o may keep the pointer
		c := new(callConfig)
		for _, o := range opts {
			if o != nil {
				o(c)
			}
		}
		cfg = *c
		q, err := cfg.apply(p)
		if err != nil {
			refused = &Error{Method: req.Method, URL: redactURL(req.URL), Cause: err}
		} else {
			p = q
		}
	}
	facts := e.facts(op, req.Method, p, &cfg)
	var obs *observed
	if e.Observer != nil {
		obs = e.observe(ctx, req, &facts)
		ctx = obs.ctx
	}
	resp, attempts, err := e.admit(ctx, req, p, &cfg, &facts, obs, refused)
	if obs != nil {
		obs.end(ctx, resp, attempts, err)
	}
	if e.Logger != nil {
		e.logStop(ctx, req, &facts, attempts, err)
	}
	return resp, err
}

// admit makes the call unless it is refused before anything is sent: refused says why
// already, or the context is done, or the breaker is open. It returns the attempts made.
func (e *Engine) admit(ctx context.Context, req *http.Request, p *Policy, cfg *callConfig, facts *callFacts, obs *observed, refused error) (*http.Response, int, error) {
	if refused == nil {
		if err := ctx.Err(); err != nil {
			refused = &Error{Method: req.Method, URL: redactURL(req.URL), Cause: err}
		}
	}
	if refused != nil {
		closeBody(req)
		return nil, 0, refused
	}
	// The breaker counts calls: one question before the first attempt, one answer when
	// the call ends, however it ends (a panic or a cancellation answers neutral, which
	// frees the probe slot).
	ok, probe := e.Breaker.allow(e.clock())
	if !ok {
		closeBody(req)
		err := &Error{Method: req.Method, URL: redactURL(req.URL), Cause: ErrCircuitOpen}
		e.noteGiveUp(ctx, err, p.MaxRetryAfter)
		return nil, 0, err
	}
	result := outcomeNeutral
	if e.Breaker != nil {
		defer func() { e.Breaker.record(e.clock(), probe, result) }()
	}
	resp, attempts, err := e.do(ctx, req, p, cfg, facts, probe, obs)
	result = callOutcome(ctx, err)
	if err != nil {
		e.noteGiveUp(ctx, err, p.MaxRetryAfter) // for OneRetryLayer
	}
	return resp, attempts, err
}

// override returns p as Override adjusts it, on a copy with its defaults filled in (see
// Engine.Override); p itself without Override.
func (e *Engine) override(p *Policy) *Policy {
	if e.Override == nil {
		return p
	}
	cp := new(Policy)
	*cp = p.resolved()
	cp.StatusCodes = slices.Clone(cp.StatusCodes) // its own, and empty stays non-nil
	e.Override(cp)
	return cp
}

// CallPolicy returns the policy Do makes a call under p with opts by: p as Override
// adjusts it (with its defaults filled in, see Engine.Override), then as the options
// change it, MaxAttempts included (WithMaxAttempts, WithoutRetry). It returns the error
// an option that cannot apply gives. A caller that repeats a request itself, as an event
// stream reconnecting does, decides with it as the engine decides retries.
func (e *Engine) CallPolicy(p *Policy, opts ...CallOption) (Policy, error) {
	p, c, err := e.policyFor(p, opts)
	if err != nil {
		return Policy{}, err
	}
	out := *p
	out.MaxAttempts = c.attempts(out.MaxAttempts)
	return out, nil
}

// policyFor returns p (nil for the zero Policy) as Override adjusts it and then opts
// change it, and the options read; when an option cannot apply, p as Override adjusts it
// and the option's error.
func (e *Engine) policyFor(p *Policy, opts []CallOption) (*Policy, callConfig, error) {
	if p == nil {
		p = &zeroPolicy
	}
	p = e.override(p)
	var c callConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	q, err := c.apply(p)
	if err != nil {
		return p, c, err
	}
	return q, c, nil
}

// callOutcome is what a call that returned err tells the breaker: it failed when it ended
// with a transport error, a 5xx or a 429, whatever the operation's retry list; any other
// response is the server working. A call the caller cancelled, or that failed for a reason
// of its own (a bad URL, a refused redirect, a body it cannot replay), counts neither way.
func callOutcome(ctx context.Context, err error) outcome {
	if err == nil {
		return outcomeSuccess
	}
	var e *Error
	if !errors.As(err, &e) || ctx.Err() != nil {
		return outcomeNeutral
	}
	status := e.StatusCode
	if status < 300 && e.Err != nil { // an answer its check failed, as the status it stands for
		status = answerStatus(e.Err)
	}
	switch {
	case status >= 500 || status == http.StatusTooManyRequests:
		return outcomeFailure
	case e.StatusCode != 0:
		return outcomeSuccess
	case e.Err != nil && !callerSide(e.Err):
		return outcomeFailure
	}
	return outcomeNeutral
}

// call is the state of one call across its attempts, which do goes through.
type call struct {
	e   *Engine
	ctx context.Context
	req *http.Request
	pol Policy // resolved, with the call's own attempt timeout
	// cfg and facts are copies: pointers to the caller's would move them to the heap.
	cfg         callConfig
	facts       callFacts
	obs         *observed // nil without an Observer
	maxAttempts int
	probe       bool // the call is the breaker's probe
	replay      bool // the request has a body that every attempt sends again
	header      http.Header
	hide        callSecrets
	client      *http.Client
	now         time.Time
	elapsedEnd  time.Time // the end of MaxElapsed; zero for none

	last        lastOutcome
	prevBackoff time.Duration
	nextBody    io.ReadCloser // the body of the next attempt, from GetBody
	sent        int           // attempts made, net/http's own re-sends included
	// decided is pol for the situations of failed attempts, which leak it to the heap
	// through their error: a copy made at the first failure keeps pol itself, and a call
	// that does not fail, on the stack.
	decided *Policy
	// reauthorized: the call has repeated an attempt with a fresh token once.
	reauthorized bool
}

// do is Do once the policy is valid and the breaker has let the call through: attempts,
// each settled, then decided, until one succeeds or the decision is to stop. It returns
// the attempts made.
func (e *Engine) do(ctx context.Context, req *http.Request, p *Policy, cfg *callConfig, facts *callFacts, probe bool, obs *observed) (*http.Response, int, error) {
	c := call{e: e, ctx: ctx, req: req, pol: p.resolved(), cfg: *cfg, facts: *facts, obs: obs, probe: probe}
	c.maxAttempts = cfg.attempts(c.pol.MaxAttempts)
	if cfg.attemptTimeout > 0 {
		c.pol.AttemptTimeout = cfg.attemptTimeout
	}
	c.header = e.callHeader(req, &c.pol, &c.cfg)
	c.hide = callSecrets{req: req, header: c.header, keyHeader: c.pol.IdempotencyKey, queryNames: e.QueryCredentials}
	c.client = e.httpClient()
	c.now = e.clock()
	if c.pol.MaxElapsed > 0 {
		c.elapsedEnd = c.now.Add(c.pol.MaxElapsed)
	}
	c.replay = req.Body != nil && req.Body != http.NoBody
	if cfg.outcome != nil {
		defer func() { *cfg.outcome = Outcome{Attempts: c.sent, RetryAfter: c.last.retryAfter} }()
	}
	e.Budget.Deposit(c.now)
	for {
		if c.sent > 0 {
			if err := ctx.Err(); err != nil {
				closeReader(c.nextBody)
				return nil, c.sent, e.newError(req, &c.hide, c.sent, &c.last, err)
			}
		}
		resp, a, err := c.attempt()
		if err == nil && c.reauthorize(resp, a) {
			continue // the attempt again with a fresh token: not a retry (see WithTokenRefresh)
		}
		resp, done, err := c.settle(resp, a, err)
		if obs != nil {
			obs.attemptEnd(resp, err, &c.last, &c.hide)
		}
		if done {
			return resp, c.sent, err
		}
		v := c.decide()
		if !v.retry {
			return nil, c.sent, c.stop(v)
		}
		if err := c.prepare(v); err != nil {
			return nil, c.sent, err
		}
	}
}

// attempt sends the next attempt, and returns what it got and the attempt.
func (c *call) attempt() (*http.Response, *attempt, error) {
	e := c.e
	out := outgoing{body: c.nextBody, header: e.attemptHeader(c.req, c.header, c.sent+1, c.obs != nil)}
	c.nextBody = nil
	a := &attempt{keyHeader: http.CanonicalHeaderKey(c.pol.IdempotencyKey), maxResends: c.maxAttempts - c.sent - 1,
		noRedirects: c.cfg.noRedirects, answerBound: c.cfg.streamedBody, headerLimit: c.cfg.headerTimeout, headerErr: c.cfg.headerErr,
		facts: c.facts, resendCount: c.sent}
	ctx := c.ctx
	if c.obs != nil {
		ctx = c.obs.attemptStart(ctx, c.sent, out.header)
	}
	resp, err := e.send(c.client, ctx, c.req, out, &c.pol, c.now, c.elapsedEnd, a)
	c.sent += 1 + a.resent()
	c.now = e.clock()
	return resp, a, err
}

// reauthorize repeats attempt a, which got resp, with a fresh token when resp is a 401
// for an invalid token that the call's WithTokenRefresh may repeat, once per call (see
// Engine.reauthorize). It reports true when the next attempt is that repeat: the 401
// attempt has ended for the Observer, the repeat starts as the call's next attempt with
// no wait between, and it does not count against MaxAttempts.
func (c *call) reauthorize(resp *http.Response, a *attempt) bool {
	if c.reauthorized {
		return false
	}
	status := resp.StatusCode
	h, body, ok := c.e.reauthorize(c.ctx, c.req, resp, a, &c.cfg, c.header)
	if !ok {
		return false
	}
	if c.obs != nil {
		c.obs.attemptEnd(nil, nil, &lastOutcome{status: status}, &c.hide)
	}
	// The call's errors hide the stale token and the fresh one.
	c.hide = callSecrets{req: c.req, header: hiding(h, c.header, c.req), keyHeader: c.pol.IdempotencyKey, queryNames: c.e.QueryCredentials}
	c.header, c.nextBody, c.reauthorized = h, body, true
	c.maxAttempts++
	return true
}

// settle records what attempt a got, for the budget and the decision to come. It returns
// true when that ends the call: a 2xx answer (that its check, if any, let through), or a
// body too large to read, which would be too large again.
func (c *call) settle(resp *http.Response, a *attempt, err error) (*http.Response, bool, error) {
	e := c.e
	if err != nil {
		if errors.Is(err, ErrBodyTooLarge) {
			c.last = lastOutcome{status: resp.StatusCode, header: resp.Header}
			return nil, true, e.newError(c.req, &c.hide, c.sent, &c.last, err)
		}
		c.last = lastOutcome{err: err}
		if c.ctx.Err() == nil {
			e.Budget.Failed(c.now)
		}
		return nil, false, nil
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		// A body read whole has ended its attempt already; another one ends it when
		// closed.
		if resp.Body != &a.mem {
			a.body = attemptBody{ReadCloser: resp.Body, a: a}
			resp.Body = &a.body
		}
		cerr := c.cfg.checkAnswer(resp)
		if cerr == nil {
			e.Budget.Succeeded(c.now) // an answer that funds retries of later failures
			return resp, true, nil
		}
		// The answer's start says the attempt failed: it is decided as the status it
		// stands for.
		resp.Body.Close()
		c.now = e.clock()
		c.last = lastOutcome{status: resp.StatusCode, header: resp.Header, answerErr: cerr,
			failedAs: answerStatus(cerr)}
	} else {
		c.last = lastOutcome{status: resp.StatusCode, header: resp.Header, resp: resp, attempt: a,
			signal: c.pol.signal(resp.StatusCode, resp.Header)}
		c.last.retryAfter, _ = ParseRetryAfter(resp.Header, c.now)
	}
	if st := c.last.decided(); !c.pol.retriesStatus(st) && c.last.signal != signalRetry {
		e.Budget.Succeeded(c.now) // an answer that is not a failure to retry funds too
	} else {
		e.Budget.Failed(c.now)
	}
	return nil, false, nil
}

// decide says, of the attempt that just failed, whether the call goes on and after what
// wait (see decide).
func (c *call) decide() verdict {
	if c.decided == nil {
		c.decided = new(Policy)
		*c.decided = c.pol
	}
	sit := situation{
		pol:         c.decided,
		attempt:     c.sent,
		maxAttempts: c.maxAttempts,
		err:         c.last.err,
		callerDone:  c.ctx.Err() != nil,
		status:      c.last.decided(),
		header:      c.last.header,
		signal:      c.last.signal,
		now:         c.now,
		elapsedEnd:  c.elapsedEnd,
		prevBackoff: c.prevBackoff,
		mustReplay:  c.replay,
		canReplay:   c.req.GetBody != nil,
		breakerOpen: !c.probe && c.e.Breaker.isOpen(c.now),
		budget:      c.e.Budget,
	}
	sit.deadline, _ = c.ctx.Deadline()
	if sit.err != nil || sit.refusal() == nil {
		sit.rnd = c.e.random() // drawn only when a wait may follow
	}
	return decide(&sit)
}

// stop ends the call as verdict v says: the error that carries the last outcome and why.
func (c *call) stop(v verdict) error {
	if v.retryAfter > 0 {
		c.last.retryAfter = v.retryAfter
	}
	cause := v.cause
	if cause == nil && c.ctx.Err() != nil && c.last.err != nil && !errors.Is(c.last.err, c.ctx.Err()) {
		cause = c.ctx.Err() // the attempt's own error may not say so
	}
	return c.e.finalError(c.req, &c.hide, c.sent, &c.last, cause)
}

// prepare readies the retry that verdict v allows: the body to send again, the failed
// attempt's connection freed, the retry reported, the wait. Its error ends the call.
func (c *call) prepare(v verdict) error {
	e := c.e
	c.prevBackoff = v.backoff
	if c.replay {
		body, err := c.req.GetBody()
		if err != nil {
			return e.finalError(c.req, &c.hide, c.sent, &c.last, fmt.Errorf("%w: %w", ErrBodyNotReplayable, err))
		}
		c.nextBody = body
	}
	if c.last.resp != nil {
		c.last.body = drain(c.last.resp.Body, drainLimit, c.last.attempt)
		c.last.resp = nil
		c.last.attempt.release()
		c.last.attempt = nil
	}
	e.report(c, v)
	if err := e.sleep(c.ctx, v.wait); err != nil {
		closeReader(c.nextBody)
		return e.newError(c.req, &c.hide, c.sent, &c.last, err)
	}
	c.now = e.clock()
	return nil
}

// outgoing is what one attempt sends in place of the call's request's own: a body
// replayed through GetBody, and a header map of the call's or of the attempt's own. nil
// keeps the request's.
type outgoing struct {
	body   io.ReadCloser
	header http.Header
}

// send makes one attempt: it sends a copy of req, with out, under the attempt's own
// context, derived from ctx and bounded by the policy's AttemptTimeout, what is left of
// MaxElapsed (up to the response header only when a.answerBound) and the engine's
// response header timeout, and with pol.ReadBody reads a 2xx body within the attempt. A
// request body whose reader failed makes the attempt's error wrap ErrRequestBody. On a
// 2xx or a non-2xx response a.release frees the attempt's context once its body is done
// with; on an error the context is freed already.
func (e *Engine) send(client *http.Client, ctx context.Context, req *http.Request, out outgoing, pol *Policy, now, elapsedEnd time.Time, a *attempt) (*http.Response, error) {
	d, limited := attemptLimit(pol, now, elapsedEnd)
	actx := a.start(ctx, d, limited && !a.answerBound)
	a.headerTimeout = a.boundHeader(e.responseHeaderTimeout())
	a.deadline, _ = actx.Deadline()
	if limited && a.answerBound {
		a.limitAnswer(d)
	}
	a.req = *req.WithContext(actx) // the copy lives in the attempt
	r := &a.req
	if out.body != nil {
		r.Body = out.body
	}
	if out.header != nil {
		r.Header = out.header
	}
	a.watchBody(r)

	resp, err := client.Do(r)
	a.gotAnswer()
	if err != nil {
		if cause := a.cause(); cause != nil {
			err = &url.Error{Op: urlErrorOp(r.Method), URL: redactURL(r.URL), Err: cause}
		} else if berr := a.bodyError(); berr != nil && actx.Err() == nil {
			// The body failed, not the network; a body read that the attempt's end
			// (a timeout, the caller's cancellation) broke is that end's.
			err = &url.Error{Op: urlErrorOp(r.Method), URL: redactURL(r.URL), Err: fmt.Errorf("%w: %w", ErrRequestBody, berr)}
		}
		a.release()
		return nil, err
	}
	if pol.ReadBody && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		resp, err = readBody(r, resp, e.maxBodySize(), &a.mem)
		if err != nil {
			if !errors.Is(err, ErrBodyTooLarge) {
				if cause := a.cause(); cause != nil {
					err = &url.Error{Op: urlErrorOp(r.Method), URL: redactURL(r.URL), Err: cause}
				}
			}
			a.release()
			return resp, err
		}
		a.release() // the body is in memory: the attempt is over
	}
	return resp, nil
}

// urlErrorOp is the Op net/http gives a *url.Error: "Get", "Post", ...
func urlErrorOp(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + strings.ToLower(method[1:])
}

func (e *Engine) responseHeaderTimeout() time.Duration {
	switch d := e.ResponseHeaderTimeout; {
	case d == 0:
		return DefaultResponseHeaderTimeout
	case d < 0:
		return 0
	default:
		return d
	}
}

func (e *Engine) maxBodySize() int64 {
	switch n := e.MaxBodySize; {
	case n == 0:
		return DefaultMaxBodySize
	case n < 0:
		return -1
	default:
		return n
	}
}

// lastOutcome is what the latest attempt left: a transport error, or a response whose body
// is still open (resp, with its attempt) until the engine decides its fate.
type lastOutcome struct {
	err        error // as net/http returned it until shown; see shownErr
	redacted   bool  // err is redacted
	status     int
	header     http.Header
	signal     signal // what the response said of repeating it, as the policy reads it
	body       []byte
	retryAfter time.Duration

	resp    *http.Response
	attempt *attempt

	// A 2xx answer that its WithAnswerCheck failed: the check's error and the status it
	// stands for.
	answerErr error
	failedAs  int
}

// decided returns the status the attempt is decided by: the response's, or the one a
// failed answer check stands for.
func (l *lastOutcome) decided() int {
	if l.answerErr != nil {
		return l.failedAs
	}
	return l.status
}

// shownErr returns the attempt's error redacted (see redactError), as errors, events and
// logs show it: a transport error, or a failed answer check's error, with the call's
// credentials hidden. It redacts it the first time only, so that the error of an attempt
// that no one sees (a retry made it good) costs no redaction.
func (l *lastOutcome) shownErr(hide *callSecrets) error {
	if !l.redacted {
		if l.answerErr != nil {
			l.err = &redactedError{err: l.answerErr, text: peerText(l.answerErr.Error(), errorTextLimit, false, hide.get())}
		} else if l.err != nil {
			l.err = redactError(l.err, hide.get())
		}
		l.redacted = true
	}
	return l.err
}

// finalError ends the call: it reads the last response's body into the error and closes it.
func (e *Engine) finalError(req *http.Request, hide *callSecrets, attempts int, last *lastOutcome, cause error) *Error {
	if last.resp != nil {
		last.body = drain(last.resp.Body, ErrorBodyLimit, last.attempt)
		last.resp = nil
	}
	if last.attempt != nil {
		last.attempt.release()
		last.attempt = nil
	}
	return e.newError(req, hide, attempts, last, cause)
}

func (e *Engine) newError(req *http.Request, hide *callSecrets, attempts int, last *lastOutcome, cause error) *Error {
	return &Error{
		Method:     req.Method,
		URL:        redactURL(req.URL),
		Attempts:   attempts,
		StatusCode: last.status,
		Header:     last.header,
		Body:       last.body,
		RetryAfter: last.retryAfter,
		Err:        last.shownErr(hide),
		Cause:      cause,
		hide:       hide.get(),
	}
}

// callSecrets is what a call's errors, events and logs keep out of sight: the credentials
// its attempts sent, worked out (see secrets) the first time a failure needs them.
type callSecrets struct {
	req        *http.Request
	header     http.Header // the call's header map (callHeader), nil for req's own
	keyHeader  string      // the idempotency key's header, which is no credential
	queryNames []string    // Engine.QueryCredentials, left out of the URL kept
	sent       *sentRequest
}

func (c *callSecrets) get() *sentRequest {
	if c.sent == nil {
		c.sent = secrets(c.req, c.header, c.keyHeader, c.queryNames)
	}
	return c.sent
}

// callHeader returns the header map every attempt of the call sends, or nil for req's own
// when the call changes no header: the call's map holds the idempotency key (unless req
// has one) and the WithHeader values. An empty key counts as no key: an idempotency key
// header whose values are all empty, whether the request or WithHeader set it, is not
// sent, and under a policy with an IdempotencyKey the call gets a key of its own instead.
// (net/http treats a request that merely has an Idempotency-Key or X-Idempotency-Key
// header, even empty, as safe to re-send.)
func (e *Engine) callHeader(req *http.Request, pol *Policy, cfg *callConfig) http.Header {
	keyHeaders := [...]string{pol.IdempotencyKey, "Idempotency-Key", "X-Idempotency-Key"}
	addKey := pol.IdempotencyKey != "" && !hasValue(req.Header.Values(pol.IdempotencyKey))
	emptyKey := false
	for _, name := range keyHeaders {
		if name != "" {
			if v := req.Header.Values(name); v != nil && !hasValue(v) {
				emptyKey = true
			}
		}
	}
	if !addKey && !emptyKey && len(cfg.header) == 0 {
		return nil
	}
	h := req.Header.Clone()
	if h == nil {
		h = make(http.Header)
	}
	for _, kv := range cfg.header {
		h.Set(kv[0], kv[1])
	}
	for _, name := range keyHeaders {
		if name != "" && !hasValue(h.Values(name)) {
			h.Del(name)
		}
	}
	if pol.IdempotencyKey != "" && h.Values(pol.IdempotencyKey) == nil {
		key := cfg.idempotencyKey
		if strings.TrimSpace(key) == "" {
			key = newUUID()
		}
		h.Set(pol.IdempotencyKey, key)
	}
	return h
}

// hasValue reports whether any of a header's values is more than blanks.
func hasValue(values []string) bool {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}

// attemptHeader returns the header map attempt sends: header (the call's, nil for req's
// own) or, when the attempt needs one of its own, a copy: own (an observer may add to
// it), or e.AttemptHeader set and missing from the request, which the copy then carries
// with the attempt count. A fresh map per attempt keeps it apart from a previous attempt
// the transport may still be writing.
func (e *Engine) attemptHeader(req *http.Request, header http.Header, attempt int, own bool) http.Header {
	if header == nil {
		header = req.Header
	}
	count := e.AttemptHeader != "" && header.Values(e.AttemptHeader) == nil
	if !count && !own {
		return header
	}
	h := header.Clone()
	if h == nil {
		h = make(http.Header)
	}
	if count {
		h.Set(e.AttemptHeader, strconv.Itoa(attempt-1))
	}
	return h
}

// attemptLimit returns how long the next attempt may take, if it is bounded.
func attemptLimit(pol *Policy, now, elapsedEnd time.Time) (time.Duration, bool) {
	d, ok := pol.AttemptTimeout, pol.AttemptTimeout > 0
	if !elapsedEnd.IsZero() {
		if rest := elapsedEnd.Sub(now); !ok || rest < d {
			d, ok = rest, true
		}
	}
	return d, ok
}

// report tells the hook, the logger and the observer of the retry that verdict v makes
// after the failed attempt of c.
func (e *Engine) report(c *call, v verdict) {
	if e.OnRetry == nil && e.Logger == nil && c.obs == nil {
		return
	}
	last := &c.last
	w := WaitInfo{Attempt: c.sent, Delay: v.wait, Cause: WaitBackoff, RetryAfter: v.wait - v.backoff}
	switch {
	case w.RetryAfter > 0:
		w.Cause = WaitRetryAfter
	case last.signal == signalRetry:
		w.Cause = WaitServerSaidRetry
	}
	if c.obs != nil {
		c.obs.o.Wait(c.ctx, w)
	}
	if e.OnRetry == nil && e.Logger == nil {
		return
	}
	u := redactURL(c.req.URL)
	// A failed answer shows the status it stands for (an overloaded stream's 503), not
	// its 200.
	status := last.decided()
	if e.OnRetry != nil {
		e.OnRetry(RetryEvent{Method: c.req.Method, URL: u, Attempt: c.sent, Wait: v.wait, StatusCode: status, Err: last.shownErr(&c.hide),
			ServerSaidRetry: last.signal == signalRetry})
	}
	if e.Logger != nil {
		attrs := append(e.callAttrs(c.req, &c.facts, u),
			slog.Int("http.request.resend_count", c.sent), slog.Duration("retry.wait", v.wait), slog.String("retry.cause", string(w.Cause)))
		attrs = appendOutcome(attrs, status, last.shownErr(&c.hide))
		e.Logger.LogAttrs(c.ctx, slog.LevelWarn, "retrying HTTP request", attrs...)
	}
}

// callAttrs returns the log attributes that name a call: its method, URL (u, as shown),
// and the operation's template and id when known, under OpenTelemetry's keys.
func (e *Engine) callAttrs(req *http.Request, f *callFacts, u string) []slog.Attr {
	attrs := make([]slog.Attr, 0, 10)
	attrs = append(attrs, slog.String("http.request.method", req.Method), slog.String("url.full", u))
	if f.op.Template != "" {
		attrs = append(attrs, slog.String("url.template", f.op.Template))
	}
	if f.op.ID != "" {
		attrs = append(attrs, slog.String("retrygen.operation", f.op.ID))
	}
	return attrs
}

// appendOutcome adds to attrs what an attempt got: its status, or its error and the
// error's type.
func appendOutcome(attrs []slog.Attr, status int, err error) []slog.Attr {
	if status != 0 {
		attrs = append(attrs, slog.Int("http.response.status_code", status))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error.type", ErrorType(err)), slog.String("error", err.Error()))
	}
	return attrs
}

// logStop logs at INFO why a call stopped, when retries were part of it: it made more
// than one attempt, or stopped for a reason other than a success, an answer no policy
// retries or the caller's cancellation.
func (e *Engine) logStop(ctx context.Context, req *http.Request, f *callFacts, attempts int, err error) {
	stop := StopReasonOf(err)
	if attempts <= 1 && (stop == StopSucceeded || stop == StopStatusNotRetried || stop == StopCancelled) {
		return
	}
	attrs := append(e.callAttrs(req, f, redactURL(req.URL)),
		slog.String("retrygen.stop_reason", string(stop)), slog.Int("retrygen.attempts", attempts))
	var ae *Error
	if errors.As(err, &ae) {
		attrs = appendOutcome(attrs, ae.StatusCode, ae.Err)
		if ae.RetryAfter > 0 {
			attrs = append(attrs, slog.Duration("retry.after", ae.RetryAfter))
		}
	}
	e.Logger.LogAttrs(ctx, slog.LevelInfo, "HTTP call ended", attrs...)
}

// sleep waits d or until ctx is done, whichever comes first, and stops its timer either way.
func (e *Engine) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	var (
		c    <-chan time.Time
		stop func() bool
	)
	if e.newTimer != nil {
		c, stop = e.newTimer(d)
	} else {
		t := time.NewTimer(d)
		c, stop = t.C, t.Stop
	}
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		stop()
		return ctx.Err()
	}
}

// httpClient returns the client that sends each attempt: HTTPClient (or
// http.DefaultClient) whose redirects off the first request's origin carry no
// credentials; see guardRedirects.
func (e *Engine) httpClient() *http.Client {
	e.guardOnce.Do(func() {
		hc := e.HTTPClient
		if hc == nil {
			hc = http.DefaultClient
		}
		e.guarded = guardRedirects(hc, slices.Clone(e.QueryCredentials))
	})
	return e.guarded
}

func (e *Engine) clock() time.Time {
	if e.now != nil {
		return e.now()
	}
	return time.Now()
}

func (e *Engine) random() float64 {
	if e.Rand != nil {
		return e.Rand()
	}
	return rand.Float64()
}

// attemptBody releases its attempt's context when the caller closes the response body.
type attemptBody struct {
	io.ReadCloser
	a *attempt
}

func (b *attemptBody) Close() error {
	err := b.ReadCloser.Close()
	b.a.release()
	return err
}

// readBody reads resp's whole body into memory, at most limit bytes (no limit when
// negative), closes it and makes mem resp's body. A failed read is returned as the
// attempt's error, wrapped in *url.Error like net/http's own, so that it is classified as
// a transport failure that may have reached the server. A body over the limit is
// ErrBodyTooLarge; resp is then returned too, its body closed, for its status and header.
func readBody(req *http.Request, resp *http.Response, limit int64, mem *membody.Body) (*http.Response, error) {
	b, err := readAtMost(resp.Body, limit, resp.ContentLength)
	resp.Body.Close()
	if err != nil {
		return nil, &url.Error{Op: urlErrorOp(req.Method), URL: redactURL(req.URL), Err: fmt.Errorf("reading response body: %w", err)}
	}
	if limit >= 0 && int64(len(b)) > limit {
		resp.Body = http.NoBody
		return resp, fmt.Errorf("%w: more than %d bytes (Engine.MaxBodySize)", ErrBodyTooLarge, limit)
	}
	mem.Set(b)
	resp.Body = mem
	resp.ContentLength = int64(len(b))
	return resp, nil
}

// readAtMost reads r to its end, or until it has read more than limit bytes (no limit
// when negative). size is the length r announces (a Content-Length), -1 if unknown: it
// sizes the first buffer, up to 64 KiB, so that a body of known length is read into one
// allocation; a body longer than announced is still read whole, and a shorter one costs
// no more than its announced size.
func readAtMost(r io.Reader, limit, size int64) ([]byte, error) {
	first := int64(512)
	if size >= 0 {
		first = min(size+1, 64<<10) // +1: room to see the end without growing
	}
	if limit >= 0 {
		first = min(first, limit+1)
	}
	b := make([]byte, 0, first)
	for limit < 0 || int64(len(b)) <= limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append choose the growth
		}
		room := b[len(b):cap(b)]
		if limit >= 0 && int64(len(room)) > limit+1-int64(len(b)) {
			room = room[:limit+1-int64(len(b))]
		}
		n, err := r.Read(room)
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// Drain reads up to limit bytes of body, for DrainTimeout at most, closes it and returns
// what it read, as the engine does with a failed attempt's body: a body that ends within
// both leaves its connection reusable, and one that stalls cannot hold the caller. When
// the time runs out the body is closed, which ends a read net/http has in progress (its
// connection is then not reused), and for the body of a response Do returned the attempt
// is aborted too. A body whose Read a concurrent Close does not end (no net/http body is
// one) holds Drain until the Read returns. body is closed exactly once.
func Drain(body io.ReadCloser, limit int64) []byte {
	var a *attempt
	if b, ok := body.(*attemptBody); ok {
		a = b.a
	}
	return drain(body, limit, a)
}

// drain is Drain for the body of attempt a (nil for none), which a drain out of time
// aborts before it closes the body.
func drain(body io.ReadCloser, limit int64, a *attempt) []byte {
	switch b := body.(type) {
	case nil:
		return nil
	case *membody.Body: // nothing to wait for
		return b.Next(limit)
	}
	cut := make(chan struct{})
	t := time.AfterFunc(DrainTimeout, func() {
		defer close(cut)
		if a != nil {
			a.abort(errDrainTimeout)
		}
		body.Close()
	})
	b, _ := io.ReadAll(io.LimitReader(body, limit))
	if t.Stop() {
		body.Close()
	} else {
		<-cut // closed by the timer
	}
	return b
}

// closeBody closes a request body that will never be sent, as http.Client.Do would.
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

func closeReader(rc io.ReadCloser) {
	if rc != nil {
		rc.Close()
	}
}
