package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stub is an in-memory http.RoundTripper: each attempt calls fn with the attempt number
// (from 1) and the request, after reading and closing the request body into bodies.
type stub struct {
	fn func(n int, r *http.Request) (*http.Response, error)

	mu       sync.Mutex
	n        int
	times    []time.Time
	bodies   [][]byte
	requests []*http.Request
}

func (s *stub) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body.Close()
	}
	s.mu.Lock()
	s.n++
	n := s.n
	s.times = append(s.times, time.Now())
	s.bodies = append(s.bodies, body)
	s.requests = append(s.requests, r)
	s.mu.Unlock()
	return s.fn(n, r)
}

func (s *stub) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// gaps returns the time between consecutive attempts.
func (s *stub) gaps() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var g []time.Duration
	for i := 1; i < len(s.times); i++ {
		g = append(g, s.times[i].Sub(s.times[i-1]))
	}
	return g
}

// engineFor returns an engine sending through s, with a fixed random value.
func engineFor(s *stub, rnd float64) *Engine {
	return &Engine{HTTPClient: &http.Client{Transport: s}, Rand: func() float64 { return rnd }}
}

// status answers every attempt with code.
func status(code int) func(int, *http.Request) (*http.Response, error) {
	return func(int, *http.Request) (*http.Response, error) { return response(code, nil, ""), nil }
}

// sequence answers attempt n with codes[n-1], and the last code after that.
func sequence(codes ...int) func(int, *http.Request) (*http.Response, error) {
	return func(n int, _ *http.Request) (*http.Response, error) {
		return response(codes[min(n, len(codes))-1], nil, ""), nil
	}
}

func response(code int, h http.Header, body string) *http.Response {
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{
		StatusCode: code,
		Status:     http.StatusText(code),
		Header:     h,
		Body:       io.NopCloser(strings.NewReader(body)),
	}
}

// trackedBody counts the bytes read from it and how often it is closed.
type trackedBody struct {
	r      io.Reader
	read   atomic.Int64
	closes atomic.Int32
}

func newTrackedBody(size int) *trackedBody {
	return &trackedBody{r: bytes.NewReader(bytes.Repeat([]byte("x"), size))}
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read.Add(int64(n))
	return n, err
}

func (b *trackedBody) Close() error {
	b.closes.Add(1)
	return nil
}

// idempotent is a retry-safe policy with small, round numbers.
func idempotent() *Policy {
	p := DefaultPolicy()
	p.Idempotent = true
	p.MaxAttempts = 3
	p.InitialDelay = 100 * time.Millisecond
	p.MaxDelay = 2 * time.Second
	return &p
}

func newRequest(t *testing.T, ctx context.Context, method, url string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// mustError asserts that err is an *Error and returns it.
func mustError(t *testing.T, err error) *Error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("error = %T %v, want *Error", err, err)
	}
	return e
}

func errorIs(err, target error) bool { return errors.Is(err, target) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }
