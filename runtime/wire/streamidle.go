package wire

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// DefaultStreamIdleTimeout is how long an event stream's connection may go without a
// byte, heartbeat comments included, before it is cut, unless the spec's
// x-stream-idle-timeout or WithStreamIdleTimeout says otherwise.
const DefaultStreamIdleTimeout = 5 * time.Minute

// NoStreamIdleTimeout, given to WithStreamIdleTimeout, turns the idle bound off: a
// stream then waits for its events as long as its context allows.
const NoStreamIdleTimeout time.Duration = -1

// WithStreamIdleTimeout cuts an event stream's connection when no byte of it arrives for
// d: its response header once the request is written, or any byte of its events,
// heartbeat comments included. A cut stream reconnects as after any cut (with
// Last-Event-ID, when the operation is retry-safe); else it ends with a *StreamError that
// matches runtime.ErrStreamIdle and says how long it waited. 0 keeps the default
// (StreamConfig.IdleTimeout, else DefaultStreamIdleTimeout); NoStreamIdleTimeout turns
// the bound off. Other calls ignore it.
func WithStreamIdleTimeout(d time.Duration) CallOption {
	return func(s *callSettings) { s.idleTimeout = d }
}

// WithFirstEventTimeout cuts an event stream's connection when its response header does
// not arrive within d of its request, or its first event within d of its header,
// heartbeats or not: for a server that accepts a stream and then says nothing. The cut is
// handled as WithStreamIdleTimeout's. d <= 0 leaves the first event to the idle bound
// alone, the default. Other calls ignore it.
func WithFirstEventTimeout(d time.Duration) CallOption {
	return func(s *callSettings) { s.firstEventTimeout = d }
}

// idleError is why a stream's connection was cut: nothing came for how long.
type idleError struct {
	what   string // "response header", "first event" or "byte"
	waited time.Duration
}

func (e *idleError) Error() string {
	return fmt.Sprintf("%v: no %s for %v", runtime.ErrStreamIdle, e.what, e.waited)
}

func (e *idleError) Is(target error) bool { return target == runtime.ErrStreamIdle }

// Timeout makes the engine classify a header that did not come in time as a timeout.
func (e *idleError) Timeout() bool { return true }

// streamBounds are the waits of one stream: idle for any byte, first for the first event
// (0 for no bound of its own).
type streamBounds struct {
	idle, first time.Duration
}

// bounds returns the waits of a stream under set and cfg.
func bounds(set *callSettings, cfg *StreamConfig) streamBounds {
	b := streamBounds{idle: set.idleTimeout, first: max(set.firstEventTimeout, 0)}
	if b.idle == 0 {
		b.idle = cfg.IdleTimeout
	}
	if b.idle == 0 {
		b.idle = DefaultStreamIdleTimeout
	}
	b.idle = max(b.idle, 0)
	return b
}

// headerOption returns the engine option that bounds each connection's wait for its
// response header by the stream's waits, nil when neither bounds it.
func (b streamBounds) headerOption() runtime.CallOption {
	d, err := b.idle, &idleError{what: "response header", waited: b.idle}
	if b.first > 0 && (d == 0 || b.first < d) {
		d, err = b.first, &idleError{what: "response header", waited: b.first}
	}
	if d == 0 {
		return nil
	}
	return runtime.WithHeaderTimeout(d, err)
}

// watchdog is the body of a stream's connection, cut when it goes quiet: no byte for
// idle, or no first event within first of the header. It needs no timer reset per read:
// its one timer, when it fires early, sleeps again until the latest byte's bound.
type watchdog struct {
	body   io.ReadCloser
	bounds streamBounds

	mu         sync.Mutex
	last       time.Time // when the latest byte arrived, or the header
	firstBy    time.Time // the first event's deadline; zero once it came, or with no bound
	timer      *time.Timer
	cut        error // why the watchdog closed the body
	closed     bool
	closeOnce  sync.Once
	closeError error
}

// watch returns body watched under b, or body itself when b bounds nothing.
func watch(body io.ReadCloser, b streamBounds) io.ReadCloser {
	if b.idle <= 0 && b.first <= 0 {
		return body
	}
	now := time.Now()
	w := &watchdog{body: body, bounds: b, last: now}
	if b.first > 0 {
		w.firstBy = now.Add(b.first)
	}
	w.timer = time.AfterFunc(w.wait(now), w.check)
	return w
}

// wait returns how long from now until the watchdog must look again: the idle bound
// from the latest byte, or the first event's deadline, whichever is first.
func (w *watchdog) wait(now time.Time) time.Duration {
	var next time.Time
	if w.bounds.idle > 0 {
		next = w.last.Add(w.bounds.idle)
	}
	if !w.firstBy.IsZero() && (next.IsZero() || w.firstBy.Before(next)) {
		next = w.firstBy
	}
	return next.Sub(now)
}

// check runs when the timer fires: it cuts the connection when a bound has passed, else
// sets the timer again.
func (w *watchdog) check() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	now := time.Now()
	switch {
	case !w.firstBy.IsZero() && !now.Before(w.firstBy):
		w.cut = &idleError{what: "first event", waited: w.bounds.first}
	case w.bounds.idle > 0 && !now.Before(w.last.Add(w.bounds.idle)):
		w.cut = &idleError{what: "byte", waited: w.bounds.idle}
	default:
		w.timer.Reset(w.wait(now))
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	w.closeBody() // ends a Read in progress
}

// sawEvent lifts the first event's deadline: it came.
func (w *watchdog) sawEvent() {
	w.mu.Lock()
	w.firstBy = time.Time{}
	w.mu.Unlock()
}

func (w *watchdog) Read(p []byte) (int, error) {
	n, err := w.body.Read(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cut != nil {
		return n, w.cut
	}
	if n > 0 {
		w.last = time.Now()
	}
	return n, err
}

// Close stops the watchdog and closes the body.
func (w *watchdog) Close() error {
	w.mu.Lock()
	w.closed = true
	w.timer.Stop()
	w.mu.Unlock()
	return w.closeBody()
}

func (w *watchdog) closeBody() error {
	w.closeOnce.Do(func() { w.closeError = w.body.Close() })
	return w.closeError
}
