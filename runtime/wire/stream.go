package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/internal/giveup"
	"github.com/retrygen/retrygen/runtime/internal/sent"
)

// bodyReader returns the request body for one exchange. The first exchange gets the body
// as built; a later one (a stream reconnecting) gets it again from its start when it can
// seek, as bytes, strings and in-memory multipart bodies can.
func (r *Request) bodyReader() (io.Reader, error) {
	if r.src != nil {
		return r.src.reader()
	}
	if r.body == nil {
		return nil, nil
	}
	s, seeks := r.body.(io.Seeker)
	if !r.sent {
		r.sent = true
		if seeks {
			if off, err := s.Seek(0, io.SeekCurrent); err == nil {
				r.bodyStart = off
			}
		}
		return r.body, nil
	}
	if !seeks {
		return nil, runtime.ErrBodyNotReplayable
	}
	if _, err := s.Seek(r.bodyStart, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%w: %w", runtime.ErrBodyNotReplayable, err)
	}
	return r.body, nil
}

func asRuntimeError(err error) *runtime.Error {
	var e *runtime.Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// StreamConfig describes one operation's event stream.
type StreamConfig struct {
	// Accept is the Accept header sent, e.g. "text/event-stream".
	Accept string
	// Sentinel is the data that ends the stream, e.g. "[DONE]"; "" means "[DONE]".
	Sentinel string
	// Text makes each event's data the value as is (a string type) instead of JSON.
	Text bool
	// Lines reads the body as JSON values, one a line (application/x-ndjson,
	// application/jsonl, application/json-seq, application/json;stream=watch), rather
	// than as server-sent events; see NewLineReader. Such a stream has no event IDs to
	// resume from: once a value was delivered, a cut ends it.
	Lines bool
	// DecodeError picks an error model for a failed response's status, as DecodeError
	// does; nil when the operation declares none.
	DecodeError func(status int) any
	// ErrorEvent is the type of the error event the spec declares, besides "error";
	// ErrorModel decodes an error event's data into the model the spec declares for it
	// (nil when it declares none, or when the data does not decode).
	ErrorEvent string
	ErrorModel func(data []byte) any
	// IdleTimeout is how long the stream may go without a byte, the spec's
	// x-stream-idle-timeout; 0 means DefaultStreamIdleTimeout (see WithStreamIdleTimeout).
	IdleTimeout time.Duration
	// Accumulate is how the events are deltas of the operation's JSON response
	// (AccumulateOpenAI, AccumulateAnthropic), for Stream.Accumulate; "" when they are
	// not.
	Accumulate string
}

// StreamError ends a stream that was cut and could not be resumed: the operation is not
// retry-safe, its reconnections ran out, or reconnecting failed. Delivered says how many
// events the caller had received, Reconnects how many times the stream had reconnected.
// errors.Is reaches why it was not resumed (runtime.ErrNotRetrySafe, runtime.ErrExhausted,
// runtime.ErrBudgetExhausted, runtime.ErrCircuitOpen, ...) and the error that cut it.
type StreamError struct {
	Method     string
	Path       string
	Delivered  int
	Reconnects int
	Err        error
}

func (e *StreamError) Error() string {
	if e.Reconnects > 0 {
		return fmt.Sprintf("%s %s: event stream cut after %d events delivered and %d reconnections: %v", e.Method, e.Path, e.Delivered, e.Reconnects, e.Err)
	}
	return fmt.Sprintf("%s %s: event stream cut after %d events delivered: %v", e.Method, e.Path, e.Delivered, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }

// DefaultMaxReconnects is how many times a stream reconnects over its life unless
// WithMaxReconnects says otherwise.
const DefaultMaxReconnects = 10

// WithMaxReconnects lets a stream reconnect at most n times over its life instead of
// DefaultMaxReconnects; n < 1 means never. Other calls ignore it.
func WithMaxReconnects(n int) CallOption {
	return func(s *callSettings) { s.maxReconnects, s.reconnectsSet = max(n, 0), true }
}

// WithMaxEventSize lets one event of a stream hold at most n bytes of data (and one line
// n bytes) instead of DefaultMaxEventSize; a larger event ends the stream with a
// *StreamError that matches ErrEventTooLarge. n < 1 means the default. Other calls ignore
// it.
func WithMaxEventSize(n int) CallOption {
	return func(s *callSettings) { s.maxEventSize = max(n, 0) }
}

// ErrStreamClosed is what a stream's Err matches once Close ended it before it ended by
// itself.
var ErrStreamClosed = runtime.ErrStreamClosed

// Stream is a server-sent event stream whose events' data decode into T. Read it with
// Next and Current, then check Err; Close it when done, or cancel the call's context.
// It starts no goroutine: the events are read in Next, on the caller's goroutine.
//
//	for s.Next() {
//		use(s.Current())
//	}
//	if err := s.Err(); err != nil { ... }
//
// Close may be called from any goroutine, while Next waits for an event or to reconnect
// too: Next then returns false at once and Err matches ErrStreamClosed. The other methods
// belong to the goroutine that reads the stream.
//
// The policy's AttemptTimeout and MaxElapsed bound each connection until its response
// header arrives (runtime.WithStreamedBody), not the events: a stream that keeps
// delivering them lives until it ends, is closed or its context is done.
//
// When the connection is cut, a stream of a retry-safe operation reconnects with
// Last-Event-ID. It reconnects at most DefaultMaxReconnects times over its life (see
// WithMaxReconnects), however many events arrive in between, and at most the policy's
// MaxAttempts-1 times in a row without an event; then Err is a *StreamError that
// matches runtime.ErrExhausted. Before reconnection n it waits the policy's backoff for
// retry n (jittered with the client's jitter source) on top of a floor: the policy's
// InitialDelay, or the server's retry: interval when that is longer. The server's
// interval counts up to the longer of the policy's MaxRetryAfter and MaxDelay, so a
// retry: 0 does not make the stream reconnect at once, and a huge one does not hold it
// for hours. Each reconnection is a retry for the client's budget (one the budget
// refuses ends the stream with runtime.ErrBudgetExhausted) and a call of the engine,
// under the client's breaker and with the policy's retries of its own. A stream of an
// operation that is not retry-safe never sends its request again: Err is a *StreamError
// that says how many events were delivered. A reconnection sends the idempotency key the
// first request sent, not a new one, and the stream's own last event ID (none when it
// has none), whatever Last-Event-ID the first request carried. A stream that ends
// without its sentinel, at the end of a response, simply ends.
//
// An error event in place of an event (type "error", a data object whose only member is
// "error", or StreamConfig.ErrorEvent) is never delivered: it is an *EventError,
// classified like the status it stands for (an overloaded server or a rate limit is
// retried, an invalid request is not). As a connection's first event it fails that
// attempt: the engine decides it as an answer with that status, under the policy, the
// budget, the breaker and the idempotency key, so the caller sees only the events of the
// attempt that succeeded, and the call's error carries the last one. After the first
// event, the stream resumes with Last-Event-ID when it can, and otherwise Err is a
// *StreamError that carries the *EventError and the events delivered. One event holds at
// most DefaultMaxEventSize bytes, or what WithMaxEventSize says.
type Stream[T any] struct {
	ctx    context.Context // the call's, ended by Close too
	stop   context.CancelCauseFunc
	client *Client
	req    *Request
	policy runtime.Policy // as the operation declares it, for the engine
	cfg    StreamConfig
	set    callSettings
	bounds streamBounds // how long a connection may go quiet

	// acc adds up the delivered events when they are deltas of a response (see
	// Accumulate); accErr is why it could not, accSize the data it took.
	acc     accumulator
	accErr  error
	accSize int64

	// wait is policy as the client's override changes it: the policy of reconnections.
	wait          runtime.Policy
	maxReconnects int
	reconnects    int           // made over the stream's life
	failures      int           // connections in a row cut before an event
	prevBackoff   time.Duration // the backoff before the last reconnection

	// key is the idempotency key the first connection sent, under the policy's header;
	// every reconnection sends it again, so that the server sees the request resumed.
	key string

	attempts int // made by every connection, for ResponseInfo
	events   *EventReader
	// opening is what the answer check of the connection being made read (see
	// firstEvent), and pending its first event, or the error that came in its place,
	// until Next takes it.
	opening   *firstRead
	pending   *firstRead
	current   T
	event     Event
	delivered int
	err       error
	done      bool

	// obs is the stream as the client's observer sees it: one call, each connection's
	// attempts its own.
	obs observation

	// mu guards what Close shares with the goroutine that reads the stream.
	mu     sync.Mutex
	resp   *http.Response // of the open connection; nil once it is closed
	closed bool           // Close was called
}

// OpenStream sends r and returns its event stream once a 2xx response and its first event
// (or its end) arrived. A failure before that, an error event in place of the first event
// included, is retried under p, like any call, and returned.
func OpenStream[T any](ctx context.Context, c *Client, r *Request, p *runtime.Policy, cfg StreamConfig, opts []CallOption) (*Stream[T], error) {
	s := &Stream[T]{client: c, req: r, cfg: cfg, set: c.settings(opts), obs: observation{kind: runtime.KindStream}}
	s.set.observed = &s.obs
	s.ctx, s.stop = context.WithCancelCause(ctx)
	if p != nil {
		s.policy = *p
	}
	// The body is read by the caller, event by event, not within the attempt, and for
	// as long as events come: the attempt's bounds end with its response header.
	s.policy.ReadBody = false
	s.set.runtime = append(slices.Clip(s.set.runtime), runtime.WithStreamedBody(), runtime.WithAnswerCheck(s.firstEvent))
	s.bounds = bounds(&s.set, &s.cfg)
	s.acc = newAccumulator(cfg.Accumulate)
	if o := s.bounds.headerOption(); o != nil {
		s.set.runtime = append(s.set.runtime, o)
	}
	// Reconnections are decided under the policy the engine makes the call by, the
	// call's options included. An option that cannot apply fails the first connection.
	s.wait = s.policy
	if w, err := c.engine.CallPolicy(&s.policy, s.set.runtime...); err == nil {
		s.wait = w
	}
	s.maxReconnects = DefaultMaxReconnects
	if s.set.reconnectsSet {
		s.maxReconnects = s.set.maxReconnects
	}
	if s.cfg.Accept == "" {
		s.cfg.Accept = "text/event-stream"
	}
	if s.cfg.Sentinel == "" && !s.cfg.Lines {
		s.cfg.Sentinel = "[DONE]"
	}
	if err := s.connect(&s.set, nil); err != nil {
		s.obs.end(s.obs.attempts(), err, s.ctx.Err() == nil && loadStop(err))
		s.stop(nil)
		return nil, err
	}
	return s, nil
}

// connect sends the request under set, with extra headers.
func (s *Stream[T]) connect(set *callSettings, extra http.Header) error {
	resp, err := s.client.send(s.ctx, s.req, &s.policy, s.cfg.Accept, extra, set)
	if info := s.set.info; info != nil {
		s.attempts += info.Attempts
		info.Attempts = s.attempts
	}
	if err != nil {
		if s.cfg.DecodeError != nil {
			err = DecodeError(err, s.cfg.DecodeError)
		}
		return err
	}
	if ct := resp.Header.Get("Content-Type"); !s.streams(ct) {
		closeBody(resp)
		what := "an event stream"
		if s.cfg.Lines {
			what = "a stream of JSON values"
		}
		return fmt.Errorf("%s %s: %w: %s, not %s (does the request ask for one?)", s.req.method, s.req.path.String(), ErrContentType, quoteMedia(ct), what)
	}
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.resp = resp
	}
	s.mu.Unlock()
	if closed {
		resp.Body.Close()
		return s.closedError()
	}
	if name := s.wait.IdempotencyKey; name != "" && s.key == "" && resp.Request != nil {
		s.key = resp.Request.Header.Get(name)
	}
	first := s.opening
	s.opening = nil
	if first == nil || first.body != resp.Body {
		resp.Body = watch(resp.Body, s.bounds)
		first = &firstRead{reader: s.newReader(resp.Body), unread: true}
	}
	s.events, s.pending = first.reader, first
	return nil
}

// streams reports whether a response of Content-Type ct is the stream asked for: an event
// stream, or for Lines JSON of any media type (Kubernetes answers a watch as
// application/json). An absent Content-Type is taken for it.
func (s *Stream[T]) streams(ct string) bool {
	if ct == "" {
		return true
	}
	if s.cfg.Lines {
		switch mediaType(ct) {
		case "application/x-ndjson", "application/jsonl", "application/x-jsonlines", "application/json-seq":
			return true
		}
		return isJSONType(ct)
	}
	return mediaType(ct) == "text/event-stream"
}

// firstRead is the start of one connection's events: its reader, and the first event or
// the error that came in its place (nothing read yet when unread).
type firstRead struct {
	body   io.Reader
	reader *EventReader
	ev     Event
	err    error
	unread bool
}

// newReader returns the reader of a connection's events, which carries on the last event
// ID and the retry interval of the stream's previous connection.
func (s *Stream[T]) newReader(body io.Reader) *EventReader {
	r := NewEventReader(body)
	r.MaxEventSize, r.Lines = s.set.maxEventSize, s.cfg.Lines
	if s.events != nil {
		r.SetLastEventID(s.events.LastEventID())
		if retry, ok := s.events.Retry(); ok {
			r.retry, r.retrySet = retry, true
		}
	}
	return r
}

// firstEvent is the answer check of each connection (runtime.WithAnswerCheck): it reads
// the connection's first event and fails the attempt with it when it is an error event,
// so that the engine decides it as the status it stands for, under the policy, the
// budget and the breaker, as any failed attempt. Any other first event, or a cut before
// one, waits for Next.
func (s *Stream[T]) firstEvent(resp *http.Response) error {
	s.opening = nil
	if !s.streams(resp.Header.Get("Content-Type")) {
		return nil // connect refuses it
	}
	resp.Body = watch(resp.Body, s.bounds) // the engine closes what resp.Body is
	first := &firstRead{body: resp.Body, reader: s.newReader(resp.Body)}
	first.ev, first.err = first.reader.Next()
	if w, ok := resp.Body.(*watchdog); ok && first.err == nil {
		w.sawEvent()
	}
	if first.err == nil {
		if ee := errorEvent(first.ev, s.cfg.ErrorEvent); ee != nil {
			s.decodeModel(ee, resp.Request)
			return ee
		}
	}
	s.opening = first
	return nil
}

// decodeModel sets ee's Model: its data decoded into the stream's error event model, or
// else into the error model the operation declares for the status it stands for, with the
// credentials of req, the request it answers, hidden in its strings, as they are in its
// Code and Message, which its text shows.
func (s *Stream[T]) decodeModel(ee *EventError, req *http.Request) {
	if req != nil {
		ee.Code, ee.Message = sent.HideText(req, ee.Code), sent.HideText(req, ee.Message)
	}
	data, ok := sent.HideRequestJSON(req, ee.Data)
	switch {
	case !ok:
	case s.cfg.ErrorModel != nil:
		ee.Model = s.cfg.ErrorModel(data)
	case s.cfg.DecodeError != nil && ee.StatusCode != 0:
		if m := s.cfg.DecodeError(ee.StatusCode); m != nil && json.Unmarshal(data, m) == nil {
			ee.Model = m
		}
	}
}

// Next reads the next event and reports whether there is one; false at the end of the
// stream, at its sentinel, once it is closed, or on an error (see Err).
func (s *Stream[T]) Next() bool {
	if s.done {
		return false
	}
	if s.isClosed() {
		s.finish(s.closedError())
		return false
	}
	for {
		ev, err := s.next()
		if err == nil {
			if ee := errorEvent(ev, s.cfg.ErrorEvent); ee != nil {
				if s.failed(ee) {
					continue
				}
				return false
			}
			return s.deliver(ev)
		}
		switch {
		case s.isClosed():
			s.end(err)
		case s.ctx.Err() != nil:
			// The call's context ended the stream, which a transport may tell as the end
			// of the body (net/http's HTTP/1 does at times): it is no normal end.
			if !errors.Is(err, s.ctx.Err()) {
				err = s.ctx.Err()
			}
			s.end(err)
		case err == io.EOF:
			s.finish(nil)
		case errors.Is(err, ErrEventTooLarge):
			s.end(err)
		default:
			// The connection was cut.
			s.closeResponse()
			if err := s.reconnect(err); err != nil {
				s.end(err)
				return false
			}
			continue
		}
		return false
	}
}

// next returns the next event of the open connection: its first, which its answer check
// read, then the ones that follow.
func (s *Stream[T]) next() (Event, error) {
	if p := s.pending; p != nil {
		s.pending = nil
		if !p.unread {
			return p.ev, p.err
		}
	}
	return s.events.Next()
}

// deliver makes ev the current event and reports whether it is one: false, the stream
// finished, at the sentinel or when its data does not decode.
func (s *Stream[T]) deliver(ev Event) bool {
	if s.cfg.Sentinel != "" && string(ev.Data) == s.cfg.Sentinel {
		s.finish(nil)
		return false
	}
	var v T
	if err := s.decode(ev.Data, &v); err != nil {
		s.finish(fmt.Errorf("%s %s: event %d: %w", s.req.method, s.req.path.String(), s.delivered+1, err))
		return false
	}
	s.current, s.event = v, Event{Type: ev.Type, ID: ev.ID}
	s.delivered++
	s.failures = 0
	s.accumulate(ev.Data)
	return true
}

// failed handles an error event that follows a connection's first event (the first one
// is the connection's answer check's, see firstEvent), and reports whether the stream goes
// on. When the stream can resume with Last-Event-ID and the error stands for a status the
// policy retries, it is the connection's failure: the stream reconnects as after a cut,
// under the same rules (a retry-safe operation only, the policy's attempts, the budget,
// the backoff). Otherwise it ends the stream with the error.
func (s *Stream[T]) failed(ee *EventError) bool {
	s.decodeModel(ee, s.request())
	s.closeResponse()
	if ee.StatusCode == 0 || !s.wait.RetriesStatus(ee.StatusCode) || s.events.LastEventID() == "" {
		s.end(ee)
		return false
	}
	s.client.engine.Budget.Failed(time.Now())
	if err := s.reconnect(ee); err != nil {
		s.end(err)
		return false
	}
	return true
}

// reconnect connects again with Last-Event-ID after a connection was cut by cut, when
// the policy (as WithoutRetry, WithMaxAttempts, WithIdempotent and WithIdempotencyKey
// change it), the stream's reconnections and the client's budget allow, once it has
// waited the backoff (see Stream). Its error is why the stream ends.
func (s *Stream[T]) reconnect(cut error) error {
	p := &s.wait
	maxAttempts := p.MaxAttempts
	if maxAttempts == 0 {
		maxAttempts = runtime.DefaultMaxAttempts
	}
	s.failures++
	switch {
	case !p.Idempotent:
		return fmt.Errorf("%w: %w", runtime.ErrNotRetrySafe, cut)
	case s.cfg.Lines && s.delivered > 0:
		return fmt.Errorf("%w: %w", errNoResume, cut)
	case maxAttempts < 2:
		return fmt.Errorf("%w: %w", runtime.ErrRetriesOff, cut)
	case s.reconnects >= s.maxReconnects:
		return fmt.Errorf("%w: %d reconnections allowed: %w", runtime.ErrExhausted, s.maxReconnects, cut)
	case s.failures >= maxAttempts:
		return fmt.Errorf("%w: %d connections in a row cut before an event: %w", runtime.ErrExhausted, s.failures, cut)
	case !s.client.engine.Budget.Withdraw(time.Now()):
		return fmt.Errorf("%w: %w", runtime.ErrBudgetExhausted, cut)
	}
	s.reconnects++
	wait := s.backoff()
	s.obs.wait(s.waitInfo(wait))
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-s.ctx.Done():
			t.Stop()
			return s.ctx.Err()
		}
	}
	// The stream's own last event ID, sent after every other header, replaces the one
	// the first request carried (a header parameter, or the caller's WithHeader); none
	// is sent when the stream has none.
	extra := http.Header{lastEventIDHeader: nil}
	if s.key != "" {
		extra.Set(s.wait.IdempotencyKey, s.key)
	}
	set := s.set
	id := s.events.LastEventID()
	set.lastEventID, set.lastEventIDSet = id, id != ""
	return s.connect(&set, extra)
}

// waitInfo describes the wait before a reconnection for the observer: the server's
// retry: interval, when it is the floor under the backoff, or the backoff.
func (s *Stream[T]) waitInfo(wait time.Duration) runtime.WaitInfo {
	w := runtime.WaitInfo{Attempt: s.obs.attempts(), Delay: wait, Cause: runtime.WaitBackoff}
	if retry, ok := s.events.Retry(); ok && retry > s.wait.InitialDelay {
		w.Cause, w.RetryAfter = runtime.WaitRetryAfter, min(retry, max(s.wait.MaxRetryAfter, s.wait.MaxDelay))
	}
	return w
}

// errNoResume ends a stream of JSON values cut after a value was delivered: sent again,
// the request would deliver the values from the start.
var errNoResume = errors.New("not resumed: a stream of JSON values has no event IDs to resume from")

// backoff returns the wait before the reconnection s.reconnects counts: the policy's
// backoff for that retry on top of the floor, the longer of the policy's InitialDelay
// and the server's retry: interval (that one cut to the longer of MaxRetryAfter and
// MaxDelay).
func (s *Stream[T]) backoff() time.Duration {
	p := &s.wait
	floor := max(p.InitialDelay, 0)
	if retry, ok := s.events.Retry(); ok {
		floor = max(floor, min(retry, max(p.MaxRetryAfter, p.MaxDelay)))
	}
	rnd := rand.Float64
	if s.client.engine.Rand != nil {
		rnd = s.client.engine.Rand
	}
	b := p.Backoff(s.reconnects, s.prevBackoff, rnd())
	s.prevBackoff = b
	if floor > math.MaxInt64-b {
		return math.MaxInt64
	}
	return floor + b
}

func (s *Stream[T]) decode(data []byte, v *T) error {
	if s.cfg.Text {
		if p, ok := any(v).(*string); ok {
			*p = string(data)
			return nil
		}
	}
	return json.Unmarshal(data, v)
}

func (s *Stream[T]) cut(err error) error {
	return &StreamError{Method: s.req.method, Path: s.req.path.String(), Delivered: s.delivered, Reconnects: s.reconnects, Err: err}
}

// finish ends the stream with err, nil for a normal end, and frees its connection.
func (s *Stream[T]) finish(err error) {
	s.finishAs(err, false)
}

// finishAs is finish for a stream that gave up for load reasons when gaveUp.
func (s *Stream[T]) finishAs(err error, gaveUp bool) {
	s.done, s.err = true, err
	s.obs.end(s.obs.attempts(), err, gaveUp)
	var zero T
	s.current = zero
	// Closed undrained: the server may hold the stream open after its sentinel.
	s.closeResponse()
	s.stop(nil)
}

// end finishes the stream after why made it stop: as closed when Close did that, else
// with a *StreamError.
func (s *Stream[T]) end(why error) {
	if s.isClosed() {
		s.finish(s.closedError())
		return
	}
	gaveUp := s.ctx.Err() == nil && loadStop(why)
	if gaveUp {
		giveup.Record(s.ctx, 0, s.client.layerObserver()) // for runtime.OneRetryLayer, as the engine records a call
	}
	s.finishAs(s.cut(why), gaveUp)
}

// loadStop reports whether a stream stopped for load reasons: its reconnections ran out,
// the budget or the breaker refused one, or the server said not to retry.
func loadStop(why error) bool {
	for _, load := range []error{runtime.ErrExhausted, runtime.ErrBudgetExhausted, runtime.ErrCircuitOpen,
		runtime.ErrServerSaidNoRetry, runtime.ErrRetryAfterTooLong} {
		if errors.Is(why, load) {
			return true
		}
	}
	return false
}

func (s *Stream[T]) closedError() error {
	return fmt.Errorf("%s %s: %w", s.req.method, s.req.path.String(), ErrStreamClosed)
}

func (s *Stream[T]) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// request returns the request of the open connection's response; nil when none.
func (s *Stream[T]) request() *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resp == nil {
		return nil
	}
	return s.resp.Request
}

// closeResponse closes the open connection's response, if there is one.
func (s *Stream[T]) closeResponse() error {
	s.mu.Lock()
	resp := s.resp
	s.resp = nil
	s.mu.Unlock()
	if resp == nil {
		return nil
	}
	return resp.Body.Close()
}

// Current returns the event Next read.
func (s *Stream[T]) Current() T { return s.current }

// Event returns the type and last event ID of the event Next read; its Data is empty.
func (s *Stream[T]) Event() Event { return s.event }

// Delivered returns how many events Next has returned.
func (s *Stream[T]) Delivered() int { return s.delivered }

// Err returns what ended the stream, nil when it ended normally (its sentinel, or the
// end of the response); an error matching ErrStreamClosed when Close ended it first.
func (s *Stream[T]) Err() error { return s.err }

// Close ends the stream and closes its response; calling it again does nothing. It may
// be called from any goroutine, while Next runs too: Next then returns false at once,
// whether it waits for an event, to reconnect or for the engine, and Err matches
// ErrStreamClosed. The response body is closed while Next may be reading it, which
// net/http's bodies allow.
func (s *Stream[T]) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop(ErrStreamClosed)
	if s.obs.o != nil {
		s.obs.end(s.obs.attempts(), s.closedError(), false) // unless Next ended it first
	}
	return s.closeResponse()
}
