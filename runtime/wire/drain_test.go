package wire

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/internal/memnet"
	"github.com/retrygen/retrygen/runtime"
)

// stallBody gives its data, then blocks until it is closed, as the body of a server that
// holds the connection does.
type stallBody struct {
	data   *strings.Reader
	closed chan struct{}
	once   sync.Once
	closes atomic.Int32
}

func newStallBody(data string) *stallBody {
	return &stallBody{data: strings.NewReader(data), closed: make(chan struct{})}
}

func (b *stallBody) Read(p []byte) (int, error) {
	if b.data.Len() > 0 {
		return b.data.Read(p)
	}
	<-b.closed
	return 0, errors.New("read on closed body")
}

func (b *stallBody) Close() error {
	b.closes.Add(1)
	b.once.Do(func() { close(b.closed) })
	return nil
}

// bounded runs f, which reads a body that stalls, and fails the test unless f returns
// after runtime.DrainTimeout exactly; when it does not, unblock ends the stall. It
// returns f's error.
func bounded(t *testing.T, unblock func(), f func() error) error {
	t.Helper()
	start := time.Now()
	var took time.Duration
	done := make(chan error, 1)
	go func() {
		err := f()
		took = time.Since(start)
		done <- err
	}()
	time.Sleep(runtime.DrainTimeout)
	synctest.Wait()
	select {
	case err := <-done:
		if took != runtime.DrainTimeout {
			t.Errorf("returned after %v, want %v", took, runtime.DrainTimeout)
		}
		return err
	default:
		unblock()
		<-done
		t.Fatalf("still reading the body after %v", runtime.DrainTimeout)
		return nil
	}
}

// G4 for what a method does with a body it does not decode, or no longer needs: the
// drain gives up after runtime.DrainTimeout and closes the body, whether the response is
// a declared 2xx without content, an undeclared 2xx, the rest of a decoded body or a body
// of the wrong type.
func TestDrainsAreBoundedInTime(t *testing.T) {
	tests := []struct {
		name, contentType, data string
		status                  int
		read                    func(resp *http.Response) error
		want                    error
	}{
		{"Discard", "", "", 200, Discard, nil},
		{"declared 200, no content", "", "", 200, func(resp *http.Response) error { return Expect(resp, nil, 200) }, nil},
		{"undeclared 201", "application/json", `{"id":1`, 201, func(resp *http.Response) error { return Expect(resp, nil, 200) }, ErrUndeclaredStatus},
		{"undeclared 203", "application/json", `{"id":1`, 203, func(resp *http.Response) error {
			var v map[string]int
			return DecodeDeclared(resp, &v, nil, 200)
		}, ErrUndeclaredStatus},
		{"after a JSON value", "application/json", `{"id":1} `, 200, func(resp *http.Response) error {
			var v map[string]int
			return DecodeJSON(resp, &v)
		}, nil},
		{"text of the wrong type", "text/html", "<html>", 200, func(resp *http.Response) error {
			var s string
			return DecodeText(resp, &s, "text/csv")
		}, ErrContentType},
		{"JSON of the wrong type", "text/plain", "hello", 200, func(resp *http.Response) error {
			var v map[string]int
			return DecodeJSONStrict(resp, &v)
		}, ErrContentType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				body := newStallBody(tt.data)
				resp := &http.Response{StatusCode: tt.status, Header: http.Header{}, Body: body}
				if tt.contentType != "" {
					resp.Header.Set("Content-Type", tt.contentType)
				}
				err := bounded(t, func() { body.Close() }, func() error { return tt.read(resp) })
				if n := body.closes.Load(); n != 1 {
					t.Errorf("body closed %d times, want once", n)
				}
				if !errors.Is(err, tt.want) {
					t.Errorf("err = %v, want %v", err, tt.want)
				}
				if e := asRuntimeError(err); e != nil && string(e.Body) != tt.data {
					t.Errorf("Error.Body = %q, want what came before the stall, %q", e.Body, tt.data)
				}
			})
		})
	}
}

// A stream answered with a 200 that is not an event stream, and whose body then stalls,
// fails after runtime.DrainTimeout rather than when the server lets go.
func TestStreamOfTheWrongTypeIsNotHeldByItsBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		body := newStallBody("<html>")
		hc := &http.Client{Transport: transportFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: body, Request: r}, nil
		})}
		c, err := NewClient("http://api.test", WithHTTPClient(hc))
		if err != nil {
			t.Fatal(err)
		}
		err = bounded(t, func() { body.Close() }, func() error {
			_, err := OpenStream[string](context.Background(), c, NewRequest("GET"), &runtime.Policy{MaxAttempts: 1}, StreamConfig{Text: true}, nil)
			return err
		})
		if n := body.closes.Load(); n != 1 {
			t.Errorf("body closed %d times, want once", n)
		}
		if err == nil || !strings.Contains(err.Error(), "not an event stream") {
			t.Errorf("err = %v", err)
		}
	})
}

// Over net/http: a body that declares more than the server sends, and then holds the
// connection, is cut after runtime.DrainTimeout, its connection closed.
func TestDrainOfABodyShorterThanDeclared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := memnet.New()
		srv, _, err := n.Serve("api.test:80", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			io.WriteString(w, "short")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		if err != nil {
			t.Fatal(err)
		}
		tr := n.Transport()
		defer func() {
			tr.CloseIdleConnections()
			srv.Close()
		}()
		c, err := NewClient("http://api.test", WithHTTPClient(&http.Client{Transport: tr}))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Call(context.Background(), NewRequest("GET"), &runtime.Policy{MaxAttempts: 1}, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		bounded(t, func() { resp.Body.Close() }, func() error { return Discard(resp) })
	})
}

type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
