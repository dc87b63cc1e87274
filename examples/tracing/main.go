// Command tracing shows one trace across two hops of a call chain, and why only one hop
// retried. A client calls a gateway service for a pet; the gateway, behind
// runtime.OneRetryLayer and otelhttp's handler, asks the store, which is overloaded. The
// gateway's client retries the store three times and gives up; the gateway answers 503,
// which OneRetryLayer marks X-Should-Retry: false; the first client then stops at once.
// Every call reports to retrygenotel's observer, and the trace it made is printed as a
// tree:
//
//	cd examples/tracing && go run .
//
// Both services answer in memory (retrytest.Transport), so it needs no network.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/retrygen/retrygen/examples/petstore/client"
	"github.com/retrygen/retrygen/retrygenotel"
	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/retrytest"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tracing:", err)
		os.Exit(1)
	}
}

// run makes the call through the chain and writes its trace and metrics to w.
func run(ctx context.Context, w io.Writer) error {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	propagators := propagation.TraceContext{}
	observer := retrygenotel.New(retrygenotel.WithTracerProvider(tp), retrygenotel.WithMeterProvider(mp),
		retrygenotel.WithPropagators(propagators))
	jitter := rand.New(rand.NewPCG(1, 2)).Float64 // the same waits every run

	// The store is overloaded: every request gets a 503.
	store := retrytest.NewTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"title":"overloaded"}`)
	}))
	toStore := client.NewClient(client.WithBaseURL("http://store.test/v1"), client.WithHTTPClient(store.Client()),
		client.WithObserver(observer), client.WithJitterSource(jitter))

	// The gateway asks the store for each pet; when the store's client gives up, the
	// gateway answers 503, and OneRetryLayer tells its callers not to retry.
	gateway := runtime.OneRetryLayer(otelhttp.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pet, err := toStore.GetPet(r.Context(), 7)
		if err != nil {
			http.Error(w, "the store is unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(pet)
	}), "gateway", otelhttp.WithTracerProvider(tp), otelhttp.WithPropagators(propagators),
		otelhttp.WithSpanNameFormatter(func(string, *http.Request) string { return "gateway GET /pets/{petId}" })))
	front := retrytest.NewTransport(gateway)
	c := client.NewClient(client.WithBaseURL("http://gateway.test/v1"), client.WithHTTPClient(front.Client()),
		client.WithObserver(observer), client.WithJitterSource(jitter))

	_, err := c.GetPet(ctx, 7)
	fmt.Fprintf(w, "result: %v\n\n", err)
	fmt.Fprintf(w, "requests: gateway %d, store %d\n\n", len(front.Requests()), len(store.Requests()))
	writeTree(w, spans.Ended())
	return writeMetrics(ctx, w, reader)
}

// writeTree writes spans as the tree their parents make, each span with the attributes
// that say what happened.
func writeTree(w io.Writer, spans []sdktrace.ReadOnlySpan) {
	slices.SortFunc(spans, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	children := map[string][]sdktrace.ReadOnlySpan{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID().String()] = true
	}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		parent := s.Parent().SpanID().String()
		if !s.Parent().IsValid() || !ids[parent] {
			roots = append(roots, s)
			continue
		}
		children[parent] = append(children[parent], s)
	}
	var walk func(s sdktrace.ReadOnlySpan, depth int)
	walk = func(s sdktrace.ReadOnlySpan, depth int) {
		indent := strings.Repeat("  ", depth)
		fmt.Fprintf(w, "%s%s [%s]%s\n", indent, s.Name(), strings.ToLower(s.SpanKind().String()), shown(s.Attributes()))
		for _, ev := range s.Events() {
			fmt.Fprintf(w, "%s  · %s%s\n", indent, ev.Name, shown(ev.Attributes))
		}
		for _, c := range children[s.SpanContext().SpanID().String()] {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	fmt.Fprintln(w)
}

// shownKeys are the attributes writeTree shows, in order.
var shownKeys = []string{"http.request.resend_count", "http.response.status_code", "retrygen.attempts",
	"retrygen.stop_reason", "retry.delay", "retry.cause"}

func shown(attrs []attribute.KeyValue) string {
	var b strings.Builder
	for _, key := range shownKeys {
		for _, kv := range attrs {
			if string(kv.Key) == key {
				fmt.Fprintf(&b, " %s=%s", key, kv.Value.String())
			}
		}
	}
	return b.String()
}

// writeMetrics writes the counters that say who gave up and who was told not to retry.
func writeMetrics(ctx context.Context, w io.Writer, reader *sdkmetric.ManualReader) error {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		return err
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok {
				continue
			}
			for _, dp := range sum.DataPoints {
				var attrs []string
				for _, kv := range dp.Attributes.ToSlice() {
					if kv.Key == "retrygen.stop_reason" || kv.Key == "url.template" || kv.Key == "server.address" || kv.Key == "http.response.status_code" {
						attrs = append(attrs, string(kv.Key)+"="+kv.Value.String())
					}
				}
				fmt.Fprintf(w, "%s{%s} %d\n", m.Name, strings.Join(attrs, ","), dp.Value)
			}
		}
	}
	return nil
}
