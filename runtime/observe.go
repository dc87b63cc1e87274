package runtime

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/retrygen/retrygen/runtime/internal/outer"
)

// Observer sees what an Engine does, for traces, metrics and logs: each call, each of its
// attempts, each wait between them, and why the call stopped. Set it as Engine.Observer
// (WithObserver in a generated package). Package retrygenotel turns it into OpenTelemetry
// spans and metrics; retrytest.Recorder records it for tests.
//
// For one call the methods are called in order, from the goroutine that makes the call:
// CallStart, then for each attempt AttemptStart and AttemptEnd, with a Wait between two
// attempts, then CallEnd. The repeat of an attempt with a fresh token (WithTokenRefresh)
// is no retry and has no Wait: the refused attempt ends with its 401, and the repeat
// starts as the next attempt, its ResendCount counting the refused one, as
// CallResult.Attempts does. A call refused before its first attempt (the breaker open, the
// context done, an invalid policy or option) has CallStart and CallEnd only. Calls run
// concurrently, so the methods must be safe for concurrent use. Each method that returns
// a context returns ctx or one derived from it: CallStart's is the context of the call's
// attempts, waits and end, and AttemptStart's the context of that attempt's request and of
// its AttemptEnd. An observer must not block: the call waits for it.
//
// An event stream is one call whose attempts are its connections and reconnections (the
// first event, or the error event that came in its place, is a connection's result); a
// paginated walk is a call of its own, and each page an ordinary call under it. Nothing is
// reported, and nothing allocated, for a client without an observer.
type Observer interface {
	CallStart(ctx context.Context, info CallInfo) context.Context
	AttemptStart(ctx context.Context, info AttemptInfo) context.Context
	AttemptEnd(ctx context.Context, result AttemptResult)
	Wait(ctx context.Context, info WaitInfo)
	CallEnd(ctx context.Context, result CallResult)
}

// LayerObserver is an Observer that also sees the answers OneRetryLayer tells not to be
// retried: the observer of a client whose call gave up under that request hears of the
// X-Should-Retry: false the answer got.
type LayerObserver interface {
	Observer
	Suppressed(ctx context.Context, info SuppressInfo)
}

// SuppressInfo describes an answer of a service that OneRetryLayer marked X-Should-Retry:
// false: its status, and the Retry-After it added (0 when it added none).
type SuppressInfo struct {
	StatusCode int
	RetryAfter time.Duration
}

// Operation names the operation of an API description that a call makes, as generated
// code tells Engine.DoOperation: it becomes part of the call's CallInfo.
type Operation struct {
	ID       string // the operationId, e.g. "getPet"; "" when the spec gives none
	Template string // the operation's path in the spec, e.g. "/pets/{petId}"
	// KeyInBody reports that the call's idempotency key is a property of its body, which
	// the generated method fills, rather than a header.
	KeyInBody bool
}

// CallInfo describes a call as it starts. Every field is of low cardinality except URL,
// which holds the call's own path and query keys: a metric should be keyed by the others.
type CallInfo struct {
	OperationID string   // e.g. "getPet"; "" when the spec names none, or for a request of the caller's own
	Method      string   // e.g. "GET"
	URLTemplate string   // the spec's path, e.g. "/pets/{petId}"; "" for a request of the caller's own
	Server      string   // the origin the call is sent to, e.g. "https://api.example.com" (no user information)
	URL         string   // the call's URL as errors show it: no user information, query values REDACTED; "" for a walk
	Kind        CallKind // a request, an event stream or a paginated walk
	RetryClass  RetryClass
	// KeySent reports that the call sends an idempotency key (its value is never shown).
	KeySent bool
	// Budget and Breaker are the client's, nil when it has none, for an observer that
	// reports their state (Budget.Available, Breaker.State).
	Budget  *Budget
	Breaker *Breaker
}

// CallKind says what a call is made of.
type CallKind uint8

const (
	// KindRequest: one request, sent again on each retry.
	KindRequest CallKind = iota
	// KindStream: an event stream, whose connections and reconnections are its attempts.
	KindStream
	// KindWalk: a paginated walk, whose pages are calls of their own under it.
	KindWalk
)

func (k CallKind) String() string {
	switch k {
	case KindStream:
		return "stream"
	case KindWalk:
		return "walk"
	}
	return "request"
}

// RetryClass says why a call may be repeated once it may have reached the server, or that
// it may not be (RFC 9110 §9.2.2).
type RetryClass string

const (
	RetrySafe       RetryClass = "safe"            // GET, HEAD, OPTIONS, TRACE
	RetryIdempotent RetryClass = "idempotent"      // PUT, DELETE
	RetryKeyed      RetryClass = "idempotency_key" // another method that sends an idempotency key
	RetryDeclared   RetryClass = "declared"        // declared idempotent: x-idempotent, WithIdempotent
	// RetryUnsafe: repeated only when no byte of it left, or when the server says so.
	RetryUnsafe RetryClass = "not_retry_safe"
)

// retryClass returns the class of a call of method under p, which sends a key when keyed.
func retryClass(method string, p *Policy, keyed bool) RetryClass {
	switch {
	case !p.Idempotent:
		return RetryUnsafe
	}
	switch method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return RetrySafe
	case http.MethodPut, http.MethodDelete:
		return RetryIdempotent
	}
	if keyed {
		return RetryKeyed
	}
	return RetryDeclared
}

// AttemptInfo describes an attempt as it starts.
type AttemptInfo struct {
	// ResendCount is the number of attempts of the call before this one: 0 for the first
	// (OpenTelemetry's http.request.resend_count, set from the second attempt on).
	ResendCount int
	// Header is the attempt's own request header, which AttemptStart may add to (a trace
	// context). A redirect off the request's origin keeps none of what it adds.
	Header http.Header
}

// AttemptResult is how an attempt ended: a response's status, or a transport error.
type AttemptResult struct {
	StatusCode int // 0 when the attempt got no response
	// Err is the transport error, or the error of a check of a 2xx answer that failed it
	// (an event stream's error event), redacted as errors show it; nil otherwise.
	Err error
	// ErrorType classes Err, in few values, for metrics: "timeout", "connection_refused",
	// "connection_reset", "dns", "tls", "eof", "request_body", "canceled",
	// "failed_answer", or "_OTHER"; "" when Err is nil.
	ErrorType string
}

// WaitInfo describes a wait between two attempts.
type WaitInfo struct {
	Attempt int           // the attempt that failed, from 1
	Delay   time.Duration // the whole wait
	Cause   WaitCause
	// RetryAfter is the server's hint under the backoff (Retry-After, retry-after-ms, an
	// event stream's retry: interval); 0 when none set the wait.
	RetryAfter time.Duration
}

// WaitCause says what set a wait.
type WaitCause string

const (
	WaitBackoff         WaitCause = "backoff"           // the policy's backoff alone
	WaitRetryAfter      WaitCause = "retry_after"       // the server's hint, with the backoff on top
	WaitServerSaidRetry WaitCause = "server_said_retry" // a retry the server's x-should-retry: true allowed
)

// CallResult is how a call ended.
type CallResult struct {
	// Attempts is the number of attempts made (net/http's own re-sends included); for a
	// walk, the pages asked for.
	Attempts int
	Stop     StopReason
	// StatusCode is the last response's status, 0 when the call got none.
	StatusCode int
	// GaveUp reports that the call gave up for load reasons, as OneRetryLayer counts it:
	// its outcome called for a retry that the attempts, the budget, the breaker, the
	// server, a Retry-After or the time left refused.
	GaveUp bool
	// Err is the call's error, nil when it succeeded.
	Err error
}

// StopReason says why a call stopped: one value per cause an *Error gives.
type StopReason string

const (
	StopSucceeded           StopReason = "succeeded"             // a 2xx answer; a walk or a stream that ended
	StopStatusNotRetried    StopReason = "status_not_retried"    // ErrStatusNotRetried: an answer, not a failure to retry
	StopExhausted           StopReason = "exhausted"             // ErrExhausted
	StopBudget              StopReason = "budget"                // ErrBudgetExhausted
	StopBreakerOpen         StopReason = "breaker_open"          // ErrCircuitOpen
	StopServerSaidNo        StopReason = "server_said_no"        // ErrServerSaidNoRetry
	StopNotRetrySafe        StopReason = "not_retry_safe"        // ErrNotRetrySafe, ErrOutcomeUnknown
	StopRetryAfterTooLong   StopReason = "retry_after_too_long"  // ErrRetryAfterTooLong
	StopCancelled           StopReason = "cancelled"             // the caller's cancellation, a stream's Close
	StopDeadline            StopReason = "deadline"              // the context's deadline
	StopRetriesOff          StopReason = "retries_off"           // ErrRetriesOff
	StopNotRetryable        StopReason = "not_retryable"         // ErrNotRetryable
	StopConnectionErrorsOff StopReason = "connection_errors_off" // ErrConnectionErrorsOff
	StopBodyNotReplayable   StopReason = "body_not_replayable"   // ErrBodyNotReplayable
	StopBodyTooLarge        StopReason = "body_too_large"        // ErrBodyTooLarge
	StopPageLoop            StopReason = "page_loop"             // ErrPageLoop
	StopPageLink            StopReason = "page_link"             // ErrPageLink
	StopTooManyPages        StopReason = "too_many_pages"        // ErrTooManyPages
	StopOther               StopReason = "other"                 // anything else: an invalid policy, a body that does not decode
)

// stopCauses maps the sentinels to their reasons, in the order StopReasonOf tries them:
// the engine's causes before the failures they wrap.
var stopCauses = []struct {
	err    error
	reason StopReason
}{
	{ErrStatusNotRetried, StopStatusNotRetried},
	{ErrExhausted, StopExhausted},
	{ErrBudgetExhausted, StopBudget},
	{ErrCircuitOpen, StopBreakerOpen},
	{ErrServerSaidNoRetry, StopServerSaidNo},
	{ErrNotRetrySafe, StopNotRetrySafe},
	{ErrRetryAfterTooLong, StopRetryAfterTooLong},
	{ErrRetriesOff, StopRetriesOff},
	{ErrNotRetryable, StopNotRetryable},
	{ErrConnectionErrorsOff, StopConnectionErrorsOff},
	{ErrBodyNotReplayable, StopBodyNotReplayable},
	{ErrBodyTooLarge, StopBodyTooLarge},
	{ErrPageLoop, StopPageLoop},
	{ErrPageLink, StopPageLink},
	{ErrTooManyPages, StopTooManyPages},
	{ErrStreamClosed, StopCancelled},
	{context.DeadlineExceeded, StopDeadline},
	{context.Canceled, StopCancelled},
}

// StopReasonOf returns why a call that returned err stopped: StopSucceeded for nil, else
// the reason of its *Error's Cause (or of the first sentinel err matches), StopOther when
// it matches none.
func StopReasonOf(err error) StopReason {
	if err == nil {
		return StopSucceeded
	}
	e, ok := err.(*Error) // as Do returns it
	if !ok {
		errors.As(err, &e)
	}
	if e != nil && e.Cause != nil {
		err = e.Cause
	}
	for _, c := range stopCauses {
		if errors.Is(err, c.err) {
			return c.reason
		}
	}
	if e != nil && e.Err != nil {
		return StopReasonOf(e.Err) // the caller's cancellation, which Err says
	}
	return StopOther
}

// ErrorType classes a transport error in few values, as AttemptResult.ErrorType does
// ("timeout", "connection_refused", ...); "" for nil.
func ErrorType(err error) string {
	var (
		dns     *net.DNSError
		unknown x509.UnknownAuthorityError
		invalid x509.CertificateInvalidError
		host    x509.HostnameError
		verify  *tls.CertificateVerificationError
		record  tls.RecordHeaderError
		netErr  net.Error
	)
	switch {
	case err == nil:
		return ""
	case answerStatus(err) != 0:
		return "failed_answer"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, ErrRequestBody):
		return "request_body"
	case errors.As(err, &dns):
		return "dns"
	case errors.As(err, &unknown), errors.As(err, &invalid), errors.As(err, &host),
		errors.As(err, &verify), errors.As(err, &record):
		return "tls"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection_refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		return "connection_reset"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "eof"
	}
	return "_OTHER"
}

// CallInfoFrom returns the CallInfo of the call whose attempt's request ctx belongs to:
// the context of a request the engine sends, as any RoundTripper below it sees it (an
// otelhttp transport's span name formatter, a logger). It reports false for any other
// context. It works with or without an Observer.
func CallInfoFrom(ctx context.Context) (CallInfo, bool) {
	a := attemptFrom(ctx)
	if a == nil {
		return CallInfo{}, false
	}
	return a.facts.info(&a.req), true
}

// AttemptFrom returns the AttemptInfo of the attempt whose request ctx belongs to, as
// CallInfoFrom does; false for any other context.
func AttemptFrom(ctx context.Context) (AttemptInfo, bool) {
	a := attemptFrom(ctx)
	if a == nil {
		return AttemptInfo{}, false
	}
	return AttemptInfo{ResendCount: a.resendCount, Header: a.req.Header}, true
}

// callFacts is what a call's CallInfo is made from, kept in each attempt so that the
// accessors find it without an allocation: the rest comes from the request.
type callFacts struct {
	op      Operation
	kind    CallKind
	class   RetryClass
	keySent bool
	engine  *Engine
}

func (e *Engine) facts(op Operation, method string, p *Policy, cfg *callConfig) callFacts {
	keyed := p.IdempotencyKey != "" || op.KeyInBody
	f := callFacts{op: op, class: retryClass(method, p, keyed), keySent: keyed, engine: e}
	if cfg.streamedBody {
		f.kind = KindStream
	}
	return f
}

// info returns the CallInfo of a call of req.
func (f *callFacts) info(req *http.Request) CallInfo {
	ci := CallInfo{
		OperationID: f.op.ID,
		Method:      req.Method,
		URLTemplate: f.op.Template,
		Server:      origin(req.URL),
		URL:         redactURL(req.URL),
		Kind:        f.kind,
		RetryClass:  f.class,
		KeySent:     f.keySent,
	}
	if ci.Method == "" {
		ci.Method = http.MethodGet
	}
	if f.engine != nil {
		ci.Budget, ci.Breaker = f.engine.Budget, f.engine.Breaker
	}
	return ci
}

// origin returns u's scheme and host, "https://api.example.com:8443".
func origin(u *url.URL) string {
	if u == nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// CallInfo returns the CallInfo the engine gives a call of op that sends req under p
// with opts: for code that reports a call made of several engine calls (an event stream,
// a paginated walk) to the engine's Observer.
func (e *Engine) CallInfo(op Operation, req *http.Request, p *Policy, opts ...CallOption) CallInfo {
	p, cfg, _ := e.policyFor(p, opts) // an option that cannot apply fails the call, which still starts
	f := e.facts(op, req.Method, p, &cfg)
	return f.info(req)
}

// observed is a call as the engine reports it to its Observer.
type observed struct {
	o    Observer
	info CallInfo
	ctx  context.Context // CallStart's: the parent of the attempts' contexts
	actx context.Context // the current attempt's, AttemptStart's
	// outer is the event stream this call is a connection of, which reports the call
	// itself: the engine reports attempts and waits only, counted on from the stream's.
	outer *outer.Call
}

// observe starts reporting a call of req to e.Observer.
func (e *Engine) observe(ctx context.Context, req *http.Request, f *callFacts) *observed {
	obs := &observed{o: e.Observer, outer: outer.From(ctx)}
	if obs.outer != nil {
		obs.ctx = ctx
		return obs
	}
	obs.info = f.info(req)
	obs.ctx = orParent(obs.o.CallStart(ctx, obs.info), ctx)
	return obs
}

// attemptStart reports that the attempt after sent attempts starts, with its own header.
func (obs *observed) attemptStart(ctx context.Context, sent int, header http.Header) context.Context {
	resend := sent
	if obs.outer != nil {
		resend += int(obs.outer.Attempts.Load())
	}
	obs.actx = orParent(obs.o.AttemptStart(ctx, AttemptInfo{ResendCount: resend, Header: header}), ctx)
	return obs.actx
}

// orParent returns ctx, what an observer returned, or parent when the observer returned
// nil.
func orParent(ctx, parent context.Context) context.Context {
	if ctx == nil {
		return parent
	}
	return ctx
}

// attemptEnd reports how the attempt ended: resp when it succeeded, else err, when it ends
// the call, or last.
func (obs *observed) attemptEnd(resp *http.Response, err error, last *lastOutcome, hide *callSecrets) {
	var r AttemptResult
	switch {
	case resp != nil:
		r.StatusCode = resp.StatusCode
	case err != nil: // a body too large
		r.StatusCode, r.Err = last.status, err
	default:
		r.StatusCode, r.Err = last.status, last.shownErr(hide)
	}
	if r.Err != nil {
		r.ErrorType = ErrorType(r.Err)
	}
	obs.o.AttemptEnd(obs.actx, r)
}

// end reports how the call ended, after attempts: resp, or err.
func (obs *observed) end(ctx context.Context, resp *http.Response, attempts int, err error) {
	if obs.outer != nil {
		obs.outer.Attempts.Add(int64(attempts))
		return
	}
	r := CallResult{Attempts: attempts, Stop: StopReasonOf(err), Err: err}
	if resp != nil {
		r.StatusCode = resp.StatusCode
	}
	if ae, ok := err.(*Error); ok {
		r.StatusCode = ae.StatusCode
		_, r.GaveUp = gaveUp(ctx, err)
	}
	obs.o.CallEnd(obs.ctx, r)
}

// SpanName names the span of an attempt's request as OpenTelemetry's HTTP conventions
// do, "{method} {url.template}" ("GET /pets/{petId}"), from the operation of the call the
// request belongs to (see CallInfoFrom), and "{method}" for any other request. Its shape
// is otelhttp's span name formatter's: otelhttp.WithSpanNameFormatter(runtime.SpanName).
func SpanName(_ string, r *http.Request) string {
	if ci, ok := CallInfoFrom(r.Context()); ok && ci.URLTemplate != "" {
		return r.Method + " " + ci.URLTemplate
	}
	return r.Method
}
