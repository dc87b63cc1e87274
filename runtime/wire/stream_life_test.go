package wire

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

	"github.com/retrygen/retrygen/internal/memnet"
	"github.com/retrygen/retrygen/runtime"
)

// eventServer serves h with net/http on an in-memory network, so that a response body
// is bound to its request's context as net/http binds it, and returns a client that
// reaches it. Both are closed when the test ends.
func eventServer(t *testing.T, h http.HandlerFunc, opts ...Option) *Client {
	t.Helper()
	n := memnet.New()
	srv, _, err := n.Serve("api.test:80", h)
	if err != nil {
		t.Fatal(err)
	}
	tr := n.Transport()
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	opts = append([]Option{WithHTTPClient(&http.Client{Transport: tr}), WithoutRetryBudget()}, opts...)
	c, err := NewClient("http://api.test", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ticker sends n events, one every gap, then the sentinel; it stops when the client goes.
func ticker(n int, gap time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		for i := 1; i <= n; i++ {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(gap):
			}
			fmt.Fprintf(w, "id: %d\ndata: \"e%d\"\n\n", i, i)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}
}

// AttemptTimeout and MaxElapsed bound getting a connection's response header, not the
// reading of a stream that keeps delivering events: 40 events over 2s under a 300ms
// bound arrive on one connection.
func TestStreamOutlivesAttemptBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*runtime.Policy)
		opts []CallOption
	}{
		{"AttemptTimeout", func(p *runtime.Policy) { p.AttemptTimeout = 300 * time.Millisecond }, nil},
		{"MaxElapsed", func(p *runtime.Policy) { p.MaxElapsed = 300 * time.Millisecond }, nil},
		{"WithAttemptTimeout", func(*runtime.Policy) {}, []CallOption{WithAttemptTimeout(300 * time.Millisecond)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var arrivals atomic.Int32
				tick := ticker(40, 50*time.Millisecond)
				c := eventServer(t, func(w http.ResponseWriter, r *http.Request) {
					arrivals.Add(1)
					tick(w, r)
				})
				p := streamPolicy
				tc.set(&p)
				start := time.Now()
				s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &p, StreamConfig{}, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				got := drainStream(s)
				if len(got) != 40 || s.Err() != nil || arrivals.Load() != 1 {
					t.Fatalf("%d events over %d connections, err %v; want 40 over 1", len(got), arrivals.Load(), s.Err())
				}
				if el := time.Since(start); el != 40*50*time.Millisecond {
					t.Errorf("took %v, want 2s", el)
				}
			})
		})
	}
}

// A connection whose response header does not come within AttemptTimeout is a failed
// attempt, retried: the bound still covers getting the response.
func TestStreamAttemptTimeoutBoundsTheHeader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var arrivals atomic.Int32
		tick := ticker(2, 0)
		c := eventServer(t, func(w http.ResponseWriter, r *http.Request) {
			if arrivals.Add(1) == 1 {
				<-r.Context().Done() // no header, ever
				return
			}
			tick(w, r)
		}, WithJitterSource(func() float64 { return 0 }))
		p := streamPolicy
		p.AttemptTimeout = 300 * time.Millisecond
		start := time.Now()
		s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &p, StreamConfig{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if el := time.Since(start); el != p.AttemptTimeout || arrivals.Load() != 2 {
			t.Errorf("opened after %v and %d attempts, want %v and 2", el, arrivals.Load(), p.AttemptTimeout)
		}
		if got := drainStream(s); len(got) != 2 || s.Err() != nil {
			t.Errorf("%d events, err %v", len(got), s.Err())
		}
	})
}

// nextInBackground runs Next until it returns false, on another goroutine, and returns
// a channel that gets the events' count then.
func nextInBackground(s *Stream[string]) <-chan int {
	done := make(chan int, 1)
	go func() { done <- len(drainStream(s)) }()
	return done
}

// Close ends a stream while another goroutine's Next waits for the body: Next returns
// false at once and Err matches ErrStreamClosed; the connection and its goroutines go.
func TestStreamCloseWhileNextReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := eventServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: \"a\"\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done() // nothing more until the client goes
		})
		s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		done := nextInBackground(s)
		synctest.Wait()
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if n := <-done; n != 1 || !errors.Is(s.Err(), ErrStreamClosed) {
			t.Errorf("%d events, err %v; want 1 and ErrStreamClosed", n, s.Err())
		}
		if s.Next() || s.Close() != nil {
			t.Error("a closed stream went on")
		}
	})
}

// Close ends a stream that is waiting to reconnect, and one whose reconnection is
// waiting between the engine's attempts, at once, without sending another request.
func TestStreamCloseWhileReconnecting(t *testing.T) {
	for _, tc := range []struct {
		name     string
		head     func(n int) string
		requests int
	}{
		// retry: 3000 holds the stream 3s before it reconnects.
		{"backoff", func(int) string { return "retry: 3000\ndata: \"a\"\n\n" }, 1},
		// A reconnection answered 503 with Retry-After: 3 waits 3s in the engine.
		{"engine wait", func(n int) string { return "data: \"a\"\n\n" }, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &cutServer{head: tc.head}
				var requests int
				hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
					if requests++; requests > 1 {
						return &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {"3"}}, Body: http.NoBody, Request: r}, nil
					}
					return srv.RoundTrip(r)
				})}
				c, err := NewClient("http://api.example.com", WithHTTPClient(hc), WithJitterSource(func() float64 { return 0 }))
				if err != nil {
					t.Fatal(err)
				}
				p := streamPolicy
				p.RetryAfter = true
				s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &p, StreamConfig{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				done := nextInBackground(s)
				time.Sleep(time.Second)
				s.Close()
				if n := <-done; n != 1 || !errors.Is(s.Err(), ErrStreamClosed) {
					t.Errorf("%d events, err %v; want 1 and ErrStreamClosed", n, s.Err())
				}
				if el := time.Since(start); el != time.Second || requests != tc.requests {
					t.Errorf("Next returned after %v and %d requests, want 1s and %d", el, requests, tc.requests)
				}
			})
		})
	}
}

// Closing from one goroutine while another reads, reconnects and waits, again and
// again, races with nothing and leaves nothing running.
func TestStreamCloseRacesWithNext(t *testing.T) {
	for i := range 50 {
		synctest.Test(t, func(t *testing.T) {
			srv := &cutServer{head: oneEventThenCut("0")}
			c := newCutClient(t, srv)
			s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			done := nextInBackground(s)
			time.Sleep(time.Duration(i) * 10 * time.Millisecond)
			go s.Close()
			s.Close()
			<-done
			if err := s.Err(); err != nil && !errors.Is(err, ErrStreamClosed) && !errors.Is(err, runtime.ErrExhausted) {
				t.Errorf("err %v", err)
			}
		})
	}
}

// Next after Close, and Close twice, are harmless; a stream that ended by itself keeps
// its end when it is closed.
func TestStreamCloseTwice(t *testing.T) {
	c := streamClient(t, func() io.Reader { return strings.NewReader("data: a\n\ndata: b\n\n") })
	r := NewRequest("GET")
	r.Path("/events")
	s, err := OpenStream[string](t.Context(), c, r, &getPolicy, StreamConfig{Text: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Next() {
		t.Fatal(s.Err())
	}
	first, second := s.Close(), s.Close()
	if first != nil || second != nil {
		t.Errorf("Close: %v, then %v", first, second)
	}
	if s.Next() || !errors.Is(s.Err(), ErrStreamClosed) {
		t.Errorf("Next after Close: err %v", s.Err())
	}
	if want := "GET /events: event stream closed"; s.Err().Error() != want {
		t.Errorf("error %q, want %q", s.Err(), want)
	}

	s, err = OpenStream[string](t.Context(), c, NewRequest("GET"), &getPolicy, StreamConfig{Text: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	drainStream(s)
	s.Close()
	if s.Next() || s.Err() != nil {
		t.Errorf("a stream that ended and was closed: err %v", s.Err())
	}
}

// Cancelling the context while the stream waits to reconnect ends it at once with the
// context's error.
func TestStreamCancelDuringReconnectWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cutServer{head: oneEventThenCut("3000")}
		c := newCutClient(t, srv)
		ctx, cancel := context.WithCancel(t.Context())
		s, err := OpenStream[string](ctx, c, NewRequest("GET"), &streamPolicy, StreamConfig{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		start := time.Now()
		done := nextInBackground(s)
		time.Sleep(time.Second)
		cancel()
		var se *StreamError
		if n := <-done; n != 1 || !errors.As(s.Err(), &se) || !errors.Is(s.Err(), context.Canceled) {
			t.Errorf("%d events, err %v; want 1 and a StreamError matching context.Canceled", n, s.Err())
		}
		if el := time.Since(start); el != time.Second || srv.count() != 1 {
			t.Errorf("Next returned after %v and %d requests, want 1s and 1", el, srv.count())
		}
	})
}
