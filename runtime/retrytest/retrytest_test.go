package retrytest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/retrytest"
)

var ok = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, "ok "+r.Method+" "+string(body))
})

func policy(idempotent bool) *runtime.Policy {
	p := runtime.DefaultPolicy()
	p.Idempotent = idempotent
	p.InitialDelay, p.MaxDelay = 100*time.Millisecond, time.Second
	return &p
}

func call(t *testing.T, tr *retrytest.Transport, method string, p *runtime.Policy, body string) (string, error) {
	t.Helper()
	e := &runtime.Engine{HTTPClient: tr.Client()}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, "http://api.test/pets?limit=1", rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.Do(context.Background(), req, p)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return string(data), err
}

// Faults come first, in order; then the handler answers. Inside a bubble the backoff
// and a Retry-After of 2s pass in virtual time, and the floor is kept.
func TestFaultsThenHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(ok, retrytest.Status(503), retrytest.RetryAfter(429, 2*time.Second), retrytest.Refused())
		start := time.Now()
		got, err := call(t, tr, "PUT", policy(true), "rex")
		if err != nil || got != "ok PUT rex" {
			t.Fatalf("got %q, %v", got, err)
		}
		if waited := time.Since(start); waited < 2*time.Second {
			t.Errorf("waited %v, want at least the Retry-After of 2s", waited)
		}
		reqs := tr.Requests()
		if len(reqs) != 4 {
			t.Fatalf("%d requests, want 4", len(reqs))
		}
		for i, want := range []string{"status 503", "status 429, Retry-After 2", "connection refused", ""} {
			if reqs[i].Fault != want {
				t.Errorf("request %d: fault %q, want %q", i, reqs[i].Fault, want)
			}
		}
		for _, r := range reqs[:2] {
			if string(r.Body) != "rex" {
				t.Errorf("a retry was sent with body %q", r.Body)
			}
		}
		if reqs[0].URL != "http://api.test/pets?limit=1" {
			t.Errorf("URL %q", reqs[0].URL)
		}
	})
}

// The server's word: a POST without a key answered 503 with x-should-retry: true is
// retried; a GET answered 503 with false is not.
func TestShouldRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(ok, retrytest.ShouldRetry(503, true))
		if got, err := call(t, tr, "POST", policy(false), "x"); err != nil || got != "ok POST x" || len(tr.Requests()) != 2 {
			t.Errorf("POST told to retry: got %q, %v after %d requests; want success after 2", got, err, len(tr.Requests()))
		}
		tr = retrytest.NewTransport(ok, retrytest.ShouldRetry(503, false))
		if _, err := call(t, tr, "GET", policy(true), ""); !errors.Is(err, runtime.ErrServerSaidNoRetry) || len(tr.Requests()) != 1 {
			t.Errorf("GET told not to retry: %v after %d requests; want ErrServerSaidNoRetry after 1", err, len(tr.Requests()))
		}
		if f := tr.Requests()[0].Fault; f != "status 503, x-should-retry false" {
			t.Errorf("fault %q", f)
		}
	})
}

// A reset may have reached the server: a request that is not retry-safe is not sent
// again. A refused connection sent nothing, so it is.
func TestResetAndRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(ok, retrytest.Reset())
		if _, err := call(t, tr, "POST", policy(false), "x"); err == nil {
			t.Error("a reset POST succeeded")
		}
		if n := len(tr.Requests()); n != 1 {
			t.Errorf("reset POST: %d requests, want 1", n)
		}
		tr = retrytest.NewTransport(ok, retrytest.Refused(), retrytest.Refused())
		if got, err := call(t, tr, "POST", policy(false), "x"); err != nil || got != "ok POST x" {
			t.Errorf("refused POST: got %q, %v", got, err)
		}
	})
}

// A slow body outlasts the attempt timeout and is retried; a cut body is a failed
// attempt when the engine reads the body within the attempt.
func TestSlowAndCutBodies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := policy(true)
		p.AttemptTimeout, p.ReadBody = time.Second, true
		tr := retrytest.NewTransport(ok, retrytest.SlowBody(time.Minute), retrytest.CutBody(2))
		got, err := call(t, tr, "GET", p, "")
		if err != nil || got != "ok GET " {
			t.Fatalf("got %q, %v", got, err)
		}
		if n := len(tr.Requests()); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
	})
}

// Without faults the handler sees the request as a server would.
func TestHandlerSeesRequest(t *testing.T) {
	var seen *http.Request
	tr := retrytest.NewTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r
		w.WriteHeader(204)
	}))
	req, _ := http.NewRequest("DELETE", "http://api.test/pets/1?x=y", bytes.NewReader(nil))
	req.Header.Set("X-Key", "k")
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("got %v, %v", resp, err)
	}
	if seen.Host != "api.test" || seen.RequestURI != "/pets/1?x=y" || seen.Header.Get("X-Key") != "k" {
		t.Errorf("handler saw host %q, URI %q, header %v", seen.Host, seen.RequestURI, seen.Header)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ = http.NewRequestWithContext(ctx, "GET", "http://api.test/", nil)
	if _, err := tr.RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v", err)
	}
}

// A Transport without a handler answers with its faults, then fails each request with
// ErrNoHandler, which says what is missing and is not retried; it never panics.
func TestNilHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer func() {
			if v := recover(); v != nil {
				t.Fatalf("panic: %v", v)
			}
		}()
		tr := retrytest.NewTransport(nil, retrytest.Status(503))
		_, err := call(t, tr, "GET", policy(true), "")
		var apiErr *runtime.Error
		if !errors.Is(err, retrytest.ErrNoHandler) || !errors.As(err, &apiErr) || apiErr.Attempts != 2 {
			t.Fatalf("err = %v; want ErrNoHandler after 2 attempts, the fault's and the one it ends", err)
		}
		if !strings.Contains(err.Error(), "nil handler") {
			t.Errorf("err = %q; want it to name the nil handler", err)
		}
		if reqs := tr.Requests(); len(reqs) != 2 || reqs[1].Fault != "no handler" {
			t.Errorf("requests %+v; want the fault's, then one met with no handler", reqs)
		}
	})
}

// closeCounter is a request body that counts its Close calls.
type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// RoundTrip closes the request body whatever it answers, a done context included, as
// http.RoundTripper requires.
func TestRoundTripClosesBodyOnDoneContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	body := &closeCounter{Reader: strings.NewReader("rex")}
	req, err := http.NewRequestWithContext(ctx, "POST", "http://api.test/pets", body)
	if err != nil {
		t.Fatal(err)
	}
	tr := retrytest.NewTransport(ok)
	if _, err := tr.RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if body.closed == 0 {
		t.Error("the request body was not closed")
	}
	if n := len(tr.Requests()); n != 0 {
		t.Errorf("%d requests recorded, want none", n)
	}
}
