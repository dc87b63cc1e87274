package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// cutServer answers every request 200 with the events that head writes for it, then cuts
// the connection (the body fails with io.ErrUnexpectedEOF); from the 101st request on it
// answers an empty stream. It records when each request
// came and the Last-Event-ID it carried.
type cutServer struct {
	head func(n int) string // the body before the cut of request n, from 1

	mu    sync.Mutex
	times []time.Time
	ids   []string
	keys  []string // the Idempotency-Key of each request
}

func (s *cutServer) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.times = append(s.times, time.Now())
	s.ids = append(s.ids, r.Header.Get("Last-Event-ID"))
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	n := len(s.times)
	s.mu.Unlock()
	if n > 100 { // a stream that never stops reconnecting ends here, normally, and fails its test
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: http.NoBody, Request: r}, nil
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(io.MultiReader(strings.NewReader(s.head(n)), errReader{io.ErrUnexpectedEOF})), Request: r}, nil
}

// gaps returns the waits between consecutive requests.
func (s *cutServer) gaps() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []time.Duration
	for i := 1; i < len(s.times); i++ {
		out = append(out, s.times[i].Sub(s.times[i-1]))
	}
	return out
}

func (s *cutServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.times)
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// oneEventThenCut sends one event, with an ID, and the retry field given.
func oneEventThenCut(retry string) func(n int) string {
	return func(n int) string {
		return fmt.Sprintf("retry: %s\nid: %d\ndata: \"e%d\"\n\n", retry, n, n)
	}
}

var streamPolicy = runtime.Policy{MaxAttempts: 3, InitialDelay: 100 * time.Millisecond, MaxDelay: time.Second,
	Multiplier: 2, Idempotent: true, ConnectionErrors: true, MaxRetryAfter: 5 * time.Second}

func newCutClient(t *testing.T, srv *cutServer, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithHTTPClient(&http.Client{Transport: srv})}, opts...)
	c, err := NewClient("http://api.example.com", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// drainStream reads s to its end and returns the events' data.
func drainStream(s *Stream[string]) []string {
	var got []string
	for s.Next() {
		got = append(got, s.Current())
	}
	return got
}

// A server that sends one event and cuts the connection, again and again, ends the
// stream after DefaultMaxReconnects reconnections, each one waiting at least the
// policy's InitialDelay although the server says retry: 0; the error says how many
// events were delivered and that reconnections ran out.
func TestStreamReconnectionsCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cutServer{head: oneEventThenCut("0")}
		c := newCutClient(t, srv, WithJitterSource(func() float64 { return 0 }))
		s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := drainStream(s)
		if len(got) != DefaultMaxReconnects+1 || srv.count() != DefaultMaxReconnects+1 {
			t.Fatalf("%d events over %d requests, want %d", len(got), srv.count(), DefaultMaxReconnects+1)
		}
		var se *StreamError
		if !errors.As(s.Err(), &se) || !errors.Is(s.Err(), runtime.ErrExhausted) || !errors.Is(s.Err(), io.ErrUnexpectedEOF) {
			t.Fatalf("err = %v, want a StreamError matching runtime.ErrExhausted", s.Err())
		}
		if se.Delivered != DefaultMaxReconnects+1 || se.Reconnects != DefaultMaxReconnects {
			t.Errorf("Delivered %d, Reconnects %d", se.Delivered, se.Reconnects)
		}
		want := fmt.Sprintf("after %d events delivered and %d reconnections: retry attempts exhausted", DefaultMaxReconnects+1, DefaultMaxReconnects)
		if !strings.Contains(se.Error(), want) {
			t.Errorf("error %q does not say %q", se.Error(), want)
		}
		for i, g := range srv.gaps() {
			if g != streamPolicy.InitialDelay {
				t.Errorf("reconnection %d after %v, want the floor %v", i+1, g, streamPolicy.InitialDelay)
			}
		}
		for i, id := range srv.ids[1:] {
			if want := fmt.Sprint(i + 1); id != want {
				t.Errorf("reconnection %d sent Last-Event-ID %q, want %q", i+1, id, want)
			}
		}
	})
}

// The waits are the floor plus the policy's backoff for the reconnection's number, drawn
// with the client's jitter source; a server's retry: above the floor raises the floor,
// and one above the longer of MaxRetryAfter and MaxDelay counts as that.
func TestStreamReconnectWaits(t *testing.T) {
	for _, tc := range []struct {
		retry string
		floor time.Duration
	}{
		{"0", streamPolicy.InitialDelay},
		{"300", 300 * time.Millisecond},
		{"86400000", streamPolicy.MaxRetryAfter},
	} {
		t.Run("retry "+tc.retry, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &cutServer{head: oneEventThenCut(tc.retry)}
				c := newCutClient(t, srv, WithJitterSource(func() float64 { return 0.5 }))
				s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, []CallOption{WithMaxReconnects(6)})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				drainStream(s)
				gaps := srv.gaps()
				if len(gaps) != 6 {
					t.Fatalf("%d reconnections, want 6 (err %v)", len(gaps), s.Err())
				}
				for i, g := range gaps {
					want := tc.floor + streamPolicy.Backoff(i+1, 0, 0.5)
					if g != want {
						t.Errorf("reconnection %d after %v, want %v", i+1, g, want)
					}
				}
			})
		})
	}
}

// WithMaxReconnects sets the cap; 0 means the stream never reconnects.
func TestStreamWithMaxReconnects(t *testing.T) {
	for _, n := range []int{0, 2} {
		synctest.Test(t, func(t *testing.T) {
			srv := &cutServer{head: oneEventThenCut("0")}
			c := newCutClient(t, srv)
			s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, []CallOption{WithMaxReconnects(n)})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got := drainStream(s)
			if len(got) != n+1 || srv.count() != n+1 || !errors.Is(s.Err(), runtime.ErrExhausted) {
				t.Errorf("WithMaxReconnects(%d): %d events, %d requests, err %v", n, len(got), srv.count(), s.Err())
			}
		})
	}
}

// Connections cut before any event end the stream after MaxAttempts-1 reconnections in
// a row, whatever is left of the stream's reconnections.
func TestStreamCutsInARow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cutServer{head: func(n int) string {
			if n == 1 {
				return "data: \"first\"\n\n"
			}
			return ": nothing\n\n"
		}}
		c := newCutClient(t, srv)
		s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := drainStream(s)
		if len(got) != 1 || srv.count() != streamPolicy.MaxAttempts || !errors.Is(s.Err(), runtime.ErrExhausted) {
			t.Errorf("%d events, %d requests, err %v", len(got), srv.count(), s.Err())
		}
	})
}

// Each reconnection is a retry for the client's budget: a budget that allows none ends
// the stream at its first cut, without sending the request again.
func TestStreamReconnectBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cutServer{head: oneEventThenCut("0")}
		c := newCutClient(t, srv, WithRetryBudget(0, 0))
		s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := drainStream(s)
		if len(got) != 1 || srv.count() != 1 || !errors.Is(s.Err(), runtime.ErrBudgetExhausted) {
			t.Errorf("%d events, %d requests, err %v", len(got), srv.count(), s.Err())
		}
	})
}

// Each reconnection is a call under the client's breaker: once other calls opened it, a
// cut stream ends with runtime.ErrCircuitOpen instead of reconnecting.
func TestStreamReconnectBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var requests int
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			requests++
			if r.URL.Path == "/fail" {
				return &http.Response{StatusCode: 503, Body: http.NoBody, Request: r}, nil
			}
			body := io.MultiReader(strings.NewReader("data: \"a\"\n\n"), waitReader{release}, errReader{io.ErrUnexpectedEOF})
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
				Body: io.NopCloser(body), Request: r}, nil
		})}
		c, err := NewClient("http://api.example.com", WithHTTPClient(hc), WithCircuitBreaker(1, time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if !s.Next() {
			t.Fatal(s.Err())
		}
		fail := NewRequest("GET")
		fail.Path("/fail")
		if _, err := c.Call(context.Background(), fail, &runtime.Policy{MaxAttempts: 1}, "", nil); err == nil {
			t.Fatal("the failing call succeeded")
		}
		close(release)
		if s.Next() || !errors.Is(s.Err(), runtime.ErrCircuitOpen) || requests != 2 {
			t.Errorf("after the breaker opened: err %v, %d requests", s.Err(), requests)
		}
	})
}

// waitReader returns io.EOF once its channel is closed, so that a MultiReader goes on.
type waitReader struct{ c chan struct{} }

func (r waitReader) Read([]byte) (int, error) {
	<-r.c
	return 0, io.EOF
}

// A stream of an operation that is not retry-safe says so when it is cut.
func TestStreamNotRetrySafeCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cutServer{head: oneEventThenCut("0")}
		c := newCutClient(t, srv)
		p := streamPolicy
		p.Idempotent = false
		s, err := OpenStream[string](t.Context(), c, NewRequest("POST"), &p, StreamConfig{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := drainStream(s)
		var se *StreamError
		if len(got) != 1 || srv.count() != 1 || !errors.As(s.Err(), &se) || se.Delivered != 1 || !errors.Is(s.Err(), runtime.ErrNotRetrySafe) {
			t.Errorf("%d events, %d requests, err %v", len(got), srv.count(), s.Err())
		}
	})
}

// A stream of a POST that is retry-safe by its idempotency key reconnects with the key
// its first request carried, so that the server sees one request resumed, not a new one.
func TestStreamReconnectKeepsIdempotencyKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cutServer{head: oneEventThenCut("0")}
		c := newCutClient(t, srv)
		p := streamPolicy
		p.IdempotencyKey = "Idempotency-Key"
		s, err := OpenStream[string](t.Context(), c, NewRequest("POST"), &p, StreamConfig{}, []CallOption{WithMaxReconnects(3)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got := drainStream(s); len(got) != 4 {
			t.Fatalf("%d events, want 4: %v", len(got), s.Err())
		}
		if srv.keys[0] == "" {
			t.Fatal("the first request has no key")
		}
		for i, k := range srv.keys[1:] {
			if k != srv.keys[0] {
				t.Errorf("reconnection %d sent key %q, the first request %q", i+1, k, srv.keys[0])
			}
		}
	})
}

// The call options that change whether a call is repeated change whether its stream
// reconnects: WithoutRetry and WithMaxAttempts(1) send the request once, and
// WithIdempotent or WithIdempotencyKey make a POST's stream resumable.
func TestStreamReconnectCallOptions(t *testing.T) {
	post := streamPolicy
	post.Idempotent = false
	for _, tc := range []struct {
		name     string
		policy   *runtime.Policy
		opts     []CallOption
		requests int
		cause    error
	}{
		{"WithoutRetry", &streamPolicy, []CallOption{WithoutRetry()}, 1, runtime.ErrRetriesOff},
		{"WithMaxAttempts(1)", &streamPolicy, []CallOption{WithMaxAttempts(1)}, 1, runtime.ErrRetriesOff},
		{"WithMaxAttempts(2)", &streamPolicy, []CallOption{WithMaxAttempts(2), WithMaxReconnects(2)}, 3, runtime.ErrExhausted},
		{"WithIdempotent", &post, []CallOption{WithIdempotent(), WithMaxReconnects(2)}, 3, runtime.ErrExhausted},
		{"WithIdempotencyKey", &post, []CallOption{WithIdempotencyKey("k1"), WithMaxReconnects(2)}, 3, runtime.ErrExhausted},
		{"Runtime(WithoutRetry)", &streamPolicy, []CallOption{Runtime(runtime.WithoutRetry())}, 1, runtime.ErrRetriesOff},
		{"Runtime(WithIdempotent)", &post, []CallOption{Runtime(runtime.WithIdempotent()), WithMaxReconnects(2)}, 3, runtime.ErrExhausted},
		{"none", &post, nil, 1, runtime.ErrNotRetrySafe},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &cutServer{head: oneEventThenCut("0")}
				c := newCutClient(t, srv)
				s, err := OpenStream[string](t.Context(), c, NewRequest("POST"), tc.policy, StreamConfig{}, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				drainStream(s)
				if srv.count() != tc.requests || !errors.Is(s.Err(), tc.cause) {
					t.Errorf("%d requests, err %v; want %d, %v", srv.count(), s.Err(), tc.requests, tc.cause)
				}
			})
		})
	}
}

// resumeServer serves the events 1 to last, each with its number as ID, from the one
// after the request's Last-Event-ID; it cuts each connection after two events and ends
// with the sentinel. It records the Last-Event-ID of each request (absent: "-").
type resumeServer struct {
	last int
	ids  []string
}

func (s *resumeServer) RoundTrip(r *http.Request) (*http.Response, error) {
	id := "-"
	if v := r.Header.Values("Last-Event-ID"); v != nil {
		id = v[0]
	}
	s.ids = append(s.ids, id)
	from := 0
	fmt.Sscan(id, &from)
	var b strings.Builder
	for n := from + 1; n <= s.last && n <= from+2; n++ {
		fmt.Fprintf(&b, "id: %d\ndata: \"%d\"\n\n", n, n)
	}
	var body io.Reader = strings.NewReader(b.String())
	if from+2 < s.last {
		body = io.MultiReader(body, errReader{io.ErrUnexpectedEOF})
	} else {
		body = io.MultiReader(body, strings.NewReader("data: [DONE]\n\n"))
	}
	if len(s.ids) > 20 {
		body = http.NoBody
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(body), Request: r}, nil
}

// A Last-Event-ID the caller gives the first request (WithHeader, the engine's own
// WithHeader, or a header parameter) goes with it only: a reconnection sends the
// stream's own, so that no event comes twice.
func TestStreamReconnectSendsItsOwnLastEventID(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []CallOption
		req  func() *Request
	}{
		{"WithHeader", []CallOption{WithHeader("last-event-id", "5")}, nil},
		{"Runtime(WithHeader)", []CallOption{Runtime(runtime.WithHeader("Last-Event-ID", "5"))}, nil},
		{"header parameter", nil, func() *Request {
			r := NewRequest("GET")
			r.HeaderParam("Last-Event-ID", HeaderSimple, "5")
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &resumeServer{last: 9}
				c, err := NewClient("http://api.example.com", WithHTTPClient(&http.Client{Transport: srv}))
				if err != nil {
					t.Fatal(err)
				}
				r := NewRequest("GET")
				if tc.req != nil {
					r = tc.req()
				}
				s, err := OpenStream[string](t.Context(), c, r, &streamPolicy, StreamConfig{}, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				got := drainStream(s)
				if fmt.Sprint(got) != "[6 7 8 9]" || s.Err() != nil {
					t.Errorf("events %v, err %v; want [6 7 8 9]", got, s.Err())
				}
				if fmt.Sprint(srv.ids) != "[5 7]" {
					t.Errorf("Last-Event-IDs sent %v, want [5 7]", srv.ids)
				}
			})
		})
	}
}

// A stream whose server reset the last event ID (an empty id field) reconnects without
// Last-Event-ID, though the caller gave one for the first request.
func TestStreamReconnectAfterIDReset(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []CallOption
		req  func() *Request
	}{
		{"WithHeader", []CallOption{WithHeader("Last-Event-ID", "5")}, nil},
		{"header parameter", nil, func() *Request {
			r := NewRequest("GET")
			r.HeaderParam("Last-Event-ID", HeaderSimple, "5")
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { testReconnectAfterIDReset(t, tc.req, tc.opts) })
	}
}

func testReconnectAfterIDReset(t *testing.T, req func() *Request, opts []CallOption) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cutServer{head: func(n int) string {
			if n == 1 {
				return "id: 6\ndata: \"a\"\n\nid\ndata: \"b\"\n\n"
			}
			return "data: [DONE]\n\n"
		}}
		var sent []string
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			sent = append(sent, fmt.Sprintf("%q", r.Header.Values("Last-Event-ID")))
			return srv.RoundTrip(r)
		})}
		c, err := NewClient("http://api.example.com", WithHTTPClient(hc))
		if err != nil {
			t.Fatal(err)
		}
		r := NewRequest("GET")
		if req != nil {
			r = req()
		}
		s, err := OpenStream[string](t.Context(), c, r, &streamPolicy, StreamConfig{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		drainStream(s)
		if s.Err() != nil || fmt.Sprint(sent) != `[["5"] []]` {
			t.Errorf("Last-Event-IDs sent %v, err %v; want 5, then none", sent, s.Err())
		}
	})
}

// An event ID that cannot be sent as a header value (a control byte) is ignored, like
// one holding NUL: the stream reconnects with the last ID it can send, where net/http
// would refuse to send the other.
func TestStreamReconnectAfterUnsendableID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ids []string
		c := eventServer(t, func(w http.ResponseWriter, r *http.Request) {
			ids = append(ids, r.Header.Get("Last-Event-ID"))
			w.Header().Set("Content-Type", "text/event-stream")
			if len(ids) > 1 {
				io.WriteString(w, "data: [DONE]\n\n")
				return
			}
			io.WriteString(w, "id: 1\ndata: \"a\"\n\nid: a\x01b\ndata: \"b\"\n\n")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection is cut
		})
		s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := drainStream(s)
		if fmt.Sprint(got) != "[a b]" || s.Err() != nil || fmt.Sprintf("%q", ids) != `["" "1"]` {
			t.Errorf("events %v, err %v, Last-Event-IDs %q; want [a b], nil, then 1", got, s.Err(), ids)
		}
		if s.Event().ID != "1" {
			t.Errorf("Event().ID %q, want 1", s.Event().ID)
		}
	})
}
