package runtime

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkDo compares the success path of Engine.Do with a bare http.Client.Do against the
// same loopback server and the same client; the difference is the engine's overhead.
func BenchmarkDo(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":1,"name":"Rex"}`)
	}))
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx := context.Background()

	read := func(b *testing.B, resp *http.Response) {
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
	b.Run("net-http", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/pets/1", nil)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			read(b, resp)
		}
	})
	b.Run("engine", func(b *testing.B) {
		e := &Engine{HTTPClient: client, Budget: DefaultBudget(), Breaker: NewBreaker(5, 30e9)}
		p := DefaultPolicy()
		p.Idempotent = true
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/pets/1", nil)
			resp, err := e.Do(ctx, req, &p)
			if err != nil {
				b.Fatal(err)
			}
			read(b, resp)
		}
	})
}

// okTransport answers every request with an empty 200 and no network, so that
// BenchmarkDoOverhead measures the engine's own cost without the noise of a socket.
type okTransport struct{}

func (okTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
}

func BenchmarkDoOverhead(b *testing.B) {
	client := &http.Client{Transport: okTransport{}}
	ctx := context.Background()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/pets/1", nil)
	b.Run("net-http", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
		}
	})
	b.Run("engine", func(b *testing.B) {
		e := &Engine{HTTPClient: client, Budget: DefaultBudget(), Breaker: NewBreaker(5, 30e9)}
		p := DefaultPolicy()
		p.Idempotent = true
		b.ReportAllocs()
		for b.Loop() {
			resp, err := e.Do(ctx, req, &p)
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
		}
	})
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
