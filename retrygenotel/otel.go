// Package retrygenotel reports the calls of retrygen clients to OpenTelemetry: traces
// that show each retry, and metrics of attempts, waits and why calls stopped.
//
//	c := petstore.NewClient(petstore.WithBaseURL(url), petstore.WithObserver(retrygenotel.New()))
//
// Each call of a client is an INTERNAL span named after its operation ("getPet"), with
// one CLIENT span per attempt under it, as OpenTelemetry's HTTP semantic conventions
// describe them: named "{method} {url.template}" ("GET /pets/{petId}"), with
// http.request.method, server.address, server.port, url.full (no user information, query
// values REDACTED), url.template, http.response.status_code, error.type, and
// http.request.resend_count from the second attempt on. Each attempt carries its own
// W3C traceparent (the propagators'), which a redirect off the request's origin drops as
// it drops credentials. The call span has retrygen.attempts and retrygen.stop_reason, and
// a retry.wait event per wait between attempts (retry.delay in seconds, retry.cause,
// retry.after for the server's hint, retrygen.attempt for the attempt that failed).
// An event stream is one call span whose attempts are its connections; a paginated walk
// is a span whose pages are call spans under it.
//
// Metrics, in seconds, with low-cardinality attributes only (the operation, its template,
// the server, the status, the error type, the stop reason; never a path with its ids):
//
//	http.client.request.duration      histogram  per attempt, as the conventions define it
//	retrygen.client.call.duration     histogram  per call, its waits included
//	retrygen.client.call.attempts     histogram  attempts per call
//	retrygen.client.call.retry_delay  histogram  each wait between attempts, by retry.cause
//	retrygen.client.retry.refused     counter    calls whose retry was refused, by retrygen.stop_reason
//	retrygen.client.breaker.state     gauge      1 for the breaker's state, 0 for the others
//	retrygen.client.budget.available  gauge      retries the budget allows now
//	retrygen.onelayer.suppressed      counter    answers runtime.OneRetryLayer marked X-Should-Retry: false
//
// The package depends on the OpenTelemetry API only; a program chooses the SDK.
package retrygenotel

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
	"weak"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/retrygen/retrygen/runtime"
)

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/retrygen/retrygen/retrygenotel"

// Attribute keys: OpenTelemetry's, and retrygen's own.
const (
	keyMethod      = attribute.Key("http.request.method")
	keyStatus      = attribute.Key("http.response.status_code")
	keyResend      = attribute.Key("http.request.resend_count")
	keyAddress     = attribute.Key("server.address")
	keyPort        = attribute.Key("server.port")
	keyURLFull     = attribute.Key("url.full")
	keyTemplate    = attribute.Key("url.template")
	keyErrorType   = attribute.Key("error.type")
	keyOperation   = attribute.Key("retrygen.operation")
	keyKind        = attribute.Key("retrygen.call.kind")
	keyRetryClass  = attribute.Key("retrygen.retry_class")
	keyKeySent     = attribute.Key("retrygen.idempotency_key_sent")
	keyAttempts    = attribute.Key("retrygen.attempts")
	keyAttempt     = attribute.Key("retrygen.attempt")
	keyStop        = attribute.Key("retrygen.stop_reason")
	keyDelay       = attribute.Key("retry.delay")
	keyCause       = attribute.Key("retry.cause")
	keyRetryAfter  = attribute.Key("retry.after")
	keyBreakerSate = attribute.Key("retrygen.breaker.state")
)

// Option configures New.
type Option func(*config)

type config struct {
	tp         trace.TracerProvider
	mp         metric.MeterProvider
	propagator propagation.TextMapPropagator
}

// WithTracerProvider makes the spans with tp instead of the global TracerProvider.
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithMeterProvider records the metrics with mp instead of the global MeterProvider.
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// WithPropagators injects each attempt's trace context with p instead of the global
// TextMapPropagator.
func WithPropagators(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.propagator = p }
}

// New returns an Observer that reports to OpenTelemetry, for a generated client's
// WithObserver. One observer may serve many clients; it is safe for concurrent use.
// It also counts the answers runtime.OneRetryLayer marks (runtime.LayerObserver).
func New(opts ...Option) runtime.Observer {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	if c.propagator == nil {
		c.propagator = otel.GetTextMapPropagator()
	}
	o := &observer{
		tracer:     c.tp.Tracer(ScopeName, trace.WithInstrumentationVersion(Version)),
		propagator: c.propagator,
		budgets:    map[weak.Pointer[runtime.Budget]]*watched{},
		breakers:   map[weak.Pointer[runtime.Breaker]]*watched{},
		ops:        map[opKey]*opAttrs{},
	}
	o.instruments(c.mp.Meter(ScopeName, metric.WithInstrumentationVersion(Version)))
	return o
}

// Version is this package's version, the instrumentation scope's.
const Version = "0.1.0"

type observer struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator

	attemptDuration metric.Float64Histogram
	callDuration    metric.Float64Histogram
	callAttempts    metric.Int64Histogram
	retryDelay      metric.Float64Histogram
	refused         metric.Int64Counter
	suppressed      metric.Int64Counter

	mu       sync.Mutex
	budgets  map[weak.Pointer[runtime.Budget]]*watched
	breakers map[weak.Pointer[runtime.Breaker]]*watched

	opsMu sync.RWMutex
	ops   map[opKey]*opAttrs
}

// watched is a budget or a breaker the gauges report, with its server's attributes.
type watched struct {
	budget  weak.Pointer[runtime.Budget]
	breaker weak.Pointer[runtime.Breaker]
	server  attribute.Set
}

// maxWatched bounds the budgets and breakers the gauges follow, for a program that makes
// a client per request.
const maxWatched = 256

// durations are the bucket boundaries of the duration histograms, in seconds: the HTTP
// semantic conventions' for requests, with longer ones for calls that wait.
var (
	requestBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
	callBuckets    = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}
	attemptBuckets = []int64{1, 2, 3, 4, 5, 6, 8, 10}
)

// instruments makes the metrics with m. An instrument m cannot make is a no-op one, as
// the API returns it along with the error, which goes to otel.Handle.
func (o *observer) instruments(m metric.Meter) {
	var err error
	handle := func(e error) {
		if e != nil {
			err = e
		}
	}
	var e error
	o.attemptDuration, e = m.Float64Histogram("http.client.request.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of HTTP client requests: each attempt of a call."),
		metric.WithExplicitBucketBoundaries(requestBuckets...))
	handle(e)
	o.callDuration, e = m.Float64Histogram("retrygen.client.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of calls of a retrygen client, every attempt and wait included."),
		metric.WithExplicitBucketBoundaries(callBuckets...))
	handle(e)
	o.callAttempts, e = m.Int64Histogram("retrygen.client.call.attempts", metric.WithUnit("{attempt}"),
		metric.WithDescription("Attempts a call made, the first included."),
		metric.WithExplicitBucketBoundaries(toFloat(attemptBuckets)...))
	handle(e)
	o.retryDelay, e = m.Float64Histogram("retrygen.client.call.retry_delay", metric.WithUnit("s"),
		metric.WithDescription("Each wait between two attempts of a call."),
		metric.WithExplicitBucketBoundaries(callBuckets...))
	handle(e)
	o.refused, e = m.Int64Counter("retrygen.client.retry.refused", metric.WithUnit("{call}"),
		metric.WithDescription("Calls whose outcome called for a retry that the attempts, the budget, the breaker, the server, a Retry-After or the time left refused."))
	handle(e)
	o.suppressed, e = m.Int64Counter("retrygen.onelayer.suppressed", metric.WithUnit("{response}"),
		metric.WithDescription("Answers of a service that OneRetryLayer marked X-Should-Retry: false, after a call of theirs gave up."))
	handle(e)
	breaker, e := m.Int64ObservableGauge("retrygen.client.breaker.state", metric.WithUnit("1"),
		metric.WithDescription("1 for the circuit breaker's state (retrygen.breaker.state), 0 for the other two."))
	handle(e)
	budget, e := m.Float64ObservableGauge("retrygen.client.budget.available", metric.WithUnit("{retry}"),
		metric.WithDescription("Retries the client's retry budget allows now."))
	handle(e)
	_, e = m.RegisterCallback(func(_ context.Context, ob metric.Observer) error {
		o.observeGauges(ob, breaker, budget)
		return nil
	}, breaker, budget)
	handle(e)
	if err != nil {
		otel.Handle(err)
	}
}

func toFloat(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// callState is what the observer keeps of a call: the call's context, which answers
// callKey with it, so that it takes no context.WithValue of its own.
type callState struct {
	context.Context
	op    *opAttrs
	url   string // url.full
	span  trace.Span
	start time.Time
}

func (c *callState) Value(key any) any {
	if key == (callKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// attemptState is what the observer keeps of an attempt: its context, as callState.
type attemptState struct {
	context.Context
	call   *callState
	resend int
	span   trace.Span
	start  time.Time
}

func (a *attemptState) Value(key any) any {
	if key == (attemptKey{}) {
		return a
	}
	return a.Context.Value(key)
}

type callKey struct{}
type attemptKey struct{}

// CallStart starts the call's INTERNAL span, named after its operation.
func (o *observer) CallStart(ctx context.Context, info runtime.CallInfo) context.Context {
	op := o.opOf(&info)
	c := &callState{op: op, url: info.URL, start: time.Now()}
	ctx, c.span = o.tracer.Start(ctx, op.callName, op.callStart...)
	if info.Budget != nil || info.Breaker != nil {
		o.watch(op, info.Budget, info.Breaker)
	}
	c.Context = ctx
	return c
}

// AttemptStart starts the attempt's CLIENT span under the call's, and injects its trace
// context into the attempt's header.
func (o *observer) AttemptStart(ctx context.Context, info runtime.AttemptInfo) context.Context {
	c, _ := ctx.Value(callKey{}).(*callState)
	if c == nil {
		return ctx
	}
	a := &attemptState{call: c, resend: info.ResendCount, start: time.Now()}
	ctx, a.span = o.tracer.Start(ctx, c.op.attemptName, c.op.attemptStart...)
	if info.Header != nil {
		o.propagator.Inject(ctx, headerCarrier(info.Header))
	}
	a.Context = ctx
	return a
}

// headerCarrier is propagation.HeaderCarrier, but that it spells the trace context's
// header names canonical without making a new string for each attempt.
type headerCarrier http.Header

func (h headerCarrier) Get(key string) string { return propagation.HeaderCarrier(h).Get(key) }

func (h headerCarrier) Set(key, value string) {
	switch key {
	case "traceparent":
		key = "Traceparent"
	case "tracestate":
		key = "Tracestate"
	case "baggage":
		key = "Baggage"
	default:
		key = http.CanonicalHeaderKey(key)
	}
	h[key] = []string{value}
}

func (h headerCarrier) Keys() []string { return propagation.HeaderCarrier(h).Keys() }

// AttemptEnd ends the attempt's span, and records its duration.
func (o *observer) AttemptEnd(ctx context.Context, r runtime.AttemptResult) {
	a, _ := ctx.Value(attemptKey{}).(*attemptState)
	if a == nil {
		return
	}
	errType := r.ErrorType
	if r.StatusCode >= 400 && r.Err == nil {
		errType = statusText(r.StatusCode)
	}
	if a.span.IsRecording() {
		// One SetAttributes, which grows the span's attributes once: url.full, the resend
		// count, the status, the error type.
		var buf [4]attribute.KeyValue
		attrs := buf[:0]
		if url := a.call.url; url != "" {
			attrs = append(attrs, keyURLFull.String(url))
		}
		if a.resend > 0 {
			attrs = append(attrs, keyResend.Int(a.resend))
		}
		if r.StatusCode != 0 {
			attrs = append(attrs, keyStatus.Int(r.StatusCode))
		}
		if errType != "" {
			attrs = append(attrs, keyErrorType.String(errType))
		}
		a.span.SetAttributes(attrs...)
		if errType != "" {
			desc := errType
			if r.Err != nil {
				desc = r.Err.Error()
			}
			a.span.SetStatus(codes.Error, desc)
		}
	}
	a.span.End()
	m := a.call.op.measure(setKey{what: forAttempt, status: r.StatusCode, errType: errType})
	o.attemptDuration.Record(ctx, time.Since(a.start).Seconds(), m.record...)
}

// Wait adds a retry.wait event to the call's span, and records the delay.
func (o *observer) Wait(ctx context.Context, w runtime.WaitInfo) {
	c, _ := ctx.Value(callKey{}).(*callState)
	if c == nil {
		return
	}
	if c.span.IsRecording() {
		attrs := []attribute.KeyValue{keyDelay.Float64(w.Delay.Seconds()), keyCause.String(string(w.Cause)), keyAttempt.Int(w.Attempt)}
		if w.RetryAfter > 0 {
			attrs = append(attrs, keyRetryAfter.Float64(w.RetryAfter.Seconds()))
		}
		c.span.AddEvent("retry.wait", trace.WithAttributes(attrs...))
	}
	m := c.op.measure(setKey{what: forWait, cause: w.Cause})
	o.retryDelay.Record(ctx, w.Delay.Seconds(), m.record...)
}

// CallEnd ends the call's span with its attempts and stop reason, and records the call.
func (o *observer) CallEnd(ctx context.Context, r runtime.CallResult) {
	c, _ := ctx.Value(callKey{}).(*callState)
	if c == nil {
		return
	}
	if c.span.IsRecording() {
		if r.StatusCode != 0 {
			c.span.SetAttributes(keyAttempts.Int(r.Attempts), keyStop.String(string(r.Stop)), keyStatus.Int(r.StatusCode))
		} else {
			c.span.SetAttributes(keyAttempts.Int(r.Attempts), keyStop.String(string(r.Stop)))
		}
		if r.Err != nil {
			c.span.SetStatus(codes.Error, string(r.Stop))
		}
	}
	c.span.End()
	m := c.op.measure(setKey{what: forCall, stop: r.Stop})
	o.callDuration.Record(ctx, time.Since(c.start).Seconds(), m.record...)
	if c.op.kind != runtime.KindWalk {
		o.callAttempts.Record(ctx, int64(r.Attempts), m.record...)
	}
	if r.GaveUp {
		o.refused.Add(ctx, 1, m.add...)
	}
}

// statusText returns code as error.type spells it, "503", without an allocation for the
// common ones.
func statusText(code int) string {
	if code >= 100 && code < 600 {
		return statusTexts[code-100]
	}
	return strconv.Itoa(code)
}

var statusTexts = func() (t [500]string) {
	for i := range t {
		t[i] = strconv.Itoa(i + 100)
	}
	return t
}()

// Suppressed counts an answer OneRetryLayer marked X-Should-Retry: false.
func (o *observer) Suppressed(ctx context.Context, info runtime.SuppressInfo) {
	o.suppressed.Add(ctx, 1, metric.WithAttributes(keyStatus.Int(info.StatusCode)))
}

// serverAttrs returns server.address and server.port of origin, an "https://host:port".
func serverAttrs(origin string) []attribute.KeyValue {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return []attribute.KeyValue{keyAddress.String(u.Hostname())}
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	return []attribute.KeyValue{keyAddress.String(host), keyPort.Int(n)}
}

// watch makes the gauges follow budget and breaker (either may be nil), once each, for
// as long as they live.
func (o *observer) watch(op *opAttrs, budget *runtime.Budget, breaker *runtime.Breaker) {
	if op.budget.Value() == budget && op.breaker.Value() == breaker {
		return // this operation's calls have shown them already
	}
	w := &watched{server: op.server}
	if budget != nil {
		w.budget = weak.Make(budget)
	}
	if breaker != nil {
		w.breaker = weak.Make(breaker)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	op.budget, op.breaker = w.budget, w.breaker
	if len(o.budgets)+len(o.breakers) >= maxWatched {
		return
	}
	if budget != nil {
		if _, ok := o.budgets[w.budget]; !ok {
			o.budgets[w.budget] = w
		}
	}
	if breaker != nil {
		if _, ok := o.breakers[w.breaker]; !ok {
			o.breakers[w.breaker] = w
		}
	}
}

// observeGauges reports the state of every budget and breaker still alive, and forgets
// the others.
func (o *observer) observeGauges(ob metric.Observer, breaker metric.Int64Observable, budget metric.Float64Observable) {
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	for key, w := range o.budgets {
		b := key.Value()
		if b == nil {
			delete(o.budgets, key)
			continue
		}
		ob.ObserveFloat64(budget, b.Available(now), metric.WithAttributeSet(w.server))
	}
	for key, w := range o.breakers {
		br := key.Value()
		if br == nil {
			delete(o.breakers, key)
			continue
		}
		state := br.State(now)
		for _, s := range []string{runtime.BreakerClosed, runtime.BreakerHalfOpen, runtime.BreakerOpen} {
			v := int64(0)
			if s == state {
				v = 1
			}
			ob.ObserveInt64(breaker, v, metric.WithAttributes(append(w.server.ToSlice(), keyBreakerSate.String(s))...))
		}
	}
}
