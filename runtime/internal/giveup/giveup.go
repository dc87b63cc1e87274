// Package giveup carries, in a request's context, what runtime.OneRetryLayer needs to know
// of the calls made for that request: whether one of them gave up for load reasons, and
// the longest Retry-After any of them was sent. runtime's engine and runtime/wire's event
// streams record there; the middleware reads it.
package giveup

import (
	"context"
	"sync/atomic"
	"time"
)

// Tracker is what the calls of one request report. Calls of one request may run
// concurrently.
type Tracker struct {
	gaveUp   atomic.Bool
	hint     atomic.Int64 // nanoseconds
	observer atomic.Pointer[any]
}

type key struct{}

// With returns ctx with a new tracker, and the tracker.
func With(ctx context.Context) (context.Context, *Tracker) {
	t := new(Tracker)
	return context.WithValue(ctx, key{}, t), t
}

// Record records on the tracker of ctx, if it has one, that a call gave up, with the
// server's hint (0 for none) and the observer to tell of what the middleware does about
// it (nil for none; the first one recorded is kept). Without a tracker it costs a context
// lookup.
func Record(ctx context.Context, hint time.Duration, observer any) {
	if t, ok := ctx.Value(key{}).(*Tracker); ok {
		t.gaveUp.Store(true)
		if observer != nil && t.observer.Load() == nil {
			box := new(any) // not &observer, which would move every call's argument to the heap
			*box = observer
			t.observer.CompareAndSwap(nil, box)
		}
		for {
			old := t.hint.Load()
			if int64(hint) <= old || t.hint.CompareAndSwap(old, int64(hint)) {
				return
			}
		}
	}
}

// GaveUp reports whether a call gave up.
func (t *Tracker) GaveUp() bool { return t.gaveUp.Load() }

// Hint returns the longest hint recorded.
func (t *Tracker) Hint() time.Duration { return time.Duration(t.hint.Load()) }

// Observer returns the first observer recorded, nil when none was.
func (t *Tracker) Observer() any {
	if o := t.observer.Load(); o != nil {
		return *o
	}
	return nil
}
