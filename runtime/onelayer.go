package runtime

import (
	"bufio"
	"context"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/retrygen/retrygen/runtime/internal/giveup"
)

// Retries multiply through a chain of services: three layers that each make 4 attempts turn
// one user call into 64 at the bottom. OneRetryLayer keeps the retries at the layer next to
// the failure: a service whose own client call gave up after retrying tells its callers not
// to retry again, with the X-Should-Retry: false that retrygen clients (and Stainless-made
// SDKs) obey.

// ShouldRetryHeader is the response header through which a server tells its clients whether
// to repeat a request: "false" stops a retrygen client's retries of that call.
const ShouldRetryHeader = "X-Should-Retry"

// noteGiveUp records on the tracker of ctx, if it has one, that a call ended with err for
// load reasons (see gaveUp), with the server's hint cut to maxWait, the longest the call
// itself would have waited for one (its policy's MaxRetryAfter): a layer never tells its
// callers to wait longer than it would have. It also records which observer to tell if
// OneRetryLayer says so. Without a tracker it costs a context lookup on a failed call, and
// nothing on a call that succeeded.
func (e *Engine) noteGiveUp(ctx context.Context, err error, maxWait time.Duration) {
	if ae, ok := gaveUp(ctx, err); ok {
		var o any
		if lo, ok := e.Observer.(LayerObserver); ok {
			o = lo
		}
		giveup.Record(ctx, max(min(ae.RetryAfter, maxWait), 0), o)
	}
}

// gaveUp reports whether a call that ended with err under ctx gave up for load reasons
// (see loadReason): the caller's cancellation, and stops for safety (an operation that is
// not retry-safe, a status no policy retries), are not load.
func gaveUp(ctx context.Context, err error) (*Error, bool) {
	e, ok := err.(*Error) // as Do returns it
	if !ok || ctx.Err() != nil {
		return nil, false
	}
	return e, loadReason(e.Cause)
}

// loadReason reports whether cause, why a call stopped, is load: retries ran out on
// failures that would be retried (or the next wait did not fit the call's deadline), the
// budget or the breaker refused, the server said not to retry or asked for a longer wait
// than allowed.
func loadReason(cause error) bool {
	switch cause {
	case ErrExhausted, ErrBudgetExhausted, ErrCircuitOpen, ErrServerSaidNoRetry, ErrRetryAfterTooLong, context.DeadlineExceeded:
		return true
	}
	return false
}

// OneRetryLayer wraps the handler of a service that calls other services through retrygen
// clients, so that a chain of such services retries at one layer only: the one next to the
// failure.
//
// It gives each request's context a tracker. A generated client's call made with that
// context (or one derived from it) that gives up for load reasons — its retries ran out on
// retryable failures (or its deadline left no room for the next wait), the retry budget
// refused a retry, the circuit breaker was open, the server said not to retry, or the
// server's Retry-After was longer than allowed — records it there; so does an event
// stream that stops for those reasons. When the handler then answers with a 5xx or a 429 and has not set
// X-Should-Retry (or Stripe-Should-Retry) itself, the response gets X-Should-Retry: false,
// and, when the handler set neither Retry-After nor Retry-After-Ms, a Retry-After of the
// longest hint the given-up calls were sent (in seconds, rounded up), each cut to the
// longest its call would have waited (its policy's MaxRetryAfter). The clients above
// then make one attempt and pass the answer on instead of retrying what was retried
// already.
//
// It never writes true, never changes a 2xx, 3xx or other 4xx answer, and reads nothing of
// the request: no header a client sends can switch off a service's own retries. A call that
// failed for safety (an operation that is not retry-safe, a status no policy retries) or
// that the request's cancellation ended is not a give-up, and a 5xx the handler makes on
// its own carries no signal. Work detached from the request with context.WithoutCancel
// keeps the tracker but loses nothing: it retries as before, and a give-up it records after
// the answer is written changes nothing.
//
// For browsers: on a response that carries Access-Control-Allow-Origin (the application
// answered a CORS request), OneRetryLayer adds Retry-After, Retry-After-Ms and
// X-Should-Retry to Access-Control-Expose-Headers, merged with what the application lists,
// so that a script can read the server's word; without that CORS hides those headers.
//
// The observer of the first call that gave up, when it is a LayerObserver, hears of each
// X-Should-Retry: false written (retrygenotel counts them).
//
// The ResponseWriter the handler gets keeps the optional interfaces of net/http's writers,
// http.Flusher, http.Hijacker, http.Pusher, io.ReaderFrom, io.StringWriter and
// http.CloseNotifier (each answering as the server's writer does, http.ErrNotSupported
// where it has none), and unwraps for http.ResponseController, which reaches the rest
// (deadlines, full duplex) and the methods of writers from outside net/http; the body,
// streamed or not, passes through untouched.
func OneRetryLayer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, g := giveup.With(r.Context())
		lw := &layerWriter{ResponseWriter: w, giveUps: g, ctx: ctx}
		next.ServeHTTP(lw, r.WithContext(ctx))
	})
}

// layerWriter adds one retry layer's headers to the response header when it is written.
type layerWriter struct {
	http.ResponseWriter
	giveUps *giveup.Tracker
	ctx     context.Context // the request's, for the observer
	wrote   bool            // the final header is written
}

// signalHeaders are the headers of a server's word on retrying that a browser may read.
var signalHeaders = []string{"Retry-After", "Retry-After-Ms", ShouldRetryHeader}

func (w *layerWriter) WriteHeader(code int) {
	if !w.wrote && code >= 200 { // 1xx answers come before the final header
		w.wrote = true
		w.addSignals(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

// addSignals sets the headers of a response with status code.
func (w *layerWriter) addSignals(code int) {
	h := w.ResponseWriter.Header()
	failed := code >= 500 || code == http.StatusTooManyRequests
	if failed && w.giveUps.GaveUp() && len(h.Values(ShouldRetryHeader)) == 0 && len(h.Values("Stripe-Should-Retry")) == 0 {
		h.Set(ShouldRetryHeader, "false")
		info := SuppressInfo{StatusCode: code}
		if hint := w.giveUps.Hint(); hint > 0 && len(h.Values("Retry-After")) == 0 && len(h.Values("Retry-After-Ms")) == 0 {
			secs := ceilSeconds(hint)
			h.Set("Retry-After", strconv.FormatInt(secs, 10))
			info.RetryAfter = secondsDuration(secs)
		}
		if o, ok := w.giveUps.Observer().(LayerObserver); ok {
			o.Suppressed(w.ctx, info)
		}
	}
	if len(h.Values("Access-Control-Allow-Origin")) > 0 {
		exposeSignals(h)
	}
}

// ceilSeconds returns d, positive, in whole seconds rounded up, without the overflow that
// adding a second less a nanosecond to a hint near the largest Duration would make.
func ceilSeconds(d time.Duration) int64 {
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return s
}

// secondsDuration returns s seconds as a Duration, the largest Duration when s seconds
// are more than it holds (a hint near the largest, rounded up).
func secondsDuration(s int64) time.Duration {
	if s > int64(math.MaxInt64/time.Second) {
		return math.MaxInt64
	}
	return time.Duration(s) * time.Second
}

// exposeSignals adds signalHeaders to h's Access-Control-Expose-Headers, keeping what it
// lists. A wildcard already exposes them, unless credentials are allowed, where it is a
// header name.
func exposeSignals(h http.Header) {
	listed := map[string]bool{}
	for _, v := range h.Values("Access-Control-Expose-Headers") {
		for name := range strings.SplitSeq(v, ",") {
			listed[strings.ToLower(strings.TrimSpace(name))] = true
		}
	}
	if listed["*"] && !strings.EqualFold(strings.TrimSpace(h.Get("Access-Control-Allow-Credentials")), "true") {
		return
	}
	var add []string
	for _, name := range signalHeaders {
		if !listed[strings.ToLower(name)] {
			add = append(add, name)
		}
	}
	if len(add) == 0 {
		return
	}
	if v := h.Values("Access-Control-Expose-Headers"); len(v) > 0 {
		add = append(v, add...)
	}
	h.Set("Access-Control-Expose-Headers", strings.Join(add, ", "))
}

func (w *layerWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// WriteString writes s, through the server's own WriteString when it has one, as
// io.WriteString asks.
func (w *layerWriter) WriteString(s string) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return io.WriteString(w.ResponseWriter, s)
}

// Push initiates an HTTP/2 server push, as http.Pusher does; it fails with
// http.ErrNotSupported when the server's writer cannot (HTTP/1, a client that refused
// pushes). It writes no header: pushes come before the answer.
func (w *layerWriter) Push(target string, opts *http.PushOptions) error {
	if p, ok := w.ResponseWriter.(http.Pusher); ok {
		return p.Push(target, opts)
	}
	return http.ErrNotSupported
}

// CloseNotify is the deprecated http.CloseNotifier's, for handlers that still ask for it:
// the server's channel, or one that never fires when the server's writer has none (the
// request's context says the same, and better).
func (w *layerWriter) CloseNotify() <-chan bool {
	//lint:ignore SA1019 the layer keeps what the server's writer offers
	if cn, ok := w.ResponseWriter.(http.CloseNotifier); ok {
		return cn.CloseNotify()
	}
	return make(chan bool)
}

// ReadFrom lets io.Copy reach the server's own ReadFrom (sendfile) through the wrapper.
func (w *layerWriter) ReadFrom(r io.Reader) (int64, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return io.Copy(w.ResponseWriter, r)
}

// FlushError flushes the response, writing a 200 header first if none was written, as
// http.Flusher does.
func (w *layerWriter) FlushError() error {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush is http.Flusher's Flush; FlushError reports the error it drops.
func (w *layerWriter) Flush() { _ = w.FlushError() }

// Hijack hands over the connection, as http.Hijacker does; it fails with
// http.ErrNotSupported when the server's writer cannot (HTTP/2).
func (w *layerWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.wrote = true
	}
	return conn, rw, err
}

// Unwrap returns the server's writer, for http.ResponseController.
func (w *layerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
