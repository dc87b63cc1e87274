package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

type callerKey struct{}

// valueTransport checks that a caller's value reaches the RoundTripper, and derives a
// context through a layer the context package does not know (a WithValue, then a
// WithCancel above it), as instrumentation transports do.
type valueTransport struct {
	next   http.RoundTripper
	seen   atomic.Int32
	derive bool
}

func (v *valueTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Context().Value(callerKey{}) == "caller" {
		v.seen.Add(1)
	}
	if v.derive {
		ctx, cancel := context.WithCancel(context.WithValue(r.Context(), callerKey{}, "caller"))
		_ = cancel // kept alive on purpose: only the attempt's end cancels it
		r = r.WithContext(ctx)
	}
	return v.next.RoundTrip(r)
}

// Over real HTTP/1.1 and HTTP/2 connections, under a caller context that is never
// canceled (the attempt's own rootContext), every way an attempt ends cancels the
// request the server sees, the caller's values reach the transport, and no goroutine
// is left behind.
func TestRootContextOverRealConnections(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		name := "HTTP/1.1"
		if h2 {
			name = "HTTP/2"
		}
		t.Run(name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			var (
				mu       sync.Mutex
				canceled = map[string]int{}
			)
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				wait := func() {
					select {
					case <-r.Context().Done():
						mu.Lock()
						canceled[r.URL.Path]++
						mu.Unlock()
					case <-time.After(time.Minute): // a cancel that never comes
					}
				}
				switch r.URL.Path {
				case "/hold": // no header until canceled
					wait()
					panic(http.ErrAbortHandler)
				case "/stream": // a header, a little body, then nothing until canceled
					io.WriteString(w, strings.Repeat("x", 100))
					w.(http.Flusher).Flush()
					wait()
					// A handler that returns ends the body well, which a client that
					// sent its TLS close_notify may still read: abort it instead.
					panic(http.ErrAbortHandler)
				case "/r1", "/r2", "/r3":
					http.Redirect(w, r, "/r"+string(r.URL.Path[2]+1), http.StatusFound)
				case "/r4":
					io.WriteString(w, strings.Repeat("y", 100))
					w.(http.Flusher).Flush()
					wait()
				case "/fail":
					w.WriteHeader(503)
					io.WriteString(w, "no")
				}
			}))
			srv.EnableHTTP2 = h2
			srv.StartTLS()
			defer srv.Close()
			base := srv.Client()
			vt := &valueTransport{next: base.Transport, derive: true}
			// e times out /hold's header; answered takes the default header timeout, so
			// that a busy machine slow to answer does not pass for a server that does not.
			e := &Engine{HTTPClient: &http.Client{Transport: vt}, ResponseHeaderTimeout: 150 * time.Millisecond, Rand: func() float64 { return 0 }}
			answered := &Engine{HTTPClient: &http.Client{Transport: vt}, Rand: func() float64 { return 0 }}
			ctx := context.WithValue(context.Background(), callerKey{}, "caller")
			if ctx.Done() != nil {
				t.Fatal("the caller's context can be canceled")
			}
			p := idempotent()
			p.MaxAttempts, p.InitialDelay = 2, time.Millisecond
			waitCanceled := func(path string, n int) {
				t.Helper()
				deadline := time.Now().Add(time.Minute) // a hang is the failure: not a timing bound
				for time.Now().Before(deadline) {
					mu.Lock()
					got := canceled[path]
					mu.Unlock()
					if got >= n {
						return
					}
					time.Sleep(5 * time.Millisecond)
				}
				t.Errorf("%s: the server saw %d requests canceled; want %d", path, canceled[path], n)
			}

			// The response header timeout, twice.
			_, err := e.Do(ctx, newRequest(t, ctx, "GET", srv.URL+"/hold", nil), p)
			if ee := mustError(t, err); ee.Attempts != 2 || !errors.Is(err, errResponseHeaderTimeout) {
				t.Errorf("/hold: %v after %d attempts; want 2 header timeouts", err, ee.Attempts)
			}
			waitCanceled("/hold", 2)

			// The attempt timeout, its body included.
			pt := *p
			pt.AttemptTimeout = 300 * time.Millisecond
			resp, err := answered.Do(ctx, newRequest(t, ctx, "GET", srv.URL+"/stream", nil), &pt)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("/stream read under an attempt timeout: %d bytes, %v after %v; want DeadlineExceeded", n, err, time.Since(start))
			}
			waitCanceled("/stream", 1)

			// A body closed early.
			resp, err = answered.Do(ctx, newRequest(t, ctx, "GET", srv.URL+"/stream", nil), p)
			if err != nil {
				t.Fatal(err)
			}
			io.ReadFull(resp.Body, make([]byte, 10))
			resp.Body.Close()
			waitCanceled("/stream", 2)

			// A redirect chain, then a body closed early.
			resp, err = answered.Do(ctx, newRequest(t, ctx, "GET", srv.URL+"/r1", nil), p)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Request.Context().Value(callerKey{}) != "caller" {
				t.Error("the final request's context lost the caller's value")
			}
			io.ReadFull(resp.Body, make([]byte, 10))
			resp.Body.Close()
			waitCanceled("/r4", 1)

			// Failed answers drained and retried.
			_, err = answered.Do(ctx, newRequest(t, ctx, "GET", srv.URL+"/fail", nil), p)
			if ee := mustError(t, err); ee.StatusCode != 503 || string(ee.Body) != "no" {
				t.Errorf("/fail: %v", err)
			}

			if got := vt.seen.Load(); got < 10 {
				t.Errorf("the transport saw the caller's value %d times; want every request", got)
			}
			base.CloseIdleConnections()
			srv.Close()
			if err := goleak.Find(before); err != nil {
				t.Error(err)
			}
		})
	}
}

// The AfterFunc contract, as context.AfterFunc keeps it: stop before the cancel stops f
// and says true once; after the cancel it says false, and f runs once; registrations
// and stops racing a cancel leave every function run at most once, and run exactly when
// its stop said false.
func TestRootContextAfterFuncContract(t *testing.T) {
	a := &attempt{}
	ctx := a.start(context.Background(), 0, false)
	af := ctx.(interface{ AfterFunc(func()) func() bool })
	var runs [6]atomic.Int32
	stops := make([]func() bool, len(runs))
	for i := range runs {
		stops[i] = af.AfterFunc(func() { runs[i].Add(1) })
	}
	if !stops[1]() || stops[1]() {
		t.Error("stop twice before the cancel: want true, then false")
	}
	if !stops[4]() {
		t.Error("stop of the fifth registration: false")
	}
	a.release()
	a.release()
	for i := range runs {
		want := int32(1)
		if i == 1 || i == 4 {
			want = 0
		}
		if runs[i].Load() != want {
			t.Errorf("function %d ran %d times; want %d", i, runs[i].Load(), want)
		}
		if stops[i]() {
			t.Errorf("stop %d after the cancel: true", i)
		}
	}

	for range 50 {
		a := &attempt{}
		ctx := a.start(context.Background(), 0, false)
		af := ctx.(interface{ AfterFunc(func()) func() bool })
		const n = 16
		var ran [n]atomic.Int32
		var stopped [n]atomic.Bool
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				stop := af.AfterFunc(func() { ran[i].Add(1) })
				if i%2 == 0 {
					stopped[i].Store(stop())
				}
			})
		}
		wg.Go(func() { a.abort(errResendLimit) })
		wg.Wait()
		// A function registered after the cancel runs in a goroutine of its own.
		deadline := time.Now().Add(time.Minute) // a hang is the failure: not a timing bound
		for i := range n {
			want := int32(1)
			if stopped[i].Load() {
				want = 0
			}
			for ran[i].Load() != want && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if got := ran[i].Load(); got != want {
				t.Fatalf("function %d (stop said %v) ran %d times", i, stopped[i].Load(), got)
			}
		}
	}
}
