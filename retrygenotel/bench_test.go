package retrygenotel_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/retrygen/retrygen/examples/petstore/client"
	"github.com/retrygen/retrygen/retrygenotel"
	"github.com/retrygen/retrygen/runtime"
)

const benchPet = `{"id":7,"name":"Rex","species":"dog"}`

// failing answers in memory: 503 to the first fail requests of every call of a cycle of
// fail+1, then the pet, so that each call makes fail+1 attempts.
type failing struct {
	fail int64
	n    atomic.Int64
}

func (t *failing) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	if t.n.Add(1)%(t.fail+1) != 0 {
		return &http.Response{StatusCode: 503, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(benchPet)), ContentLength: int64(len(benchPet)), Request: r}, nil
}

// setups are the ways of tracing a petstore client's calls that the benchmark pairs: none,
// otelhttp's transport under the engine, and this package's observer; both with the same
// SDK providers (every span sampled, metrics aggregated by a manual reader).
func setups(fail int64) map[string]func() *client.Client {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	base := func(rt http.RoundTripper, opts ...client.Option) *client.Client {
		opts = append([]client.Option{client.WithBaseURL("http://petstore.test/v1"), client.WithHTTPClient(&http.Client{Transport: rt}),
			client.WithoutRetryBudget(), client.WithPolicyOverride(func(p *client.Policy) { p.InitialDelay, p.MaxDelay = 0, 0 })}, opts...)
		return client.NewClient(opts...)
	}
	return map[string]func() *client.Client{
		"bare": func() *client.Client { return base(&failing{fail: fail}) },
		"otelhttp": func() *client.Client {
			return base(otelhttp.NewTransport(&failing{fail: fail}, otelhttp.WithTracerProvider(tp), otelhttp.WithMeterProvider(mp),
				otelhttp.WithPropagators(propagation.TraceContext{})))
		},
		"retrygenotel": func() *client.Client {
			return base(&failing{fail: fail}, client.WithObserver(retrygenotel.New(retrygenotel.WithTracerProvider(tp),
				retrygenotel.WithMeterProvider(mp), retrygenotel.WithPropagators(propagation.TraceContext{}))))
		},
	}
}

// BenchmarkTracedCall pairs a GetPet traced by otelhttp's transport with one traced by
// this package's observer, for a call of one attempt and one of three (503, 503, 200),
// and shows the untraced call beside them. It reports figures and asserts nothing.
func BenchmarkTracedCall(b *testing.B) {
	for _, attempts := range []int64{1, 3} {
		for _, name := range []string{"bare", "otelhttp", "retrygenotel"} {
			b.Run(name+"/attempts="+string(rune('0'+attempts)), func(b *testing.B) {
				c := setups(attempts - 1)[name]()
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.GetPet(ctx, 7); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// A call traced by the observer allocates no more than the same call traced by
// otelhttp's transport, which sees only its attempts: for one attempt and for three.
func TestObserverAllocatesNoMoreThanOtelhttp(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	for _, attempts := range []int64{1, 3} {
		s := setups(attempts - 1)
		allocs := func(name string) float64 {
			c := s[name]()
			return testing.AllocsPerRun(200, func() {
				if _, err := c.GetPet(context.Background(), 7); err != nil {
					t.Fatal(err)
				}
			})
		}
		ours, theirs, bare := allocs("retrygenotel"), allocs("otelhttp"), allocs("bare")
		t.Logf("%d attempts: bare %v, otelhttp %v (+%v), retrygenotel %v (+%v) allocations", attempts, bare, theirs, theirs-bare, ours, ours-bare)
		if ours > theirs {
			t.Errorf("%d attempts: the observer takes %v allocations, otelhttp %v", attempts, ours, theirs)
		}
	}
}

var _ runtime.Observer = retrygenotel.New()
