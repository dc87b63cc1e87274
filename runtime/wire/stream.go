package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// bodyReader returns the request body for one exchange. The first exchange gets the body
// as built; a later one (a stream reconnecting) gets it again from its start when it can
// seek, as bytes, strings and in-memory multipart bodies can.
func (r *Request) bodyReader() (io.Reader, error) {
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
	// DecodeError picks an error model for a failed response's status, as DecodeError
	// does; nil when the operation declares none.
	DecodeError func(status int) any
}

// StreamError ends a stream that was cut and could not be resumed: the operation is not
// retry-safe, or reconnecting failed. Delivered says how many events the caller had
// received.
type StreamError struct {
	Method    string
	Path      string
	Delivered int
	Err       error
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("%s %s: event stream cut after %d events delivered: %v", e.Method, e.Path, e.Delivered, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }

// Stream is a server-sent event stream whose events' data decode into T. Read it with
// Next and Current, then check Err; Close it when done, or cancel the call's context.
// It starts no goroutine: the events are read in Next, on the caller's goroutine.
//
//	for s.Next() {
//		use(s.Current())
//	}
//	if err := s.Err(); err != nil { ... }
//
// When the connection is cut, a stream of a retry-safe operation reconnects with
// Last-Event-ID, after the server's retry interval when it sent one (else the
// operation's backoff), up to the policy's MaxAttempts times in a row without an event;
// each reconnection is a call of the engine, under the client's budget and breaker. A
// stream of an operation that is not retry-safe never sends its request again: Err is a
// *StreamError that says how many events were delivered. A stream that ends without its
// sentinel, at the end of a response, simply ends.
type Stream[T any] struct {
	ctx    context.Context
	client *Client
	req    *Request
	policy runtime.Policy
	cfg    StreamConfig
	set    callSettings

	attempts  int // made by every connection, for ResponseInfo
	resp      *http.Response
	events    *EventReader
	current   T
	event     Event
	delivered int
	err       error
	done      bool
}

// OpenStream sends r and returns its event stream once a 2xx response arrived. A failure
// before that is retried under p, like any call, and returned.
func OpenStream[T any](ctx context.Context, c *Client, r *Request, p *runtime.Policy, cfg StreamConfig, opts []CallOption) (*Stream[T], error) {
	s := &Stream[T]{ctx: ctx, client: c, req: r, cfg: cfg, set: settings(opts)}
	if p != nil {
		s.policy = *p
	}
	// The body is read by the caller, event by event, not within the attempt.
	s.policy.ReadBody = false
	if s.cfg.Accept == "" {
		s.cfg.Accept = "text/event-stream"
	}
	if s.cfg.Sentinel == "" {
		s.cfg.Sentinel = "[DONE]"
	}
	if err := s.connect(nil); err != nil {
		return nil, err
	}
	return s, nil
}

// connect sends the request, with Last-Event-ID when the stream has one.
func (s *Stream[T]) connect(extra http.Header) error {
	resp, err := s.client.send(s.ctx, s.req, &s.policy, s.cfg.Accept, extra, &s.set)
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
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "text/event-stream" {
			closeBody(resp)
			return fmt.Errorf("%s %s: the response is %q, not an event stream (does the request ask for one?)", s.req.method, s.req.path.String(), oneLineValue(ct))
		}
	}
	s.resp = resp
	id := ""
	if s.events != nil {
		id = s.events.LastEventID()
		retry, ok := s.events.Retry()
		s.events = NewEventReader(resp.Body)
		s.events.SetLastEventID(id)
		if ok {
			s.events.retry, s.events.retrySet = retry, true
		}
	} else {
		s.events = NewEventReader(resp.Body)
	}
	return nil
}

// Next reads the next event and reports whether there is one; false at the end of the
// stream, at its sentinel, or on an error (see Err).
func (s *Stream[T]) Next() bool {
	if s.done {
		return false
	}
	failures := 0
	for {
		ev, err := s.events.Next()
		if err == nil {
			if string(ev.Data) == s.cfg.Sentinel {
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
			return true
		}
		if err == io.EOF {
			s.finish(nil)
			return false
		}
		if errors.Is(err, ErrEventTooLarge) || s.ctx.Err() != nil {
			s.finish(s.cut(err))
			return false
		}
		// The connection was cut.
		s.resp.Body.Close()
		if !s.policy.Idempotent || s.policy.MaxAttempts < 2 {
			s.finish(s.cut(err))
			return false
		}
		failures++
		if failures >= s.policy.MaxAttempts {
			s.finish(s.cut(err))
			return false
		}
		if err := s.reconnect(failures); err != nil {
			s.finish(s.cut(err))
			return false
		}
	}
}

// reconnect waits the server's retry interval (else the policy's backoff) and connects
// again with Last-Event-ID.
func (s *Stream[T]) reconnect(failures int) error {
	wait, ok := s.events.Retry()
	if !ok {
		wait = s.policy.Wait(failures, 0, 0, rand.Float64())
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-s.ctx.Done():
			t.Stop()
			return s.ctx.Err()
		}
	}
	var extra http.Header
	if id := s.events.LastEventID(); id != "" {
		extra = http.Header{"Last-Event-Id": {id}}
	}
	return s.connect(extra)
}

// oneLineValue cuts a header value for an error message.
func oneLineValue(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
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
	return &StreamError{Method: s.req.method, Path: s.req.path.String(), Delivered: s.delivered, Err: err}
}

func (s *Stream[T]) finish(err error) {
	s.done, s.err = true, err
	var zero T
	s.current = zero
	if s.resp != nil {
		// Closed undrained: the server may hold the stream open after its sentinel.
		s.resp.Body.Close()
		s.resp = nil
	}
}

// Current returns the event Next read.
func (s *Stream[T]) Current() T { return s.current }

// Event returns the type and last event ID of the event Next read; its Data is empty.
func (s *Stream[T]) Event() Event { return s.event }

// Delivered returns how many events Next has returned.
func (s *Stream[T]) Delivered() int { return s.delivered }

// Err returns what ended the stream, nil when it ended normally (its sentinel, or the
// end of the response).
func (s *Stream[T]) Err() error { return s.err }

// Close ends the stream and closes its response. It is safe to call more than once.
func (s *Stream[T]) Close() error {
	if s.resp != nil {
		err := s.resp.Body.Close()
		s.resp = nil
		s.done = true
		return err
	}
	s.done = true
	return nil
}
