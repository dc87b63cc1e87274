package runtime

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/internal/memnet"
)

// wire is a server on an in-memory network and an engine that reaches it, for tests that
// need net/http's own behaviour (connections, re-sends, TLS, body framing) inside a bubble.
type wire struct {
	t   *testing.T
	n   *memnet.Network
	tr  *http.Transport
	e   *Engine
	mu  sync.Mutex
	arr int // requests that reached a handler
}

func newWire(t *testing.T, addr string, h func(w *wire, rw http.ResponseWriter, r *http.Request)) *wire {
	t.Helper()
	w := &wire{t: t, n: memnet.New()}
	srv, _, err := w.n.Serve(addr, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.arr++
		w.mu.Unlock()
		h(w, rw, r)
	}))
	if err != nil {
		t.Fatal(err)
	}
	w.tr = w.n.Transport()
	w.e = &Engine{HTTPClient: &http.Client{Transport: w.tr}, Rand: func() float64 { return 0.5 }}
	t.Cleanup(func() {
		w.tr.CloseIdleConnections()
		srv.Close()
	})
	return w
}

func (w *wire) arrivals() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.arr
}

// hijackClose reads the request and closes the connection without an answer.
func hijackClose(rw http.ResponseWriter) {
	c, _, err := rw.(http.Hijacker).Hijack()
	if err == nil {
		c.Close()
	}
}

// A plain-HTTP answer to an HTTPS request would come again: it is not retried.
func TestHTTPAnswerToHTTPSIsNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWire(t, "api.test:443", func(_ *wire, rw http.ResponseWriter, _ *http.Request) { rw.WriteHeader(503) })
		var retries int
		w.e.OnRetry = func(RetryEvent) { retries++ }
		_, err := w.e.Do(t.Context(), newRequest(t, t.Context(), "GET", "https://api.test/pets", nil), idempotent())
		ee := mustError(t, err)
		if ee.Attempts != 1 || retries != 0 || !strings.Contains(err.Error(), "HTTP response to HTTPS client") {
			t.Fatalf("%v after %d attempts, %d retries; want the HTTP answer after 1", err, ee.Attempts, retries)
		}
	})
}

// A Retry-After that fits the deadline, with jitter on top that does not, does not end the
// call: the jitter is cut to what fits.
func TestRetryAfterFitsWithJitterCut(t *testing.T) {
	for _, rnd := range []float64{0, 0.25, 0.5, 0.75, 0.999} {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: func(n int, _ *http.Request) (*http.Response, error) {
				if n == 1 {
					return response(503, header("Retry-After", "2"), ""), nil
				}
				return response(200, nil, ""), nil
			}}
			e := engineFor(s, rnd)
			p := idempotent()
			p.InitialDelay, p.MaxDelay = time.Second, time.Second
			ctx, cancel := context.WithTimeout(t.Context(), 2500*time.Millisecond)
			defer cancel()
			resp, err := e.Do(ctx, newRequest(t, ctx, "GET", testURL, nil), p)
			if err != nil {
				t.Fatalf("rnd %v: %v", rnd, err)
			}
			resp.Body.Close()
			if g := s.gaps(); len(g) != 1 || g[0] < 2*time.Second || g[0] >= 2500*time.Millisecond {
				t.Errorf("rnd %v: waited %v, want within [2s, 2.5s)", rnd, g)
			}
		})
	}
}

// G4: a failed attempt whose body stalls is drained for DrainTimeout at most, then cut.
func TestDrainIsBoundedInTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWire(t, "api.test:80", func(_ *wire, rw http.ResponseWriter, r *http.Request) {
			rw.WriteHeader(503)
			io.WriteString(rw, "overloaded")
			rw.(http.Flusher).Flush()
			<-r.Context().Done() // the rest never comes
		})
		start := time.Now()
		_, err := w.e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/pets", nil), idempotent())
		ee := mustError(t, err)
		if !errors.Is(err, ErrExhausted) || ee.Attempts != 3 || string(ee.Body) != "overloaded" {
			t.Fatalf("%v after %d attempts, body %q; want exhaustion after 3 with the partial body", err, ee.Attempts, ee.Body)
		}
		// Three drains (two before retries, one into Error.Body) and two waits.
		if el, want := time.Since(start), 3*DrainTimeout+150*time.Millisecond; el != want {
			t.Errorf("took %v, want %v", el, want)
		}
	})
}

// G1, G2: a body read whole is capped: an endless body and a compression bomb end the call with
// ErrBodyTooLarge instead of filling memory.
func TestReadBodyIsCapped(t *testing.T) {
	zeros := make([]byte, 40<<20) // over the 32 MiB default once decoded
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(zeros)
	zw.Close()
	for _, tc := range []struct {
		name  string
		limit int64
		serve func(http.ResponseWriter)
	}{
		{"endless", 1 << 20, func(rw http.ResponseWriter) {
			chunk := bytes.Repeat([]byte("x"), 32<<10)
			for {
				if _, err := rw.Write(chunk); err != nil {
					return
				}
			}
		}},
		{"gzip bomb, default cap", 0, func(rw http.ResponseWriter) {
			rw.Header().Set("Content-Encoding", "gzip")
			rw.Write(gz.Bytes())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWire(t, "api.test:80", func(_ *wire, rw http.ResponseWriter, _ *http.Request) { tc.serve(rw) })
				w.e.MaxBodySize = tc.limit
				p := idempotent()
				p.ReadBody = true
				resp, err := w.e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/pets", nil), p)
				if resp != nil {
					resp.Body.Close()
				}
				ee := mustError(t, err)
				if !errors.Is(err, ErrBodyTooLarge) || ee.Attempts != 1 || ee.StatusCode != 200 || w.arrivals() != 1 {
					t.Fatalf("%v after %d attempts (%d arrivals); want ErrBodyTooLarge after 1", err, ee.Attempts, w.arrivals())
				}
			})
		})
	}
	t.Run("NoBodyLimit", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWire(t, "api.test:80", func(_ *wire, rw http.ResponseWriter, _ *http.Request) { rw.Write(make([]byte, 2<<20)) })
			w.e.MaxBodySize = NoBodyLimit
			p := idempotent()
			p.ReadBody = true
			resp, err := w.e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/pets", nil), p)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.ContentLength != 2<<20 {
				t.Errorf("read %d bytes, want %d", resp.ContentLength, 2<<20)
			}
		})
	})
}

// slowReader yields a 1 KiB chunk after each gap.
type slowReader struct {
	chunks int
	gap    time.Duration
}

func (r *slowReader) Read(p []byte) (int, error) {
	if r.chunks == 0 {
		return 0, io.EOF
	}
	time.Sleep(r.gap)
	r.chunks--
	return copy(p, bytes.Repeat([]byte("u"), min(len(p), 1<<10))), nil
}

// G3: a server that withholds or dribbles its response header holds an attempt for
// ResponseHeaderTimeout at most, even without a caller's deadline; the attempt is retried.
func TestResponseHeaderTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  time.Duration
		want time.Duration
	}{
		{"default", 0, DefaultResponseHeaderTimeout},
		{"set", 5 * time.Second, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWire(t, "api.test:80", func(_ *wire, rw http.ResponseWriter, r *http.Request) {
					if r.Header.Get("X-Attempt") == "2" {
						io.WriteString(rw, "ok")
						return
					}
					<-r.Context().Done()
				})
				w.e.ResponseHeaderTimeout = tc.set
				w.e.AttemptHeader = "X-Attempt"
				var events []RetryEvent
				w.e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
				start := time.Now()
				resp, err := w.e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/pets", nil), idempotent())
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if el, want := time.Since(start), 2*tc.want+150*time.Millisecond; el != want {
					t.Errorf("took %v, want %v", el, want)
				}
				var ne net.Error
				if len(events) != 2 || !errors.As(events[0].Err, &ne) || !ne.Timeout() || !strings.Contains(events[0].Err.Error(), "response headers") {
					t.Errorf("events %+v; want two header timeouts", events)
				}
			})
		})
	}
	t.Run("a header dribbled one byte a second", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			done := make(chan struct{})
			defer close(done)
			w := newWire(t, "api.test:80", func(_ *wire, rw http.ResponseWriter, r *http.Request) {
				c, _, err := rw.(http.Hijacker).Hijack()
				if err != nil {
					return
				}
				defer c.Close()
				for _, b := range []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Padding: " + strings.Repeat("p", 100) + "\r\n\r\nok") {
					if _, err := c.Write([]byte{b}); err != nil {
						return
					}
					select {
					case <-time.After(time.Second):
					case <-done:
						return
					}
				}
			})
			start := time.Now()
			_, err := w.e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/pets", nil), idempotent())
			ee := mustError(t, err)
			if el, want := time.Since(start), 3*DefaultResponseHeaderTimeout+150*time.Millisecond; ee.Attempts != 3 || el != want || !errors.Is(err, ErrExhausted) {
				t.Fatalf("%v after %d attempts and %v; want exhaustion after 3 header timeouts (%v)", err, ee.Attempts, el, want)
			}
		})
	})
	t.Run("a long upload is not cut", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWire(t, "api.test:80", func(_ *wire, rw http.ResponseWriter, r *http.Request) {
				n, _ := io.Copy(io.Discard, r.Body)
				io.WriteString(rw, strconv.FormatInt(n, 10))
			})
			w.e.ResponseHeaderTimeout = 5 * time.Second
			req := newRequest(t, t.Context(), "PUT", "http://api.test/file", &slowReader{chunks: 20, gap: time.Second})
			resp, err := w.e.Do(t.Context(), req, idempotent())
			if err != nil {
				t.Fatalf("a 20s upload under a 5s header timeout: %v", err)
			}
			resp.Body.Close()
			if w.arrivals() != 1 {
				t.Errorf("%d arrivals, want 1", w.arrivals())
			}
		})
	})
	t.Run("off", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWire(t, "api.test:80", func(_ *wire, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
			w.e.ResponseHeaderTimeout = NoResponseHeaderTimeout
			ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
			defer cancel()
			start := time.Now()
			_, err := w.e.Do(ctx, newRequest(t, ctx, "GET", "http://api.test/pets", nil), idempotent())
			if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Hour {
				t.Fatalf("%v after %v; want the caller's deadline after 1h", err, time.Since(start))
			}
		})
	})
}

// G5: net/http re-sends a request by itself when a reused connection turns out dead. Those
// re-sends count as attempts: the server sees at most MaxAttempts requests.
func TestNetHTTPResendsCount(t *testing.T) {
	// The first request on each connection gets a 503; a later one sees the connection
	// closed under it, which net/http answers by sending again on a new connection.
	t.Run("GET on dead reused connections", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWire(t, "api.test:80", closeReused())
			_, err := w.e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/pets", nil), idempotent())
			ee := mustError(t, err)
			if w.arrivals() != 3 || ee.Attempts != 3 || !errors.Is(err, ErrExhausted) {
				t.Fatalf("%d arrivals, %d attempts reported (%v); want 3 and 3", w.arrivals(), ee.Attempts, err)
			}
		})
	})
	t.Run("an empty key does not make a POST re-sendable", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newWire(t, "api.test:80", closeReused())
			// A first call leaves a connection idle; the POST reuses it and finds it closed.
			warm, err := w.e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/warm", nil), &Policy{MaxAttempts: 1})
			if err == nil {
				warm.Body.Close()
			}
			before := w.arrivals()
			req := newRequest(t, t.Context(), "POST", "http://api.test/orders", strings.NewReader(`{"n":1}`))
			req.Header.Set("Idempotency-Key", "")
			p := DefaultPolicy() // not retry-safe
			_, err = w.e.Do(t.Context(), req, &p)
			if got := w.arrivals() - before; got != 1 || err == nil {
				t.Fatalf("the POST arrived %d times (%v); want once", got, err)
			}
		})
	})
}

// refuseStreams serves HTTP/2 with prior knowledge on l and answers every request with
// RST_STREAM REFUSED_STREAM, counting them. It sends each connection it accepts on conns.
func refuseStreams(l net.Listener, mu *sync.Mutex, arrivals *int, conns chan<- net.Conn) {
	const preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	frame := func(c net.Conn, typ, flags byte, stream uint32, payload []byte) {
		h := []byte{byte(len(payload) >> 16), byte(len(payload) >> 8), byte(len(payload)), typ, flags,
			byte(stream >> 24), byte(stream >> 16), byte(stream >> 8), byte(stream)}
		c.Write(append(h, payload...))
	}
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		conns <- c
		go func() {
			defer c.Close()
			if _, err := io.ReadFull(c, make([]byte, len(preface))); err != nil {
				return
			}
			frame(c, 4, 0, 0, nil) // SETTINGS
			for {
				h := make([]byte, 9)
				if _, err := io.ReadFull(c, h); err != nil {
					return
				}
				n := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
				if _, err := io.ReadFull(c, make([]byte, n)); err != nil {
					return
				}
				typ, flags := h[3], h[4]
				stream := uint32(h[5]&0x7f)<<24 | uint32(h[6])<<16 | uint32(h[7])<<8 | uint32(h[8])
				switch {
				case typ == 4 && flags&1 == 0: // SETTINGS: acknowledge
					frame(c, 4, 1, 0, nil)
				case typ == 1: // HEADERS: refuse the stream
					mu.Lock()
					*arrivals++
					mu.Unlock()
					frame(c, 3, 0, stream, []byte{0, 0, 0, 7}) // RST_STREAM REFUSED_STREAM
				}
			}
		}()
	}
}

// Over HTTP/2, net/http retries a refused stream up to 6 times with a backoff of its own
// (1s, 2s, 4s... about a minute in all). Those re-sends count as attempts too, so one
// engine attempt cannot use the whole deadline, and the server sees MaxAttempts requests
// (one more at most, when the abort races net/http's write).
func TestHTTP2RefusedStreamResendsCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := memnet.New()
		l, err := n.Listen("tcp", "api.test:80")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		var mu sync.Mutex
		var arrivals int
		conns := make(chan net.Conn, 100)
		go refuseStreams(l, &mu, &arrivals, conns)
		tr := &http.Transport{DialContext: n.DialContext, Protocols: new(http.Protocols)}
		tr.Protocols.SetUnencryptedHTTP2(true)
		defer func() {
			tr.CloseIdleConnections()
			for len(conns) > 0 {
				(<-conns).Close()
			}
		}()
		e := &Engine{HTTPClient: &http.Client{Transport: tr}, Rand: func() float64 { return 0.5 }}
		start := time.Now()
		_, err = e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/pets", nil), idempotent())
		el := time.Since(start)
		ee := mustError(t, err)
		mu.Lock()
		got := arrivals
		mu.Unlock()
		if got < 3 || got > 4 || ee.Attempts != 3 || !errors.Is(err, ErrExhausted) || el > 4*time.Second {
			t.Fatalf("%d arrivals, %d attempts reported in %v (%v); want 3 (or 4) arrivals, 3 attempts, a few seconds", got, ee.Attempts, el, err)
		}
	})
}

// A redirect to a Location that is not a URL would come again: it is not retried.
func TestBadLocationIsNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWire(t, "api.test:80", func(_ *wire, rw http.ResponseWriter, _ *http.Request) {
			rw.Header().Set("Location", "http://[::1")
			rw.WriteHeader(http.StatusTemporaryRedirect)
		})
		_, err := w.e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/pets?api_key=s3cr3t", nil), idempotent())
		ee := mustError(t, err)
		if ee.Attempts != 1 || w.arrivals() != 1 || !strings.Contains(err.Error(), "Location") {
			t.Fatalf("%v after %d attempts, %d arrivals; want the bad Location after 1", err, ee.Attempts, w.arrivals())
		}
		if strings.Contains(err.Error()+fmt.Sprint(ee.Err), "s3cr3t") {
			t.Errorf("the error shows the query value: %v / %v", err, ee.Err)
		}
	})
}

// closeReused answers 503 on a connection's first request and closes a connection that
// is used again, as a server that drops idle connections does.
func closeReused() func(*wire, http.ResponseWriter, *http.Request) {
	seen := map[string]bool{}
	return func(w *wire, rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		reused := seen[r.RemoteAddr]
		seen[r.RemoteAddr] = true
		w.mu.Unlock()
		if reused {
			hijackClose(rw)
			return
		}
		rw.WriteHeader(503)
	}
}
