package retrygenotel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/retrygen/retrygen/examples/petstore/client"
	"github.com/retrygen/retrygen/retrygenotel"
	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/retrytest"
)

// harness is an observer over the SDK's in-memory span recorder and manual metric
// reader, and a petstore client that uses it, answered in memory by tr.
type harness struct {
	t      *testing.T
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tr     *retrytest.Transport
	c      *client.Client
	waits  []time.Duration // what the engine waited, from OnRetry

	mu      sync.Mutex
	parents []string // the traceparent of each request the server got
}

func newHarness(t *testing.T, handler http.HandlerFunc, opts []client.Option, faults ...retrytest.Fault) *harness {
	t.Helper()
	h := &harness{t: t, spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	obs := retrygenotel.New(retrygenotel.WithTracerProvider(tp), retrygenotel.WithMeterProvider(mp),
		retrygenotel.WithPropagators(propagation.TraceContext{}))
	h.tr = retrytest.NewTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler(w, r)
	}), faults...)
	opts = append([]client.Option{
		client.WithBaseURL("http://petstore.test/v1"),
		client.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			h.mu.Lock()
			h.parents = append(h.parents, r.Header.Get("Traceparent"))
			h.mu.Unlock()
			return h.tr.RoundTrip(r)
		})}),
		client.WithObserver(obs),
		client.WithJitterSource(func() float64 { return 0.5 }),
		client.WithOnRetry(func(ev client.RetryEvent) { h.waits = append(h.waits, ev.Wait) }),
	}, opts...)
	h.c = client.NewClient(opts...)
	return h
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func petJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(client.Pet{ID: 7, Name: "Rex", Species: client.SpeciesDog})
}

// calls returns the ended INTERNAL spans, and children the CLIENT spans under parent.
func (h *harness) calls() []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range h.spans.Ended() {
		if s.SpanKind() == trace.SpanKindInternal {
			out = append(out, s)
		}
	}
	return out
}

func (h *harness) children(parent sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range h.spans.Ended() {
		if s.Parent().SpanID() == parent.SpanContext().SpanID() && s.SpanKind() == trace.SpanKindClient {
			out = append(out, s)
		}
	}
	return out
}

func attr(s sdktrace.ReadOnlySpan, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// metrics collects what the reader has, by instrument name.
func (h *harness) metrics() map[string]metricdata.Aggregation {
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(context.Background(), &rm); err != nil {
		h.t.Fatal(err)
	}
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

// A GET answered 503, 503, 200 is one call span named after the operation, with three
// CLIENT spans under it: resend counts absent, 1 and 2, each with its status, and two
// retry.wait events whose delays are the ones the engine waited.
func TestRetriedGETIsOneCallOfThreeAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, petJSON, nil, retrytest.Status(503), retrytest.Status(503))
		if _, err := h.c.GetPet(t.Context(), 7); err != nil {
			t.Fatal(err)
		}
		calls := h.calls()
		if len(calls) != 1 {
			t.Fatalf("%d call spans, want 1", len(calls))
		}
		call := calls[0]
		if call.Name() != "getPet" {
			t.Errorf("call span %q, want getPet", call.Name())
		}
		if v, _ := attr(call, "retrygen.attempts"); v.AsInt64() != 3 {
			t.Errorf("retrygen.attempts %v, want 3", v.String())
		}
		if v, _ := attr(call, "retrygen.stop_reason"); v.AsString() != "succeeded" {
			t.Errorf("retrygen.stop_reason %q", v.String())
		}
		atts := h.children(call)
		if len(atts) != 3 {
			t.Fatalf("%d attempt spans, want 3", len(atts))
		}
		for i, a := range atts {
			got := attrs(a.Attributes())
			if a.Name() != "GET /pets/{petId}" || got["url.template"] != "/pets/{petId}" || got["http.request.method"] != "GET" ||
				got["server.address"] != "petstore.test" || got["server.port"] != "80" || got["url.full"] != "http://petstore.test/v1/pets/7" {
				t.Errorf("attempt %d: %s %v", i+1, a.Name(), got)
			}
			resend, has := got["http.request.resend_count"]
			if (i == 0) == has || (i > 0 && resend != fmt.Sprint(i)) {
				t.Errorf("attempt %d: resend count %q (set %v), want it from the second attempt on", i+1, resend, has)
			}
			status := []string{"503", "503", "200"}[i]
			if got["http.response.status_code"] != status {
				t.Errorf("attempt %d: status %q, want %s", i+1, got["http.response.status_code"], status)
			}
			if et := got["error.type"]; (i < 2) != (et == "503") {
				t.Errorf("attempt %d: error.type %q", i+1, et)
			}
		}
		var delays []time.Duration
		for _, ev := range call.Events() {
			if ev.Name != "retry.wait" {
				continue
			}
			m := attrs(ev.Attributes)
			var secs float64
			fmt.Sscan(m["retry.delay"], &secs)
			delays = append(delays, time.Duration(secs*float64(time.Second)+0.5))
			if m["retry.cause"] != "backoff" {
				t.Errorf("retry.cause %q", m["retry.cause"])
			}
		}
		if len(delays) != 2 || !slices.Equal(delays, h.waits) {
			t.Errorf("retry.wait delays %v, want the engine's waits %v", delays, h.waits)
		}
		m := h.metrics()
		if hist, ok := m["http.client.request.duration"].(metricdata.Histogram[float64]); !ok || count(hist) != 3 {
			t.Errorf("http.client.request.duration: %+v, want 3 attempts", m["http.client.request.duration"])
		}
		att, ok := m["retrygen.client.call.attempts"].(metricdata.Histogram[int64])
		if !ok || len(att.DataPoints) != 1 || att.DataPoints[0].Sum != 3 || att.DataPoints[0].Count != 1 {
			t.Errorf("retrygen.client.call.attempts: %+v, want one call of 3", m["retrygen.client.call.attempts"])
		} else if got := attrs(att.DataPoints[0].Attributes.ToSlice()); got["retrygen.operation"] != "getPet" || got["url.template"] != "/pets/{petId}" || got["retrygen.stop_reason"] != "succeeded" {
			t.Errorf("call attributes %v", got)
		}
		if d, ok := m["retrygen.client.call.retry_delay"].(metricdata.Histogram[float64]); !ok || count(d) != 2 {
			t.Errorf("retrygen.client.call.retry_delay: %+v, want 2 waits", m["retrygen.client.call.retry_delay"])
		}
	})
}

func count[N int64 | float64](h metricdata.Histogram[N]) uint64 {
	var n uint64
	for _, dp := range h.DataPoints {
		n += dp.Count
	}
	return n
}

// An unkeyed POST answered 503 is one attempt, stopped because it is not retry-safe.
func TestUnkeyedPOSTStopsNotRetrySafe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, petJSON, nil, retrytest.Status(503))
		if _, err := h.c.FeedPet(t.Context(), 7, client.Meal{}); err == nil {
			t.Fatal("the call succeeded")
		}
		call := h.calls()[0]
		if v, _ := attr(call, "retrygen.stop_reason"); v.AsString() != "not_retry_safe" {
			t.Errorf("retrygen.stop_reason %q, want not_retry_safe", v.String())
		}
		if v, _ := attr(call, "retrygen.retry_class"); v.AsString() != "not_retry_safe" {
			t.Errorf("retrygen.retry_class %q", v.String())
		}
		if n := len(h.children(call)); n != 1 {
			t.Errorf("%d attempt spans, want 1", n)
		}
		if call.Status().Code.String() != "Error" {
			t.Errorf("call span status %v, want Error", call.Status())
		}
	})
}

// A retry the budget refuses is counted in retrygen.client.retry.refused by its reason.
func TestBudgetRefusalIsCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, petJSON, []client.Option{client.WithRetryBudget(0, 0)}, retrytest.Status(503))
		if _, err := h.c.GetPet(t.Context(), 7); err == nil {
			t.Fatal("the call succeeded")
		}
		refused, ok := h.metrics()["retrygen.client.retry.refused"].(metricdata.Sum[int64])
		if !ok || len(refused.DataPoints) != 1 || refused.DataPoints[0].Value != 1 {
			t.Fatalf("retrygen.client.retry.refused: %+v", refused)
		}
		if got := attrs(refused.DataPoints[0].Attributes.ToSlice()); got["retrygen.stop_reason"] != "budget" {
			t.Errorf("refused attributes %v, want retrygen.stop_reason budget", got)
		}
		if gauge, ok := h.metrics()["retrygen.client.budget.available"].(metricdata.Gauge[float64]); !ok || len(gauge.DataPoints) != 1 || gauge.DataPoints[0].Value >= 1 {
			t.Errorf("retrygen.client.budget.available: %+v, want under 1", gauge)
		}
	})
}

// Each attempt carries a traceparent of its own span.
func TestTraceparentPerAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, petJSON, nil, retrytest.Status(503), retrytest.Reset())
		if _, err := h.c.GetPet(t.Context(), 7); err != nil {
			t.Fatal(err)
		}
		atts := h.children(h.calls()[0])
		if len(atts) != 3 || len(h.parents) != 3 {
			t.Fatalf("%d attempt spans, %d requests; want 3", len(atts), len(h.parents))
		}
		for i, a := range atts {
			sc := a.SpanContext()
			want := fmt.Sprintf("00-%s-%s-01", sc.TraceID(), sc.SpanID())
			if h.parents[i] != want {
				t.Errorf("request %d: traceparent %q, want its attempt's %q", i+1, h.parents[i], want)
			}
		}
		if v, _ := attr(atts[1], "error.type"); v.AsString() != "connection_reset" {
			t.Errorf("a reset: error.type %q", v.String())
		}
	})
}

// A stream resumed once is one call span with two attempt spans: its two connections.
func TestStreamResumedOnceHasTwoAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := func(id string) retrytest.Event {
			return retrytest.Event{ID: id, Data: `{"type":"fed","pet":{"id":7,"name":"Rex","species":"dog"}}`}
		}
		h := newHarness(t, petJSON, []client.Option{client.WithBearerAuth("t0ken")},
			retrytest.EventsCut(1, ev("1"), ev("2")), retrytest.Events(ev("2")))
		s, err := h.c.WatchPet(t.Context(), 7)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for s.Next() {
			n++
		}
		s.Close()
		if s.Err() != nil || n != 2 {
			t.Fatalf("%d events, err %v", n, s.Err())
		}
		calls := h.calls()
		if len(calls) != 1 {
			t.Fatalf("%d call spans, want 1", len(calls))
		}
		if v, _ := attr(calls[0], "retrygen.call.kind"); v.AsString() != "stream" {
			t.Errorf("retrygen.call.kind %q", v.String())
		}
		atts := h.children(calls[0])
		if len(atts) != 2 {
			t.Fatalf("%d attempt spans, want 2", len(atts))
		}
		if v, ok := attr(atts[1], "http.request.resend_count"); !ok || v.AsInt64() != 1 {
			t.Errorf("the reconnection's resend count %v", v.String())
		}
	})
}

// A walk is a span whose pages are call spans under it.
func TestWalkIsOneSpanOverItsPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		page := 0
		h := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
			page++
			if page < 3 {
				w.Header().Set("Link", fmt.Sprintf(`</v1/pets?page=%d>; rel="next"`, page+1))
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode([]client.Pet{{ID: int64(page), Name: "Rex", Species: client.SpeciesDog}})
		}, nil)
		for _, err := range h.c.ListPetsAll(t.Context(), nil) {
			if err != nil {
				t.Fatal(err)
			}
		}
		calls := h.calls()
		if len(calls) != 4 {
			t.Fatalf("%d INTERNAL spans, want the walk and 3 pages", len(calls))
		}
		var walk sdktrace.ReadOnlySpan
		for _, c := range calls {
			if v, _ := attr(c, "retrygen.call.kind"); v.AsString() == "walk" {
				walk = c
			}
		}
		if walk == nil {
			t.Fatal("no walk span")
		}
		under := 0
		for _, c := range calls {
			if c.Parent().SpanID() == walk.SpanContext().SpanID() {
				under++
			}
		}
		if under != 3 {
			t.Errorf("%d pages under the walk, want 3", under)
		}
	})
}

// The breaker's state is a gauge: 1 for its state, 0 for the others.
func TestBreakerStateGauge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, petJSON, []client.Option{client.WithCircuitBreaker(1, time.Minute)},
			retrytest.Status(500), retrytest.Status(500), retrytest.Status(500))
		h.c.GetPet(t.Context(), 7)
		gauge, ok := h.metrics()["retrygen.client.breaker.state"].(metricdata.Gauge[int64])
		if !ok || len(gauge.DataPoints) != 3 {
			t.Fatalf("retrygen.client.breaker.state: %+v", gauge)
		}
		for _, dp := range gauge.DataPoints {
			state := attrs(dp.Attributes.ToSlice())["retrygen.breaker.state"]
			if want := int64(0); state == runtime.BreakerOpen && dp.Value != 1 || state != runtime.BreakerOpen && dp.Value != want {
				t.Errorf("%s: %d", state, dp.Value)
			}
		}
	})
}
