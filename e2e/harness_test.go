package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/e2e/faultapi"
	"github.com/retrygen/retrygen/examples/petstore/client"
	"github.com/retrygen/retrygen/internal/memnet"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Where the servers of a test listen on the in-memory network.
const (
	petstoreAddr = "127.0.0.1:8080"
	petstoreURL  = "http://" + petstoreAddr + "/v1"
	otherAddr    = "localhost:8080" // another host, for redirects
	faultAddr    = "127.0.0.1:8081"
	faultURL     = "http://" + faultAddr
)

// env is one test's world inside a synctest bubble: an in-memory network, an HTTP client
// on it, and the retries the generated clients report.
type env struct {
	t   *testing.T
	net *memnet.Network
	tr  *http.Transport
	hc  *http.Client

	mu      sync.Mutex
	retries []client.RetryEvent
}

// bubble runs f in a synctest bubble with a fresh env, whose servers and connections are
// closed when f returns.
func bubble(t *testing.T, f func(t *testing.T, e *env)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		n := memnet.New()
		tr := n.Transport()
		e := &env{t: t, net: n, tr: tr, hc: &http.Client{Transport: tr}}
		t.Cleanup(tr.CloseIdleConnections)
		f(t, e)
	})
}

// onRetry is the clients' OnRetry hook.
func (e *env) onRetry(ev client.RetryEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.retries = append(e.retries, ev)
}

// events returns the retries reported so far.
func (e *env) events() []client.RetryEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]client.RetryEvent(nil), e.retries...)
}

// petstore returns a petstore client for petstoreURL on e's network; opts come last, so
// they can replace the defaults.
func (e *env) petstore(opts ...client.Option) *client.Client {
	return e.petstoreAt(petstoreURL, opts...)
}

func (e *env) petstoreAt(baseURL string, opts ...client.Option) *client.Client {
	e.t.Helper()
	c := client.NewClient(append([]client.Option{client.WithBaseURL(baseURL), client.WithHTTPClient(e.hc), client.WithOnRetry(e.onRetry)}, opts...)...)
	if err := c.Err(); err != nil {
		e.t.Fatal(err)
	}
	return c
}

// faultapi returns a faultapi client for faultURL on e's network.
func (e *env) faultapi(opts ...faultapi.Option) *faultapi.Client {
	e.t.Helper()
	c := faultapi.NewClient(append([]faultapi.Option{faultapi.WithBaseURL(faultURL), faultapi.WithHTTPClient(e.hc), faultapi.WithOnRetry(e.onRetry)}, opts...)...)
	if err := c.Err(); err != nil {
		e.t.Fatal(err)
	}
	return c
}

// serve starts a scripted server on addr; it is closed when the test ends.
func (e *env) serve(addr string, steps ...step) *server {
	e.t.Helper()
	ln, err := e.net.Listen("tcp", addr)
	if err != nil {
		e.t.Fatal(err)
	}
	return startServer(e.t, ln, steps...)
}

// step answers one request. It runs after the request body was read into a.Body.
type step func(w http.ResponseWriter, r *http.Request, a *arrival)

// arrival is one request as the server received it.
type arrival struct {
	Method  string
	URI     string // as sent: path and query, percent-encoded
	Header  http.Header
	Body    []byte
	Remote  string
	At      time.Time
	Written int64 // bytes of body a streaming step managed to write
}

// server is a fault-injecting HTTP server: arrival n (from 1) is answered by steps[n-1],
// and the last step answers every later arrival.
type server struct {
	t     *testing.T
	srv   *http.Server
	steps []step

	mu       sync.Mutex
	arrivals []*arrival
	newConns int
	effects  map[string]int // side effects applied, by request body
}

func startServer(t *testing.T, ln net.Listener, steps ...step) *server {
	s := &server{t: t, steps: steps, effects: map[string]int{}}
	s.srv = &http.Server{Handler: s, ConnState: func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.newConns++
			s.mu.Unlock()
		}
	}}
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	a := &arrival{Method: r.Method, URI: r.RequestURI, Header: r.Header.Clone(), Body: body,
		Remote: r.RemoteAddr, At: time.Now()}
	s.mu.Lock()
	s.arrivals = append(s.arrivals, a)
	n := len(s.arrivals)
	steps := s.steps
	s.mu.Unlock()
	if len(steps) == 0 {
		s.t.Errorf("server: no step for %s %s", r.Method, r.RequestURI)
		return
	}
	steps[min(n, len(steps))-1](w, r, a)
}

// script replaces the server's steps, for steps that refer to the server itself.
func (s *server) script(steps ...step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = steps
}

// count returns the number of arrivals so far.
func (s *server) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.arrivals)
}

// got returns arrival i (from 0), failing the test when there is none.
func (s *server) got(i int) *arrival {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.arrivals) {
		s.t.Fatalf("server: arrival %d of %d", i+1, len(s.arrivals))
	}
	return s.arrivals[i]
}

// gaps returns the time between consecutive arrivals.
func (s *server) gaps() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var g []time.Duration
	for i := 1; i < len(s.arrivals); i++ {
		g = append(g, s.arrivals[i].At.Sub(s.arrivals[i-1].At))
	}
	return g
}

// effect records that the request with this body was applied, and returns how many
// times it was.
func (s *server) effect(body []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.effects[string(body)]++
	return s.effects[string(body)]
}

func (s *server) effectsOf(body string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.effects[body]
}

func (s *server) connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newConns
}

// Steps.

// status answers code with a small JSON problem body and the given header pairs.
func status(code int, header ...string) step {
	return func(w http.ResponseWriter, r *http.Request, a *arrival) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Add(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"code":%d,"message":%q}`, code, http.StatusText(code))
	}
}

// reply answers code with body as JSON (none when body is "").
func reply(code int, body string) step {
	return func(w http.ResponseWriter, r *http.Request, a *arrival) {
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// echo answers 200 with the request body.
func echo(w http.ResponseWriter, r *http.Request, a *arrival) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(a.Body)
}

const petJSON = `{"id":7,"name":"Rex","species":"dog"}`

// drop closes the connection without answering.
func drop(w http.ResponseWriter, r *http.Request, a *arrival) {
	if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
		c.Close()
	}
}

// apply records the request as applied (a side effect), then runs next.
func (s *server) apply(next step) step {
	return func(w http.ResponseWriter, r *http.Request, a *arrival) {
		s.effect(a.Body)
		next(w, r, a)
	}
}

// truncated answers 200 with a Content-Length of 1000 but sends only 500 bytes of JSON,
// then closes the connection.
func truncated(w http.ResponseWriter, r *http.Request, a *arrival) {
	c, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer c.Close()
	body := `{"id":7,"name":"` + strings.Repeat("x", 500-len(`{"id":7,"name":"`)) // cut short
	io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"+body)
}

// hold answers normally with next after d, unless the client gives up first.
func hold(d time.Duration, next step) step {
	return func(w http.ResponseWriter, r *http.Request, a *arrival) {
		select {
		case <-time.After(d):
			next(w, r, a)
		case <-r.Context().Done():
		}
	}
}

// huge answers code with a body of n bytes streamed in 32 KiB writes, stopping when a
// write fails; a.Written says how much went out.
func (s *server) huge(code int, n int64) step {
	return func(w http.ResponseWriter, r *http.Request, a *arrival) {
		w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		w.WriteHeader(code)
		chunk := make([]byte, 32<<10)
		var written int64
		for written < n {
			k, err := w.Write(chunk[:min(int64(len(chunk)), n-written)])
			written += int64(k)
			if err != nil {
				break
			}
		}
		s.mu.Lock()
		a.Written = written
		s.mu.Unlock()
	}
}

// redirect answers code with a Location header.
func redirect(code int, location string) step {
	return func(w http.ResponseWriter, r *http.Request, a *arrival) {
		w.Header().Set("Location", location)
		w.WriteHeader(code)
	}
}

// mustAPIError returns err as an *APIError, failing the test when it is not one.
func mustAPIError(t *testing.T, err error) *client.APIError {
	t.Helper()
	if err == nil {
		t.Fatal("the call succeeded; want an error")
	}
	apiErr, ok := errors.AsType[*client.APIError](err)
	if !ok {
		t.Fatalf("%v (%T) is not an *APIError", err, err)
	}
	return apiErr
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
