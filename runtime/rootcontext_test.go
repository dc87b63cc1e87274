package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Under a context that is never canceled an attempt cancels its context itself
// (rootContext); under any other the context package's cancel context does, and with a
// time limit, under any parent, context.WithTimeout's.
func TestAttemptContextUnderWhichParent(t *testing.T) {
	never := []context.Context{context.Background(), context.WithoutCancel(t.Context())}
	for i, parent := range never {
		a := &attempt{}
		a.start(parent, 0, false)
		if a.cancelCause != nil || a.ctx.Context != &a.root {
			t.Errorf("parent %d, never canceled: the attempt's context is not its own root", i)
		}
		a.release()
	}
	a := &attempt{}
	a.start(t.Context(), 0, false)
	if a.cancelCause == nil || a.ctx.Context == &a.root {
		t.Error("a cancelable parent: the attempt's context is not the context package's")
	}
	a.release()
	for i, parent := range append(never, t.Context()) {
		a := &attempt{}
		ctx := a.start(parent, time.Second, true)
		if _, ok := ctx.Deadline(); !ok || a.cancelLimit == nil || a.cancelCause != nil || a.ctx.Context == &a.root {
			t.Errorf("parent %d, a time limit: the attempt's context is not context.WithTimeout's", i)
		}
		a.release()
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("parent %d, a time limit: after release Err %v; want context.Canceled", i, ctx.Err())
		}
	}
}

// A root context is done once canceled, whether its done channel was asked for before or
// after, and says why as context.WithCancel's would.
func TestRootContextCancel(t *testing.T) {
	for _, early := range []bool{true, false} {
		a := &attempt{}
		ctx := a.start(context.Background(), 0, false)
		var done <-chan struct{}
		if early {
			done = ctx.Done()
		}
		if ctx.Err() != nil {
			t.Fatalf("a fresh attempt's context: Err %v", ctx.Err())
		}
		a.abort(errDrainTimeout)
		a.release() // a second cancel changes nothing
		if !early {
			done = ctx.Done()
		}
		select {
		case <-done:
		default:
			t.Errorf("Done asked for early=%v: not closed after abort", early)
		}
		if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(ctx), context.Canceled) {
			t.Errorf("after abort: Err %v, Cause %v; want context.Canceled", ctx.Err(), context.Cause(ctx))
		}
		if a.cause() != errDrainTimeout {
			t.Errorf("the attempt's cause %v; want %v", a.cause(), errDrainTimeout)
		}
	}
}

// The contexts derived from an attempt's root context, as net/http derives its own for
// each request, are canceled with it; one canceled first leaves it, and a function
// registered with context.AfterFunc runs once, unless stopped first.
func TestRootContextDerived(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &attempt{}
		ctx := a.start(context.Background(), 0, false)
		var children []context.Context
		for range 4 { // more than the inline registrations
			child, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			children = append(children, child)
		}
		early, cancelEarly := context.WithCancel(ctx)
		cancelEarly()
		var ran, stoppedRan atomic.Int32
		context.AfterFunc(ctx, func() { ran.Add(1) })
		stop := context.AfterFunc(ctx, func() { stoppedRan.Add(1) })
		if !stop() {
			t.Error("stop before the cancel: false; want true")
		}
		a.root.mu.Lock()
		registered := 0
		for _, f := range a.root.afters {
			if f != nil {
				registered++
			}
		}
		a.root.mu.Unlock()
		if registered != len(children)+1 {
			t.Errorf("%d functions registered; want %d (a child canceled first and a stopped function leave)", registered, len(children)+1)
		}
		if early.Err() == nil {
			t.Fatal("a child canceled by itself: Err nil")
		}

		a.abort(errResendLimit)
		for i, child := range children {
			select {
			case <-child.Done():
			default:
				t.Fatalf("child %d not canceled with the attempt's context", i)
			}
			if !errors.Is(context.Cause(child), context.Canceled) {
				t.Errorf("child %d: Cause %v; want context.Canceled", i, context.Cause(child))
			}
		}
		synctest.Wait() // context.AfterFunc's function runs in a goroutine of its own
		if ran.Load() != 1 || stoppedRan.Load() != 0 {
			t.Errorf("AfterFunc ran %d times, the stopped one %d; want 1 and 0", ran.Load(), stoppedRan.Load())
		}
		if stop() {
			t.Error("stop after the cancel: true; want false")
		}

		// Registered once the context is done, a function runs at once.
		late := make(chan struct{})
		context.AfterFunc(ctx, func() { close(late) })
		<-late
		child, cancel := context.WithCancel(ctx)
		defer cancel()
		if child.Err() == nil {
			t.Error("a child of a canceled attempt's context: Err nil")
		}
	})
}

// The attempt bounds that end a request in flight end it under a context that is never
// canceled too, where the attempt's context is its own root context, or with a time
// limit context.WithTimeout's.
func TestAttemptBoundsUnderAContextNeverCanceled(t *testing.T) {
	ctx := context.Background()
	t.Run("response header timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWire(t, "api.test:80", func(_ *wire, rw http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Attempt") == "1" {
					io.WriteString(rw, "ok")
					return
				}
				<-r.Context().Done()
			})
			w.e.ResponseHeaderTimeout = 5 * time.Second
			w.e.AttemptHeader = "X-Attempt"
			var events []RetryEvent
			w.e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
			start := time.Now()
			resp, err := w.e.Do(ctx, newRequest(t, ctx, "GET", "http://api.test/pets", nil), idempotent())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if el, want := time.Since(start), 5*time.Second+50*time.Millisecond; el != want {
				t.Errorf("took %v, want %v", el, want)
			}
			if len(events) != 1 || !errors.Is(events[0].Err, errResponseHeaderTimeout) {
				t.Errorf("events %+v; want one header timeout", events)
			}
		})
	})
	t.Run("attempt timeout, body included", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: func(n int, r *http.Request) (*http.Response, error) {
				if n == 1 {
					return hang(n, r)
				}
				resp := response(200, nil, "")
				resp.Body = streamBody(r.Context(), 1<<20, 64<<10, 100*time.Millisecond)
				return resp, nil
			}}
			p := idempotent()
			p.AttemptTimeout = time.Second
			start := time.Now()
			resp, err := engineFor(s, 0.5).Do(ctx, newRequest(t, ctx, "GET", testURL, nil), p)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if el := time.Since(start); s.count() != 2 || el != time.Second+50*time.Millisecond {
				t.Errorf("%d attempts in %v; want 2, the first timed out, in 1.05s", s.count(), el)
			}
			if _, err := io.Copy(io.Discard, resp.Body); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("read error %v, want DeadlineExceeded", err)
			}
		})
	})
	t.Run("attempt timeout of a streamed body", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWire(t, "api.test:80", func(_ *wire, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
			p := idempotent()
			p.MaxAttempts, p.AttemptTimeout = 2, 3*time.Second
			start := time.Now()
			_, err := w.e.Do(ctx, newRequest(t, ctx, "GET", "http://api.test/pets", nil), p, WithStreamedBody())
			ee := mustError(t, err)
			if el, want := time.Since(start), 6*time.Second+50*time.Millisecond; ee.Attempts != 2 || el != want || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%v after %d attempts and %v; want 2 attempts timed out, %v", err, ee.Attempts, el, want)
			}
		})
	})
	t.Run("net/http's re-sends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWire(t, "api.test:80", closeReused())
			_, err := w.e.Do(ctx, newRequest(t, ctx, "GET", "http://api.test/pets", nil), idempotent())
			ee := mustError(t, err)
			if w.arrivals() != 3 || ee.Attempts != 3 || !errors.Is(err, ErrExhausted) {
				t.Fatalf("%d arrivals, %d attempts reported (%v); want 3 and 3", w.arrivals(), ee.Attempts, err)
			}
		})
	})
	t.Run("a drain out of time", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWire(t, "api.test:80", func(_ *wire, rw http.ResponseWriter, r *http.Request) {
				rw.WriteHeader(503)
				io.WriteString(rw, "overloaded")
				rw.(http.Flusher).Flush()
				<-r.Context().Done()
			})
			p := idempotent()
			p.MaxAttempts = 1
			start := time.Now()
			_, err := w.e.Do(ctx, newRequest(t, ctx, "GET", "http://api.test/pets", nil), p)
			ee := mustError(t, err)
			if el := time.Since(start); ee.StatusCode != 503 || string(ee.Body) != "overloaded" || el != DrainTimeout {
				t.Fatalf("%v, body %q, after %v; want the 503 with its partial body after %v", err, ee.Body, el, DrainTimeout)
			}
		})
	})
	t.Run("a body closed ends its attempt", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var handlerDone atomic.Bool
			w := newWire(t, "api.test:80", func(_ *wire, rw http.ResponseWriter, r *http.Request) {
				io.WriteString(rw, strings.Repeat("x", 64<<10))
				rw.(http.Flusher).Flush()
				<-r.Context().Done()
				handlerDone.Store(true)
			})
			resp, err := w.e.Do(ctx, newRequest(t, ctx, "GET", "http://api.test/pets", nil), idempotent())
			if err != nil {
				t.Fatal(err)
			}
			rctx := resp.Request.Context()
			resp.Body.Close()
			synctest.Wait()
			if rctx.Err() == nil || !handlerDone.Load() {
				t.Errorf("after Close: the attempt's context %v, the server's request done %v; want both ended", rctx.Err(), handlerDone.Load())
			}
		})
	})
}

// An attempt's root context reads, for debugging, as context.WithCancel's would.
func TestRootContextString(t *testing.T) {
	a := &attempt{}
	ctx := a.start(context.WithoutCancel(context.Background()), 0, false)
	defer a.release()
	if got, want := fmt.Sprint(ctx), "context.Background.WithoutCancel.WithCancel.WithValue(attempt)"; got != want {
		t.Errorf("the attempt's context reads %q; want %q", got, want)
	}
}
