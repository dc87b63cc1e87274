package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// httptrace's key is learned on this Go, so that attempts take no context layer for their
// trace.
func TestTraceKeyIsLearned(t *testing.T) {
	if traceKey == nil {
		t.Fatal("traceKey is nil: attempts fall back to httptrace.WithClientTrace")
	}
	a := &attempt{}
	ctx := a.start(context.Background(), 0, false)
	defer a.release()
	if got := httptrace.ContextClientTrace(ctx); got != &a.trace {
		t.Errorf("httptrace finds %p in the attempt's context; want the attempt's trace %p", got, &a.trace)
	}
	if attemptFrom(ctx) != a {
		t.Error("the attempt's context does not hold the attempt")
	}
}

// A caller's own trace on the context keeps its hooks, composed with the attempt's: the
// caller's hooks fire, and the engine's still bound the wait for the response header.
func TestCallerTraceComposesWithTheAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWire(t, "api.test:80", func(w *wire, rw http.ResponseWriter, r *http.Request) {
			if w.arrivals() == 1 {
				<-r.Context().Done() // withhold the header
			}
		})
		w.e.ResponseHeaderTimeout = time.Second
		var conns, writes atomic.Int32
		ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{
			GetConn:      func(string) { conns.Add(1) },
			WroteRequest: func(httptrace.WroteRequestInfo) { writes.Add(1) },
		})
		var events []RetryEvent
		w.e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
		resp, err := w.e.Do(ctx, newRequest(t, ctx, "GET", "http://api.test/pets", nil), idempotent())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if len(events) != 1 || !errors.Is(events[0].Err, errResponseHeaderTimeout) {
			t.Errorf("retries %+v; want one, after the response header timeout", events)
		}
		if conns.Load() != 2 || writes.Load() != 2 {
			t.Errorf("the caller's hooks saw %d connections and %d writes; want 2 and 2", conns.Load(), writes.Load())
		}
	})
}

// An attempt's context reads, for debugging, as the contexts of the standard library do.
func TestAttemptContextString(t *testing.T) {
	a := &attempt{}
	ctx := a.start(context.Background(), 0, false)
	defer a.release()
	if got, want := fmt.Sprint(ctx), "context.Background.WithCancel.WithValue(attempt)"; got != want {
		t.Errorf("the attempt's context reads %q; want %q", got, want)
	}
}
