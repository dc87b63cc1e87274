package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

func ExamplePolicy_Backoff() {
	p := runtime.DefaultPolicy() // 500ms doubling up to 10s, full jitter
	for retry := 1; retry <= 6; retry++ {
		// rnd 0.5: full jitter waits half the ceiling.
		fmt.Println(retry, p.Ceiling(retry), p.Backoff(retry, 0, 0.5))
	}
	// Output:
	// 1 500ms 250ms
	// 2 1s 500ms
	// 3 2s 1s
	// 4 4s 2s
	// 5 8s 4s
	// 6 10s 5s
}

func ExampleParseRetryAfter() {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []string{"120", "Mon, 01 Jun 2026 12:00:30 GMT", "soon"} {
		d, ok := retryAfter(v, now)
		fmt.Println(d, ok)
	}
	// Output:
	// 2m0s true
	// 30s true
	// 0s false
}

func retryAfter(v string, now time.Time) (time.Duration, bool) {
	return runtime.ParseRetryAfter(http.Header{"Retry-After": {v}}, now)
}

func ExampleEngine_Do() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"message":"no such pet"}`, http.StatusNotFound)
	}))
	defer srv.Close()

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	e := &runtime.Engine{HTTPClient: &http.Client{Transport: tr}, Budget: runtime.DefaultBudget()}
	p := runtime.DefaultPolicy()
	p.Idempotent = true // a GET

	ctx := context.Background()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/pets/7", nil)
	_, err := e.Do(ctx, req, &p)

	var apiErr *runtime.Error
	if errors.As(err, &apiErr) {
		// 404 is not retried: one attempt, and the body is kept for the error model.
		fmt.Println(apiErr.StatusCode, apiErr.Attempts, string(apiErr.Body))
	}
	// Output:
	// 404 1 {"message":"no such pet"}
}

// A test gets the same waits on every run by seeding the jitter (Engine.Rand), and none at
// all with zero delays.
func ExampleEngine_Rand() {
	var waits []time.Duration
	e := &runtime.Engine{
		HTTPClient: &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 503, Body: http.NoBody, Header: http.Header{}}, nil
		})},
		Rand:    rand.New(rand.NewPCG(1, 2)).Float64,
		OnRetry: func(ev runtime.RetryEvent) { waits = append(waits, ev.Wait) },
		// Zero delays: the waits are drawn but last nothing.
		Override: func(p *runtime.Policy) { p.InitialDelay, p.MaxDelay = 0, 0 },
	}
	p := runtime.DefaultPolicy()
	p.Idempotent = true
	req, _ := http.NewRequest("GET", "http://api.test/pets", nil)
	_, err := e.Do(context.Background(), req, &p)
	fmt.Println(waits)
	fmt.Println(err)
	// Output:
	// [0s 0s 0s]
	// GET http://api.test/pets: 503 Service Unavailable after 4 attempts: retry attempts exhausted
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
