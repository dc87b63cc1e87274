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

	"github.com/retrygen/retrygen/runtime"
)

// stallAt is a handler that stalls, on its first request, at one point of the stream:
// before its header, after its header, after its first event or in the middle of its
// second; it waits there until the client goes. Every later request gets two events,
// from the one after the Last-Event-ID it carries, and the sentinel.
func stallAt(point string, arrivals *atomic.Int32, lastIDs *[]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n := arrivals.Add(1)
		*lastIDs = append(*lastIDs, r.Header.Get("Last-Event-ID"))
		stall := func() { <-r.Context().Done() }
		if n == 1 && point == "before the header" {
			stall()
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		if n == 1 {
			switch point {
			case "after the header":
			case "after the first event":
				io.WriteString(w, "id: 1\ndata: \"e1\"\n\n")
			case "mid-event":
				io.WriteString(w, "id: 1\ndata: \"e1\"\n\nid: 2\ndata: \"e")
			}
			w.(http.Flusher).Flush()
			stall()
			return
		}
		from := 1
		if id := r.Header.Get("Last-Event-ID"); id != "" {
			fmt.Sscan(id, &from)
			from++
		}
		fmt.Fprintf(w, "id: %d\ndata: \"e%d\"\n\nid: %d\ndata: \"e%d\"\n\ndata: [DONE]\n\n", from, from, from+1, from+1)
	}
}

// A stream that stalls at any point is cut after the idle timeout and goes on as after a
// cut: a GET resumes with Last-Event-ID, and delivers every event once; a POST that is
// not retry-safe ends with an error that matches ErrStreamIdle and says how long it
// waited.
func TestStreamIdleTimeout(t *testing.T) {
	const idle = 20 * time.Second // under the engine's own 30s for a header
	for _, tc := range []struct {
		point     string
		delivered int      // by the POST before its stall
		resumed   []string // the GET's events
		lastIDs   []string // the Last-Event-ID of the GET's two requests
		what      string   // what the error says did not come
	}{
		{"before the header", 0, []string{"e1", "e2"}, []string{"", ""}, "response header"},
		{"after the header", 0, []string{"e1", "e2"}, []string{"", ""}, "byte"},
		{"after the first event", 1, []string{"e1", "e2", "e3"}, []string{"", "1"}, "byte"},
		{"mid-event", 1, []string{"e1", "e2", "e3"}, []string{"", "1"}, "byte"},
	} {
		t.Run(tc.point+"/GET", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var arrivals atomic.Int32
				var ids []string
				c := eventServer(t, stallAt(tc.point, &arrivals, &ids), WithJitterSource(func() float64 { return 0 }))
				start := time.Now()
				s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, []CallOption{WithStreamIdleTimeout(idle)})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				got := drainStream(s)
				if strings.Join(got, " ") != strings.Join(tc.resumed, " ") || s.Err() != nil {
					t.Errorf("events %q, err %v; want %q", got, s.Err(), tc.resumed)
				}
				if strings.Join(ids, ",") != strings.Join(tc.lastIDs, ",") {
					t.Errorf("Last-Event-ID %q, want %q", ids, tc.lastIDs)
				}
				// The idle timeout, then the backoff floor before a reconnection (none
				// before an attempt the engine retries, with jitter 0).
				want := idle + streamPolicy.InitialDelay
				if tc.point == "before the header" {
					want = idle
				}
				if el := time.Since(start); el != want {
					t.Errorf("took %v, want %v", el, want)
				}
			})
		})
		t.Run(tc.point+"/POST", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var arrivals atomic.Int32
				var ids []string
				c := eventServer(t, stallAt(tc.point, &arrivals, &ids))
				p := streamPolicy
				p.Idempotent = false
				s, err := OpenStream[string](t.Context(), c, NewRequest("POST"), &p, StreamConfig{}, []CallOption{WithStreamIdleTimeout(idle)})
				if err == nil {
					defer s.Close()
					got := drainStream(s)
					err = s.Err()
					var se *StreamError
					if !errors.As(err, &se) || se.Delivered != tc.delivered || len(got) != tc.delivered {
						t.Errorf("events %q, err %v; want a StreamError after %d events", got, err, tc.delivered)
					}
				} else if tc.point != "before the header" {
					t.Fatalf("OpenStream: %v", err)
				}
				if !errors.Is(err, runtime.ErrStreamIdle) || !errors.Is(err, runtime.ErrNotRetrySafe) || arrivals.Load() != 1 {
					t.Errorf("err = %v after %d requests; want one request, ErrStreamIdle and ErrNotRetrySafe", err, arrivals.Load())
				}
				if want := "no " + tc.what + " for 20s"; err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v, want it to say %q", err, want)
				}
			})
		})
	}
}

// heartbeats writes a comment every gap, n times, then an event and the sentinel.
func heartbeats(n int, gap time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		for range n {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(gap):
			}
			io.WriteString(w, ": ping\n\n")
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: \"e1\"\n\ndata: [DONE]\n\n")
	}
}

// Heartbeat comments are traffic: a stream that sends one every 30s for ten minutes is
// never idle for a minute. A first-event timeout ends the wait for an event all the same.
func TestStreamHeartbeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var arrivals atomic.Int32
		beat := heartbeats(20, 30*time.Second)
		c := eventServer(t, func(w http.ResponseWriter, r *http.Request) { arrivals.Add(1); beat(w, r) })
		s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, []CallOption{WithStreamIdleTimeout(time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if got := drainStream(s); len(got) != 1 || s.Err() != nil || arrivals.Load() != 1 {
			t.Errorf("events %q, err %v, %d requests; want one event on one connection", got, s.Err(), arrivals.Load())
		}
		s.Close()

		p := streamPolicy
		p.Idempotent = false
		start := time.Now()
		s, err = OpenStream[string](t.Context(), c, NewRequest("POST"), &p, StreamConfig{},
			[]CallOption{WithStreamIdleTimeout(time.Minute), WithFirstEventTimeout(2 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := drainStream(s)
		if len(got) != 0 || !errors.Is(s.Err(), runtime.ErrStreamIdle) || !strings.Contains(s.Err().Error(), "no first event for 2m0s") {
			t.Errorf("events %q, err %v; want the stream cut for its first event", got, s.Err())
		}
		if el := time.Since(start); el != 2*time.Minute {
			t.Errorf("cut after %v, want 2m", el)
		}
	})
}

// The idle bound comes from the call's option, else the spec's (StreamConfig), else
// DefaultStreamIdleTimeout; NoStreamIdleTimeout leaves a stalled stream to its context.
func TestStreamIdleDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  StreamConfig
		opts []CallOption
		want time.Duration // until the POST's stream ends
	}{
		{"default", StreamConfig{}, nil, DefaultStreamIdleTimeout},
		{"spec", StreamConfig{IdleTimeout: 90 * time.Second}, nil, 90 * time.Second},
		{"call over spec", StreamConfig{IdleTimeout: 90 * time.Second}, []CallOption{WithStreamIdleTimeout(time.Second)}, time.Second},
		{"off", StreamConfig{}, []CallOption{WithStreamIdleTimeout(NoStreamIdleTimeout)}, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var arrivals atomic.Int32
				var ids []string
				c := eventServer(t, stallAt("after the first event", &arrivals, &ids))
				ctx, cancel := contextWithTimeout(t, time.Hour)
				defer cancel()
				p := streamPolicy
				p.Idempotent = false
				start := time.Now()
				s, err := OpenStream[string](ctx, c, NewRequest("POST"), &p, tc.cfg, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				drainStream(s)
				if el := time.Since(start); el != tc.want {
					t.Errorf("ended after %v (%v), want %v", el, s.Err(), tc.want)
				}
			})
		})
	}
}

func contextWithTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}
