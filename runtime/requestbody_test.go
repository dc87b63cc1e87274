package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

var errDisk = errors.New("disk read failed")

// failingBody gives good bytes, then fails with errDisk.
type failingBody struct{ good int }

func (b *failingBody) Read(p []byte) (int, error) {
	if b.good == 0 {
		return 0, errDisk
	}
	n := min(len(p), b.good)
	for i := range n {
		p[i] = 'x'
	}
	b.good -= n
	return n, nil
}

func (b *failingBody) Close() error { return nil }

// A request body whose reader fails is the caller's failure, not the server's: the call
// ends at once with ErrRequestBody wrapping the reader's error, whether the reader fails
// at its first read, midway, in a body GetBody made for a retry or in a redirect, or
// GetBody itself fails in a redirect; and the breaker does not count it.
func TestRequestBodyFailureIsTheCallers(t *testing.T) {
	tests := []struct {
		name     string
		redirect bool // the server answers the first request with a 307
		chunked  bool // the body's length is not known: net/http probes it, then chunks it
		first    func() io.ReadCloser
		getBody  func() (io.ReadCloser, error)
		attempts int
	}{
		{"first read", false, false,
			func() io.ReadCloser { return &failingBody{} },
			func() (io.ReadCloser, error) { return &failingBody{}, nil }, 1},
		{"first read, length unknown", false, true,
			func() io.ReadCloser { return &failingBody{} },
			func() (io.ReadCloser, error) { return &failingBody{}, nil }, 1},
		{"midway, length unknown", false, true,
			func() io.ReadCloser { return &failingBody{good: 4} },
			func() (io.ReadCloser, error) { return &failingBody{good: 4}, nil }, 1},
		{"midway", false, false,
			func() io.ReadCloser { return &failingBody{good: 4} },
			func() (io.ReadCloser, error) { return &failingBody{good: 4}, nil }, 1},
		{"GetBody's body, on the retry", false, false,
			func() io.ReadCloser { return io.NopCloser(strings.NewReader("xxxxxxxxxx")) },
			func() (io.ReadCloser, error) { return &failingBody{good: 4}, nil }, 2},
		{"GetBody's body, in a redirect", true, false,
			func() io.ReadCloser { return io.NopCloser(strings.NewReader("xxxxxxxxxx")) },
			func() (io.ReadCloser, error) { return &failingBody{good: 4}, nil }, 1},
		{"GetBody, in a redirect", true, false,
			func() io.ReadCloser { return io.NopCloser(strings.NewReader("xxxxxxxxxx")) },
			func() (io.ReadCloser, error) { return nil, errDisk }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWire(t, "api.test:80", func(_ *wire, rw http.ResponseWriter, r *http.Request) {
					if _, err := io.ReadAll(r.Body); err != nil {
						return // the client gave up on the body
					}
					switch {
					case r.URL.Path == "/upload" && tt.redirect:
						rw.Header().Set("Location", "/elsewhere")
						rw.WriteHeader(http.StatusTemporaryRedirect)
					case r.URL.Path == "/upload":
						rw.WriteHeader(503)
					}
				})
				w.e.Breaker = NewBreaker(1, time.Minute)
				req := newRequest(t, t.Context(), "PUT", "http://api.test/upload", nil)
				req.Body, req.GetBody, req.ContentLength = tt.first(), tt.getBody, 10
				if tt.chunked {
					req.ContentLength = 0 // with a body: unknown
				}
				_, err := w.e.Do(t.Context(), req, idempotent())
				ee := mustError(t, err)
				if !errors.Is(err, ErrRequestBody) || !errors.Is(err, errDisk) || ee.Attempts != tt.attempts {
					t.Fatalf("%v after %d attempts; want ErrRequestBody wrapping the reader's error after %d", err, ee.Attempts, tt.attempts)
				}
				if !strings.Contains(err.Error(), "request body failed: disk read failed") {
					t.Errorf("Error() = %q; want it to say the request body failed, and why", err)
				}
				resp, err := w.e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/next", nil), idempotent())
				if err != nil {
					t.Fatalf("the next call: %v; the breaker counted the body's failure", err)
				}
				resp.Body.Close()
			})
		})
	}
}

// writeCounter is a connection that counts the writes its requests take.
type writeCounter struct {
	net.Conn
	writes *atomic.Int32
}

func (c writeCounter) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// An in-memory request body (bytes or a string, as http.NewRequest takes them, and the
// bodies its GetBody makes for a retry) cannot fail, so the engine leaves it as it is and
// net/http sends it in the same write as the headers, as it would without the engine,
// rather than flushing the headers on their own first.
func TestInMemoryRequestBodyGoesOutWithItsHeaders(t *testing.T) {
	for _, body := range []func() io.Reader{
		func() io.Reader { return bytes.NewReader([]byte(`{"name":"Rex"}`)) },
		func() io.Reader { return bytes.NewBufferString(`{"name":"Rex"}`) },
		func() io.Reader { return strings.NewReader(`{"name":"Rex"}`) },
	} {
		t.Run(fmt.Sprintf("%T", body()), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWire(t, "api.test:80", func(w *wire, rw http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					if w.arrivals() == 1 {
						rw.WriteHeader(503) // the retry's body comes from GetBody
					}
				})
				var writes atomic.Int32
				dial := w.tr.DialContext
				w.tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
					c, err := dial(ctx, network, addr)
					if err != nil {
						return nil, err
					}
					return writeCounter{Conn: c, writes: &writes}, nil
				}
				resp, err := w.e.Do(t.Context(), newRequest(t, t.Context(), "PUT", "http://api.test/pets/1", body()), idempotent())
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if n := writes.Load(); n != 2 {
					t.Errorf("2 attempts took %d writes; want one each, headers and body together", n)
				}
			})
		})
	}
}
