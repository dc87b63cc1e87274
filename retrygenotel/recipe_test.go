package retrygenotel_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	petstore "github.com/retrygen/retrygen/examples/petstore/client"
	"github.com/retrygen/retrygen/retrygenotel"
	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/retrytest"
)

// otelhttpRecipe is docs/client.md's recipe for a program that traces with otelhttp's
// transport rather than the observer: each attempt's span is named by its operation's
// template, and carries its resend count.
func otelhttpRecipe(base http.RoundTripper, tp trace.TracerProvider) *petstore.Client {
	resendCount := func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if a, ok := runtime.AttemptFrom(r.Context()); ok && a.ResendCount > 0 {
				trace.SpanFromContext(r.Context()).SetAttributes(attribute.Int("http.request.resend_count", a.ResendCount))
			}
			return next.RoundTrip(r)
		})
	}
	transport := otelhttp.NewTransport(resendCount(base), otelhttp.WithSpanNameFormatter(runtime.SpanName), otelhttp.WithTracerProvider(tp))
	return petstore.NewClient(petstore.WithBaseURL("http://petstore.test/v1"), petstore.WithHTTPClient(&http.Client{Transport: transport}))
}

// The recipe names otelhttp's spans "GET /pets/{petId}" and gives the retry its resend
// count.
func TestOtelhttpRecipe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		spans := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
		c := otelhttpRecipe(retrytest.NewTransport(http.HandlerFunc(petJSON), retrytest.Status(503)), tp)
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetPet(t.Context(), 7); err != nil {
			t.Fatal(err)
		}
		ended := spans.Ended()
		if len(ended) != 2 {
			t.Fatalf("%d spans, want 2", len(ended))
		}
		for i, s := range ended {
			if s.Name() != "GET /pets/{petId}" {
				t.Errorf("span %d named %q", i+1, s.Name())
			}
			v, ok := attr(s, "http.request.resend_count")
			if (i == 1) != ok || (ok && v.AsInt64() != 1) {
				t.Errorf("span %d: resend count %v (set %v)", i+1, v.String(), ok)
			}
		}
	})
}

// observerRecipe is docs/client.md's first example: a client that reports to the global
// OpenTelemetry providers.
func observerRecipe(baseURL string) *petstore.Client {
	c := petstore.NewClient(petstore.WithBaseURL(baseURL), petstore.WithObserver(retrygenotel.New()))
	return c
}

// recorderRecipe is docs/client.md's retrytest.Recorder example.
func recorderRecipe(ctx context.Context, url string, tr *retrytest.Transport) (retrytest.RecordedCall, error) {
	rec := new(retrytest.Recorder)
	c := petstore.NewClient(petstore.WithBaseURL(url), petstore.WithObserver(rec), petstore.WithHTTPClient(tr.Client()))
	_, err := c.GetPet(ctx, 1)
	call := rec.Calls()[0] // call.ResendCounts(), call.Statuses(), call.Waits, call.Result.Stop
	return call, err
}

// The other recipes of docs/client.md do what the page says.
func TestDocRecipes(t *testing.T) {
	if err := observerRecipe("http://petstore.test/v1").Err(); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(http.HandlerFunc(petJSON), retrytest.Status(503), retrytest.Status(503), retrytest.Status(503))
		call, err := recorderRecipe(t.Context(), "http://petstore.test/v1", tr)
		if err == nil || !slices.Equal(call.ResendCounts(), []int{0, 1, 2}) || call.Result.Stop != runtime.StopExhausted {
			t.Errorf("%v: %+v", err, call)
		}
	})
}
