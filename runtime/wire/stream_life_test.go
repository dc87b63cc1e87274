package wire

import (
	"fmt"
	"io"
	"net/http"
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
