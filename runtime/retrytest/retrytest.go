// Package retrytest helps the users of a generated client test their own code quickly
// and deterministically: a Transport that answers requests in memory, with no socket, so
// that it works inside a testing/synctest bubble where retries' waits pass in virtual
// time, and that injects the faults a struggling server shows (5xx, 429 with
// Retry-After, the server's x-should-retry, connection resets and refusals, slow bodies,
// answers lost after the work was done), and a server that keeps idempotency keys
// (Idempotent), to prove that a retried payment is charged once.
//
//	func TestListPetsRetries(t *testing.T) {
//		synctest.Test(t, func(t *testing.T) {
//			tr := retrytest.NewTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
//				w.Header().Set("Content-Type", "application/json")
//				io.WriteString(w, `[{"id": 1, "name": "Rex"}]`)
//			}), retrytest.Status(503), retrytest.RetryAfter(429, 2*time.Second))
//			c := petstore.NewClient(petstore.WithBaseURL("http://petstore.test"), petstore.WithHTTPClient(tr.Client()))
//			pets, err := c.ListPets(context.Background(), nil)
//			// err == nil, len(pets) == 1, tr.Requests() == 3, and the waits took no real time.
//		})
//	}
//
// The package uses the standard library only.
package retrytest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// A Fault is what the Transport does instead of calling the handler, for one request.
type Fault struct {
	name  string
	apply func(req *http.Request) (*http.Response, error)
	// through: the handler still answers, and through changes its response, or drops it
	// and returns the error the client sees instead.
	through func(resp *http.Response) error
}

func (f Fault) String() string { return f.name }

// Status answers with the status code and an empty body, e.g. Status(503).
func Status(code int) Fault {
	return Fault{name: "status " + strconv.Itoa(code), apply: func(req *http.Request) (*http.Response, error) {
		return response(req, code, nil, ""), nil
	}}
}

// RetryAfter answers with the status code and a Retry-After of d (whole seconds), e.g.
// RetryAfter(429, 2*time.Second).
func RetryAfter(code int, d time.Duration) Fault {
	secs := strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
	return Fault{name: "status " + strconv.Itoa(code) + ", Retry-After " + secs, apply: func(req *http.Request) (*http.Response, error) {
		return response(req, code, http.Header{"Retry-After": {secs}}, ""), nil
	}}
}

// ShouldRetry answers with the status code and the server's word on repeating the
// request, x-should-retry: true or false, as OpenAI's API sends it: the engine retries a
// true even where the policy would not (a POST without an idempotency key), and stops at
// a false. E.g. ShouldRetry(503, true).
func ShouldRetry(code int, retry bool) Fault {
	v := strconv.FormatBool(retry)
	return Fault{name: "status " + strconv.Itoa(code) + ", x-should-retry " + v, apply: func(req *http.Request) (*http.Response, error) {
		return response(req, code, http.Header{"X-Should-Retry": {v}}, ""), nil
	}}
}

// Reset fails the request as a connection reset by the server after it was sent: the
// request may have reached the server, so only a retry-safe operation retries it.
func Reset() Fault {
	return Fault{name: "connection reset", apply: func(req *http.Request) (*http.Response, error) {
		drainRequest(req)
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	}}
}

// Refused fails the request as a refused connection: nothing was sent, so every
// operation may try again.
func Refused() Fault {
	return Fault{name: "connection refused", apply: func(req *http.Request) (*http.Response, error) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}}
}

// SlowBody lets the handler answer, but delivers the response body only after d: with
// an attempt timeout shorter than d, the attempt times out. Inside a synctest bubble the
// wait is virtual.
func SlowBody(d time.Duration) Fault {
	return Fault{name: "body after " + d.String(), through: func(resp *http.Response) error {
		resp.Body = &slowBody{body: resp.Body, ctx: resp.Request.Context(), delay: d}
		return nil
	}}
}

// CutBody lets the handler answer, but ends the body after n bytes with an unexpected
// EOF, as a connection that dropped half-way does.
func CutBody(n int64) Fault {
	return Fault{name: "body cut after " + strconv.FormatInt(n, 10) + " bytes", through: func(resp *http.Response) error {
		resp.Body = &cutBody{r: io.LimitReader(resp.Body, n), body: resp.Body}
		return nil
	}}
}

// LostResponse lets the handler answer, so the work it does is done, and then fails the
// request as a connection reset before the answer arrives: the case where a client that
// repeats the request does the work twice unless the server keeps its idempotency key
// (see Idempotent). Only a retry-safe operation retries it; any other call ends with
// an error that says its outcome is unknown.
func LostResponse() Fault {
	return Fault{name: "response lost", through: func(resp *http.Response) error {
		resp.Body.Close()
		return &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	}}
}

// ErrNoHandler is the error of a request that a Transport made with a nil handler meets
// once no fault is left to answer it. It reports itself not retryable, so the retry
// engine ends the call at once.
var ErrNoHandler error = noHandler{}

type noHandler struct{}

func (noHandler) Error() string {
	return "retrytest: no fault left to answer the request, and NewTransport was given a nil handler"
}

func (noHandler) RetryableError() bool { return false }

// Request is what the Transport received in one attempt.
type Request struct {
	Method string
	URL    string // as sent, query included
	Header http.Header
	Body   []byte
	Fault  string // the fault answered, "no handler" for ErrNoHandler, or "" when the handler did
}

const noHandlerFault = "no handler"

// Transport is an http.RoundTripper that serves requests with a handler, in memory, after
// answering the first ones with faults in order. It is safe for concurrent use.
type Transport struct {
	handler http.Handler

	mu       sync.Mutex
	faults   []Fault
	requests []Request
}

// NewTransport returns a Transport that answers the first requests with faults, one each
// in order, and every later request with handler. With a nil handler, a request that no
// fault answers (SlowBody and CutBody need the handler's response) fails with
// ErrNoHandler.
func NewTransport(handler http.Handler, faults ...Fault) *Transport {
	return &Transport{handler: handler, faults: faults}
}

// Client returns an *http.Client that sends through t, for a generated client's
// WithHTTPClient option.
func (t *Transport) Client() *http.Client {
	return &http.Client{Transport: t}
}

// Then queues more faults, answered before the handler again.
func (t *Transport) Then(faults ...Fault) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.faults = append(t.faults, faults...)
}

// Requests returns what the Transport received so far, one entry per attempt.
func (t *Transport) Requests() []Request {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Request(nil), t.requests...)
}

// RoundTrip answers one request: with the next fault, or with the handler. It closes the
// request body, as http.RoundTripper requires, whatever it answers: a request whose
// context is done too, which it fails with the context's error and does not record.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		drainRequest(req)
		return nil, err
	}
	body, err := readRequestBody(req)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	var fault *Fault
	if len(t.faults) > 0 {
		fault = &t.faults[0]
		t.faults = t.faults[1:]
	}
	rec := Request{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone(), Body: body}
	missing := t.handler == nil && (fault == nil || fault.apply == nil)
	switch {
	case missing:
		rec.Fault = noHandlerFault
	case fault != nil:
		rec.Fault = fault.name
	}
	t.requests = append(t.requests, rec)
	t.mu.Unlock()

	if missing {
		return nil, ErrNoHandler
	}
	if fault != nil && fault.apply != nil {
		return fault.apply(req)
	}
	resp := t.serve(req, body)
	if fault != nil && fault.through != nil {
		if err := fault.through(resp); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// serve runs the handler on a copy of req, as a server would see it.
func (t *Transport) serve(req *http.Request, body []byte) *http.Response {
	in := req.Clone(req.Context())
	in.Body = io.NopCloser(bytes.NewReader(body))
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "192.0.2.1:1234"
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	rec := httptest.NewRecorder()
	t.handler.ServeHTTP(rec, in)
	resp := rec.Result()
	resp.Request = req
	return resp
}

func response(req *http.Request, code int, header http.Header, body string) *http.Response {
	drainRequest(req)
	if header == nil {
		header = http.Header{}
	}
	return &http.Response{
		Status:        strconv.Itoa(code) + " " + http.StatusText(code),
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          io.NopCloser(bytes.NewBufferString(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// readRequestBody reads the body of req, as a server receiving it would, and closes it.
func readRequestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, fmt.Errorf("retrytest: read request body: %w", err)
	}
	return body, nil
}

func drainRequest(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// slowBody delivers its body after a delay, or fails when the request's context ends
// first.
type slowBody struct {
	body  io.ReadCloser
	ctx   context.Context
	delay time.Duration
	once  sync.Once
	err   error
}

func (b *slowBody) Read(p []byte) (int, error) {
	b.once.Do(func() {
		timer := time.NewTimer(b.delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-b.ctx.Done():
			b.err = b.ctx.Err()
		}
	})
	if b.err != nil {
		return 0, b.err
	}
	return b.body.Read(p)
}

func (b *slowBody) Close() error { return b.body.Close() }

// cutBody ends with io.ErrUnexpectedEOF after what its reader gives.
type cutBody struct {
	r    io.Reader
	body io.Closer
}

func (b *cutBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if errors.Is(err, io.EOF) {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

func (b *cutBody) Close() error { return b.body.Close() }
