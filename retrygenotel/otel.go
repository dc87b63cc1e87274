// Package retrygenotel reports the calls of retrygen clients to OpenTelemetry: traces
// that show each retry, and metrics of attempts, waits and why calls stopped.
//
//	c, err := petstore.NewClient(url, petstore.WithObserver(retrygenotel.New()))
//
// Each call of a client is an INTERNAL span named after its operation ("getPet"), with
// one CLIENT span per attempt under it, as OpenTelemetry's HTTP semantic conventions
// describe them: named "{method} {url.template}" ("GET /pets/{petId}"), with
// http.request.method, server.address, server.port, url.full (no user information, query
// values REDACTED), url.template, http.response.status_code, error.type, and
// http.request.resend_count from the second attempt on. Each attempt carries its own
// W3C traceparent (the propagators'), which a redirect off the request's origin drops as
// it drops credentials. The call span has retrygen.attempts and retrygen.stop_reason, and
// a retry.wait event per wait between attempts (retry.delay in seconds, retry.cause).
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
		states:     map[any]*watched{},
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

	mu     sync.Mutex
	states map[any]*watched // by weak pointer to a budget or a breaker
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

// callState is what the observer keeps of a call in its context.
type callState struct {
	info  runtime.CallInfo
	span  trace.Span
	start time.Time
	// attrs are the call's metric attributes; server those of its server.
	attrs  []attribute.KeyValue
	server []attribute.KeyValue
	// name is the attempts' span name, "GET /pets/{petId}".
	name string
}

// attemptState is what the observer keeps of an attempt in its context.
type attemptState struct {
	call  *callState
	span  trace.Span
	start time.Time
}

type callKey struct{}
type attemptKey struct{}

// CallStart starts the call's INTERNAL span, named after its operation.
func (o *observer) CallStart(ctx context.Context, info runtime.CallInfo) context.Context {
	c := &callState{info: info, start: time.Now()}
	c.server = serverAttrs(info.Server)
	c.name = info.Method
	if info.URLTemplate != "" {
		c.name += " " + info.URLTemplate
	}
	c.attrs = make([]attribute.KeyValue, 0, 4+len(c.server))
	c.attrs = append(c.attrs, keyMethod.String(info.Method))
	if info.OperationID != "" {
		c.attrs = append(c.attrs, keyOperation.String(info.OperationID))
	}
	if info.URLTemplate != "" {
		c.attrs = append(c.attrs, keyTemplate.String(info.URLTemplate))
	}
	c.attrs = append(c.attrs, c.server...)

	name := info.OperationID
	if name == "" {
		name = c.name
	}
	attrs := make([]attribute.KeyValue, 0, len(c.attrs)+3)
	attrs = append(attrs, c.attrs...)
	attrs = append(attrs, keyRetryClass.String(string(info.RetryClass)), keyKeySent.Bool(info.KeySent))
	if info.Kind != runtime.KindRequest {
		attrs = append(attrs, keyKind.String(info.Kind.String()))
	}
	ctx, c.span = o.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	if info.Budget != nil || info.Breaker != nil {
		o.watch(info, c.server)
	}
	return context.WithValue(ctx, callKey{}, c)
}

// AttemptStart starts the attempt's CLIENT span under the call's, and injects its trace
// context into the attempt's header.
func (o *observer) AttemptStart(ctx context.Context, info runtime.AttemptInfo) context.Context {
	c, _ := ctx.Value(callKey{}).(*callState)
	if c == nil {
		return ctx
	}
	a := &attemptState{call: c, start: time.Now()}
	attrs := make([]attribute.KeyValue, 0, len(c.attrs)+2)
	attrs = append(attrs, c.attrs...)
	if c.info.URL != "" {
		attrs = append(attrs, keyURLFull.String(c.info.URL))
	}
	if info.ResendCount > 0 {
		attrs = append(attrs, keyResend.Int(info.ResendCount))
	}
	ctx, a.span = o.tracer.Start(ctx, c.name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	if info.Header != nil {
		o.propagator.Inject(ctx, propagation.HeaderCarrier(info.Header))
	}
	return context.WithValue(ctx, attemptKey{}, a)
}

// AttemptEnd ends the attempt's span, and records its duration.
func (o *observer) AttemptEnd(ctx context.Context, r runtime.AttemptResult) {
	a, _ := ctx.Value(attemptKey{}).(*attemptState)
	if a == nil {
		return
	}
	c := a.call
	errType := r.ErrorType
	if r.StatusCode >= 400 && r.Err == nil {
		errType = strconv.Itoa(r.StatusCode)
	}
	attrs := make([]attribute.KeyValue, 0, len(c.attrs)+2)
	attrs = append(attrs, c.attrs...)
	if r.StatusCode != 0 {
		attrs = append(attrs, keyStatus.Int(r.StatusCode))
	}
	if errType != "" {
		attrs = append(attrs, keyErrorType.String(errType))
	}
	o.attemptDuration.Record(ctx, time.Since(a.start).Seconds(), metric.WithAttributeSet(attribute.NewSet(attrs...)))
	if a.span.IsRecording() {
		if r.StatusCode != 0 {
			a.span.SetAttributes(keyStatus.Int(r.StatusCode))
		}
		if errType != "" {
			a.span.SetAttributes(keyErrorType.String(errType))
			desc := errType
			if r.Err != nil {
				desc = r.Err.Error()
			}
			a.span.SetStatus(codes.Error, desc)
		}
	}
	a.span.End()
}

// Wait adds a retry.wait event to the call's span, and records the delay.
func (o *observer) Wait(ctx context.Context, w runtime.WaitInfo) {
	c, _ := ctx.Value(callKey{}).(*callState)
	if c == nil {
		return
	}
	cause := keyCause.String(string(w.Cause))
	if c.span.IsRecording() {
		attrs := []attribute.KeyValue{keyDelay.Float64(w.Delay.Seconds()), cause, keyAttempts.Int(w.Attempt)}
		if w.RetryAfter > 0 {
			attrs = append(attrs, keyRetryAfter.Float64(w.RetryAfter.Seconds()))
		}
		c.span.AddEvent("retry.wait", trace.WithAttributes(attrs...))
	}
	attrs := make([]attribute.KeyValue, 0, len(c.attrs)+1)
	attrs = append(attrs, c.attrs...)
	attrs = append(attrs, cause)
	o.retryDelay.Record(ctx, w.Delay.Seconds(), metric.WithAttributeSet(attribute.NewSet(attrs...)))
}

// CallEnd ends the call's span with its attempts and stop reason, and records the call.
func (o *observer) CallEnd(ctx context.Context, r runtime.CallResult) {
	c, _ := ctx.Value(callKey{}).(*callState)
	if c == nil {
		return
	}
	stop := keyStop.String(string(r.Stop))
	if c.span.IsRecording() {
		c.span.SetAttributes(keyAttempts.Int(r.Attempts), stop)
		if r.StatusCode != 0 {
			c.span.SetAttributes(keyStatus.Int(r.StatusCode))
		}
		if r.Err != nil {
			c.span.SetStatus(codes.Error, string(r.Stop))
		}
	}
	c.span.End()
	attrs := make([]attribute.KeyValue, 0, len(c.attrs)+1)
	attrs = append(attrs, c.attrs...)
	attrs = append(attrs, stop)
	set := metric.WithAttributeSet(attribute.NewSet(attrs...))
	o.callDuration.Record(ctx, time.Since(c.start).Seconds(), set)
	if c.info.Kind != runtime.KindWalk {
		o.callAttempts.Record(ctx, int64(r.Attempts), set)
	}
	if r.GaveUp {
		o.refused.Add(ctx, 1, set)
	}
}

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

// watch makes the gauges follow the budget and the breaker of info, once each, for as
// long as they live.
func (o *observer) watch(info runtime.CallInfo, server []attribute.KeyValue) {
	var budget weak.Pointer[runtime.Budget]
	var breaker weak.Pointer[runtime.Breaker]
	var key any
	if info.Breaker != nil {
		breaker = weak.Make(info.Breaker)
		key = breaker
	}
	if info.Budget != nil {
		budget = weak.Make(info.Budget)
		key = budget
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.states[key]; ok || len(o.states) >= maxWatched {
		return
	}
	o.states[key] = &watched{budget: budget, breaker: breaker, server: attribute.NewSet(server...)}
}

// observeGauges reports the state of every budget and breaker still alive, and forgets
// the others.
func (o *observer) observeGauges(ob metric.Observer, breaker metric.Int64Observable, budget metric.Float64Observable) {
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	for key, w := range o.states {
		b, br := w.budget.Value(), w.breaker.Value()
		if b == nil && br == nil {
			delete(o.states, key)
			continue
		}
		if b != nil {
			ob.ObserveFloat64(budget, b.Available(now), metric.WithAttributeSet(w.server))
		}
		if br != nil {
			state := br.State(now)
			for _, s := range []string{runtime.BreakerClosed, runtime.BreakerHalfOpen, runtime.BreakerOpen} {
				v := int64(0)
				if s == state {
					v = 1
				}
				attrs := append(w.server.ToSlice(), keyBreakerSate.String(s))
				ob.ObserveInt64(breaker, v, metric.WithAttributes(attrs...))
			}
		}
	}
}
