package runtime

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/retrygen/retrygen/runtime/internal/giveup"
)

// The BenchmarkCall benchmarks pair each way of making a call through the engine with a
// bare http.Client.Do doing the same work in the same run; the difference in allocs/op
// and B/op is the engine's own cost. They report figures and assert nothing of time.

const benchPetJSON = `{"id":1,"name":"Rex"}`

// memTransport answers every request at once, with no network, with a 200 whose body is
// benchPetJSON, so that the engine's cost is not lost in a socket's noise.
type memTransport struct{}

func (memTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(benchPetJSON)),
		ContentLength: int64(len(benchPetJSON))}, nil
}

// benchGetPolicy is a generated client's policy of a GET: the defaults, retry-safe.
func benchGetPolicy() Policy {
	p := DefaultPolicy()
	p.Idempotent = true
	return p
}

// BenchmarkCallMemory: Engine.Do with the default budget, as a generated client makes
// it, against http.Client.Do, in memory; both read the body and close it.
func BenchmarkCallMemory(b *testing.B) {
	client := &http.Client{Transport: memTransport{}}
	ctx := context.Background()
	b.Run("net-http", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/pets/1", nil)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			benchRead(b, resp)
		}
	})
	b.Run("engine", func(b *testing.B) {
		e := &Engine{HTTPClient: client, Budget: DefaultBudget()}
		p := benchGetPolicy()
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/pets/1", nil)
			resp, err := e.Do(ctx, req, &p)
			if err != nil {
				b.Fatal(err)
			}
			benchRead(b, resp)
		}
	})
}

// BenchmarkCallMemoryFull is BenchmarkCallMemory with every per-call feature on: budget,
// breaker, the body read within the attempt (Policy.ReadBody) and an attempt timeout,
// against http.Client.Do under a context with the same timeout, reading the body whole.
func BenchmarkCallMemoryFull(b *testing.B) {
	client := &http.Client{Transport: memTransport{}}
	ctx := context.Background()
	const timeout = 10 * time.Second
	b.Run("net-http", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			actx, cancel := context.WithTimeout(ctx, timeout)
			req, _ := http.NewRequestWithContext(actx, "GET", "http://api.test/pets/1", nil)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadAll(resp.Body); err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			cancel()
		}
	})
	b.Run("engine", func(b *testing.B) {
		e := &Engine{HTTPClient: client, Budget: DefaultBudget(), Breaker: NewBreaker(5, 30*time.Second)}
		p := benchGetPolicy()
		p.ReadBody, p.AttemptTimeout = true, timeout
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/pets/1", nil)
			resp, err := e.Do(ctx, req, &p)
			if err != nil {
				b.Fatal(err)
			}
			benchRead(b, resp)
		}
	})
}

// BenchmarkCallLoopback compares Engine.Do with a bare http.Client.Do against the same
// loopback server and the same client.
func BenchmarkCallLoopback(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, benchPetJSON)
	}))
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx := context.Background()
	b.Run("net-http", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/pets/1", nil)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			benchRead(b, resp)
		}
	})
	b.Run("engine", func(b *testing.B) {
		e := &Engine{HTTPClient: client, Budget: DefaultBudget()}
		p := benchGetPolicy()
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/pets/1", nil)
			resp, err := e.Do(ctx, req, &p)
			if err != nil {
				b.Fatal(err)
			}
			benchRead(b, resp)
		}
	})
}

func benchRead(b *testing.B, resp *http.Response) {
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
}

// BenchmarkErrorString measures Error's text, which reads the body each time it is
// called: a status alone, a typical JSON error with a request id, and a body at
// ErrorBodyLimit whose message comes last, after every other member.
func BenchmarkErrorString(b *testing.B) {
	filler := `"items":[` + strings.Repeat(`{"id":12345,"name":"a pet with a name"},`, ErrorBodyLimit/41-1) + `{}],`
	for _, bc := range []struct {
		name string
		e    *Error
	}{
		{"status", &Error{Method: "GET", URL: "https://api.test/v1/x", Attempts: 3, StatusCode: 503, Cause: ErrExhausted}},
		{"message", &Error{Method: "GET", URL: "https://api.test/v1/x", Attempts: 1, StatusCode: 400,
			Header: http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_123"}},
			Body:   []byte(`{"error":{"type":"invalid_request_error","code":"resource_missing","message":"No such customer: cus_1","param":"id"}}`),
			Cause:  ErrStatusNotRetried}},
		{"64KiB", &Error{Method: "GET", URL: "https://api.test/v1/x", Attempts: 1, StatusCode: 400,
			Body: []byte(`{` + filler + `"message":"last"}`), Cause: ErrStatusNotRetried}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = bc.e.Error()
			}
		})
	}
}

// BenchmarkCallMemoryFailed: Engine.Do of a call that fails at once (a 404, which no policy
// retries), with no OneRetryLayer tracker in its context and with one.
func BenchmarkCallMemoryFailed(b *testing.B) {
	client := &http.Client{Transport: notFoundTransport{}}
	for _, tracked := range []bool{false, true} {
		ctx := context.Background()
		name := "no-tracker"
		if tracked {
			ctx, _ = giveup.With(ctx)
			name = "tracker"
		}
		b.Run(name, func(b *testing.B) {
			e := &Engine{HTTPClient: client, Budget: DefaultBudget()}
			p := benchGetPolicy()
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/pets/1", nil)
				if _, err := e.Do(ctx, req, &p); err == nil {
					b.Fatal("a 404 succeeded")
				}
			}
		})
	}
}

// notFoundTransport answers every request with an empty 404.
type notFoundTransport struct{}

func (notFoundTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 404, Body: http.NoBody}, nil
}
