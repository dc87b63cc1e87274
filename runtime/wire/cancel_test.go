package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// heartbeatBody sends events, then a heartbeat comment each second until its request's
// context is done, and then reads as the end of the body: net/http's HTTP/1 transport may
// report a cancelled request's body so.
type heartbeatBody struct {
	ctx    context.Context
	events []string
}

func (b *heartbeatBody) Read(p []byte) (int, error) {
	if len(b.events) > 0 {
		n := copy(p, b.events[0])
		b.events = b.events[1:]
		return n, nil
	}
	select {
	case <-b.ctx.Done():
		return 0, io.EOF
	case <-time.After(time.Second):
		return copy(p, ": keep-alive\n\n"), nil
	}
}

func (b *heartbeatBody) Close() error { return nil }

// A stream cancelled while only heartbeats arrive, before its first event or after some,
// ends with an error matching context.Canceled, even when the transport reports the cut
// as the end of the body: a caller can tell a cancel from a stream that finished.
func TestStreamCancelledDuringHeartbeats(t *testing.T) {
	for _, events := range [][]string{nil, {"data: a\n\n", "data: b\n\n"}} {
		t.Run(fmt.Sprint(len(events), " events"), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
					return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
						Body: &heartbeatBody{ctx: r.Context(), events: events}, Request: r}, nil
				})}
				c, err := NewClient("http://api.example.com", WithHTTPClient(hc))
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				time.AfterFunc(10*time.Second, cancel)
				s, err := OpenStream[string](ctx, c, NewRequest("GET"), &runtime.Policy{MaxAttempts: 3, Idempotent: true}, StreamConfig{Text: true}, nil)
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for s.Next() {
					n++
				}
				if n != len(events) || !errors.Is(s.Err(), context.Canceled) {
					t.Errorf("%d events, err %v; want %d and an error matching context.Canceled", n, s.Err(), len(events))
				}
			})
		})
	}
}
