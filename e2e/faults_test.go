package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/e2e/faultapi"
	"github.com/retrygen/retrygen/examples/petstore/client"
	"github.com/retrygen/retrygen/internal/memnet"
	retry "github.com/retrygen/retrygen/runtime"
)

// B7: faults on an idempotent request. A connection closed before the answer is retried,
// and so is a body cut short (Content-Length 1000, 500 bytes, then close; RFC 9112 §8):
// the generated policy sets ReadBody, so the engine reads the body within the attempt and
// a short read is a failed attempt.
func TestFaultsOnIdempotentRequestsRetried(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault step
		want  error // the failed attempt's error, nil for any transport error
	}{
		{"connection closed before the answer", drop, nil},
		{"body cut short", truncated, io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble(t, func(t *testing.T, e *env) {
				srv := e.serve(petstoreAddr, tc.fault, reply(200, petJSON))
				pet, err := e.petstore().GetPet(t.Context(), 7)
				if err != nil {
					t.Fatal(err)
				}
				if pet.Name != "Rex" {
					t.Errorf("pet = %+v", pet)
				}
				ev := e.events()
				if len(ev) != 1 || ev[0].Err == nil || ev[0].StatusCode != 0 ||
					tc.want != nil && !errors.Is(ev[0].Err, tc.want) {
					t.Errorf("retries: %+v; want one, after a transport error (%v)", ev, tc.want)
				}
				if n := srv.count(); n != 2 {
					t.Errorf("%d arrivals, want 2 (one per engine attempt)", n)
				}
			})
		})
	}
}

// B8: a POST without a key whose connection drops after the server read (and applied) it
// is not retried: one arrival, one side effect, and an error that says the request got no
// answer. The same holds on a reused connection (net/http does not re-send a POST without
// an Idempotency-Key header), for a response cut short, and over 100 calls that meet
// faults chosen at random.
func TestNoDuplicateSideEffect(t *testing.T) {
	meal := client.Meal{Food: "kibble"}
	body := string(mustJSON(t, meal))
	t.Run("reset after the body was read", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr)
			srv.script(srv.apply(drop), reply(200, petJSON))
			_, err := e.petstore().FeedPet(t.Context(), 7, meal)
			apiErr := mustAPIError(t, err)
			if apiErr.StatusCode != 0 || apiErr.Err == nil || apiErr.Attempts != 1 || !errors.Is(err, retry.ErrNotRetrySafe) {
				t.Errorf("err = %v; want the transport error after 1 attempt, not retry-safe", err)
			}
			if n, fx, ev := srv.count(), srv.effectsOf(body), e.events(); n != 1 || fx != 1 || len(ev) != 0 {
				t.Errorf("%d arrivals, %d side effects, %d retries; want 1, 1, 0", n, fx, len(ev))
			}
		})
	})
	t.Run("on a reused connection", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr)
			srv.script(reply(200, petJSON), srv.apply(drop), reply(200, petJSON))
			c := e.petstore()
			if _, err := c.GetPet(t.Context(), 7); err != nil {
				t.Fatal(err)
			}
			_, err := c.FeedPet(t.Context(), 7, meal)
			mustAPIError(t, err)
			if n, fx := srv.count(), srv.effectsOf(body); n != 2 || fx != 1 {
				t.Errorf("%d arrivals, %d side effects; want 2 (GET, POST) and 1", n, fx)
			}
			if d := e.net.Dials(petstoreAddr); d != 1 {
				t.Errorf("%d connections, want 1: the POST went on the GET's connection", d)
			}
		})
	})
	t.Run("response cut short", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr)
			srv.script(srv.apply(truncated), reply(200, petJSON))
			_, err := e.petstore().FeedPet(t.Context(), 7, meal)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("err = %v, want a decode error", err)
			}
			if n, fx := srv.count(), srv.effectsOf(body); n != 1 || fx != 1 {
				t.Errorf("%d arrivals, %d side effects; want 1 and 1", n, fx)
			}
		})
	})
	t.Run("100 calls, random faults", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr)
			faults := []step{
				status(503),
				status(500),
				drop,                               // before applying
				srv.apply(drop),                    // after applying
				srv.apply(truncated),               // applied, answer cut short
				srv.apply(status(503)),             // applied, then a retryable status
				srv.apply(hold(time.Second, echo)), // applied, answered late
				srv.apply(echo),                    // applied and answered
			}
			var mu sync.Mutex
			rnd := rand.New(rand.NewPCG(1, 2))
			srv.script(func(w http.ResponseWriter, r *http.Request, a *arrival) {
				mu.Lock()
				f := faults[rnd.IntN(len(faults))]
				mu.Unlock()
				f(w, r, a)
			})
			c := e.petstore()
			for i := range 100 {
				c.FeedPet(t.Context(), 7, client.Meal{Food: fmt.Sprintf("meal %d", i)})
			}
			if n := srv.count(); n != 100 {
				t.Errorf("%d arrivals for 100 calls, want 100", n)
			}
			if ev := e.events(); len(ev) != 0 {
				t.Errorf("%d retries, want none: %+v", len(ev), ev[0])
			}
			for i := range 100 {
				b := string(mustJSON(t, client.Meal{Food: fmt.Sprintf("meal %d", i)}))
				if fx := srv.effectsOf(b); fx > 1 {
					t.Errorf("call %d applied %d times", i, fx)
				}
			}
		})
	})
}

// B9: a connection that cannot be opened sent nothing, so even a POST without a key is
// retried (pinned: retried, as docs/design.md says); a server that starts before the second
// attempt sees exactly one request. On the in-memory network, then on real loopback.
func TestDialRefusedRetried(t *testing.T) {
	meal := client.Meal{Food: "kibble"}
	t.Run("in memory", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			var srv *server
			c := e.petstore(client.WithOnRetry(func(ev client.RetryEvent) {
				e.onRetry(ev)
				if srv == nil {
					srv = e.serve(petstoreAddr, reply(200, petJSON))
				}
			}))
			if _, err := c.FeedPet(t.Context(), 7, meal); err != nil {
				t.Fatal(err)
			}
			ev := e.events()
			if len(ev) != 1 || !isDialRefused(ev[0].Err) {
				t.Fatalf("retries: %+v; want one, after a refused dial", ev)
			}
			if n := srv.count(); n != 1 {
				t.Errorf("%d arrivals, want 1", n)
			}
		})
	})
	t.Run("loopback", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		var (
			mu       sync.Mutex
			arrivals int
			events   []client.RetryEvent
			hs       *http.Server
		)
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		c := client.NewClient(client.WithBaseURL("http://"+addr+"/v1"),
			client.WithHTTPClient(&http.Client{Transport: tr}),
			client.WithPolicyOverride(func(p *client.Policy) { p.InitialDelay, p.MaxDelay = time.Millisecond, time.Millisecond }),
			client.WithOnRetry(func(ev client.RetryEvent) {
				mu.Lock()
				defer mu.Unlock()
				events = append(events, ev)
				if hs != nil {
					return
				}
				l, err := net.Listen("tcp", addr)
				if err != nil {
					t.Errorf("listen again on %s: %v", addr, err)
					return
				}
				hs = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					arrivals++
					mu.Unlock()
					io.WriteString(w, petJSON)
				})}
				go hs.Serve(l)
			}))
		_, err = c.FeedPet(t.Context(), 7, meal)
		mu.Lock()
		defer mu.Unlock()
		if hs != nil {
			defer hs.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || !isDialRefused(events[0].Err) {
			t.Errorf("retries: %+v; want one, after a refused dial", events)
		}
		if arrivals != 1 {
			t.Errorf("%d arrivals, want 1", arrivals)
		}
	})
}

func isDialRefused(err error) bool {
	op, ok := errors.AsType[*net.OpError](err)
	return ok && op.Op == "dial" && errors.Is(err, syscall.ECONNREFUSED)
}

// B10: failed attempts' bodies are drained and closed, so 503 (2 KiB), 503, 200 travel
// on one connection.
func TestConnectionReusedAcrossAttempts(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		errBody := strings.Repeat("x", 2<<10)
		srv := e.serve(petstoreAddr, reply(503, errBody), reply(503, errBody), reply(200, petJSON))
		if _, err := e.petstore().GetPet(t.Context(), 7); err != nil {
			t.Fatal(err)
		}
		if n := srv.count(); n != 3 {
			t.Fatalf("%d arrivals, want 3", n)
		}
		for i := 1; i < 3; i++ {
			if srv.got(i).Remote != srv.got(0).Remote {
				t.Errorf("arrival %d came from %s, the first from %s", i+1, srv.got(i).Remote, srv.got(0).Remote)
			}
		}
		if d, c := e.net.Dials(petstoreAddr), srv.connections(); d != 1 || c != 1 {
			t.Errorf("%d dials, %d new server connections; want 1 and 1", d, c)
		}
	})
}

// B11: a 503 with a 100 MiB body costs the client a bounded read: the retry drains at most
// 4 KiB and drops the connection, the final error holds at most 64 KiB, and the server
// could write no more than the connection's buffers hold. Memory stays under 8 MiB.
func TestHugeErrorBodyReadBounded(t *testing.T) {
	const huge = 100 << 20
	memory := func(t *testing.T, f func()) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	t.Run("then 200", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr)
			srv.script(srv.huge(503, huge), reply(200, petJSON))
			alloc := memory(t, func() {
				if _, err := e.petstore().GetPet(t.Context(), 7); err != nil {
					t.Error(err)
				}
				synctest.Wait() // the server's writer has given up
			})
			if n := srv.count(); n != 2 {
				t.Errorf("%d arrivals, want 2", n)
			}
			t.Logf("100 MiB error body, then 200: the server wrote %d bytes; the call allocated %d bytes", srv.got(0).Written, alloc)
			if w := srv.got(0).Written; w > 1<<20 {
				t.Errorf("the server wrote %d bytes of its 100 MiB body; the client should stop reading after 4 KiB", w)
			}
			if alloc > 8<<20 {
				t.Errorf("the call allocated %d bytes, want under 8 MiB", alloc)
			}
			if d := e.net.Dials(petstoreAddr); d != 2 {
				t.Errorf("%d connections, want 2: a body too long to drain is not worth keeping", d)
			}
		})
	})
	t.Run("final", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr)
			srv.script(srv.huge(503, huge))
			var err error
			alloc := memory(t, func() {
				_, err = e.petstore().GetPet(t.Context(), 7)
				synctest.Wait()
			})
			apiErr := mustAPIError(t, err)
			t.Logf("three 100 MiB error bodies: the server wrote %d, %d, %d bytes; the call allocated %d bytes",
				srv.got(0).Written, srv.got(1).Written, srv.got(2).Written, alloc)
			if apiErr.Attempts != 3 || apiErr.StatusCode != 503 || len(apiErr.Body) != retry.ErrorBodyLimit {
				t.Errorf("err after %d attempts, status %d, %d bytes of body; want 3, 503, %d",
					apiErr.Attempts, apiErr.StatusCode, len(apiErr.Body), retry.ErrorBodyLimit)
			}
			for i := range 3 {
				if w := srv.got(i).Written; w > 1<<20 {
					t.Errorf("arrival %d: the server wrote %d bytes", i+1, w)
				}
			}
			if alloc > 8<<20 {
				t.Errorf("the call allocated %d bytes, want under 8 MiB", alloc)
			}
		})
	})
}

// B19: an upload from a reader that cannot seek, longer than the 1 MiB the client keeps
// to send again, is sent once, even on a 503, with ErrBodyNotReplayable; a shorter one,
// and one that can seek, is sent again with the same bytes, from the reader's offset when
// the call began.
func TestNonReplayableUploadSentOnce(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 1000)
	long := bytes.Repeat([]byte("0123456789"), 110_000)
	t.Run("cannot seek", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(faultAddr, status(503), reply(204, ""))
			err := e.faultapi().UploadFile(t.Context(), "f", io.MultiReader(bytes.NewReader(long)))
			if !errors.Is(err, faultapi.ErrBodyNotReplayable) {
				t.Errorf("err = %v, want ErrBodyNotReplayable", err)
			}
			if apiErr := mustAPIError(t, err); apiErr.StatusCode != 503 || apiErr.Attempts != 1 {
				t.Errorf("err after %d attempts with status %d; want the 503 after 1", apiErr.Attempts, apiErr.StatusCode)
			}
			if n := srv.count(); n != 1 || !bytes.Equal(srv.got(0).Body, long) {
				t.Errorf("%d arrivals, want 1 with the data", n)
			}
		})
	})
	t.Run("cannot seek, short", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(faultAddr, status(503), reply(204, ""))
			if err := e.faultapi().UploadFile(t.Context(), "f", io.MultiReader(bytes.NewReader(data))); err != nil {
				t.Fatal(err)
			}
			if n := srv.count(); n != 2 || !bytes.Equal(srv.got(1).Body, data) || srv.got(1).Header.Get("Content-Length") != "10000" {
				t.Errorf("%d arrivals, want 2 with the data and its length", n)
			}
		})
	})
	t.Run("can seek", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(faultAddr, status(503), status(503), reply(204, ""))
			r := bytes.NewReader(data)
			r.Seek(10, io.SeekStart)
			if err := e.faultapi().UploadFile(t.Context(), "f", r); err != nil {
				t.Fatal(err)
			}
			if n := srv.count(); n != 3 {
				t.Fatalf("%d arrivals, want 3", n)
			}
			for i := range 3 {
				if got := srv.got(i).Body; !bytes.Equal(got, data[10:]) {
					t.Errorf("arrival %d: %d bytes, not the %d from offset 10", i+1, len(got), len(data)-10)
				}
			}
		})
	})
}

// B20: 50 concurrent calls against a server that fails 30% of requests with 503, under
// the race detector: each ends in success or an *APIError, arrivals stay within 50 × 3.
func TestConcurrentCallsUnderFaults(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		var mu sync.Mutex
		rnd := rand.New(rand.NewPCG(3, 4))
		srv := e.serve(petstoreAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			mu.Lock()
			fail := rnd.Float64() < 0.3
			mu.Unlock()
			if fail {
				status(503)(w, r, a)
				return
			}
			reply(200, "[]")(w, r, a)
		})
		c := e.petstore()
		var (
			wg       sync.WaitGroup
			ok, fail int
		)
		for range 50 {
			wg.Go(func() {
				_, err := c.ListPets(t.Context(), nil)
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					ok++
					return
				}
				fail++
				if apiErr, isAPI := errors.AsType[*client.APIError](err); !isAPI || apiErr.StatusCode != 503 {
					t.Errorf("err = %v, want an *APIError for a 503", err)
				}
			})
		}
		wg.Wait()
		if ok+fail != 50 || ok == 0 {
			t.Errorf("%d successes, %d failures", ok, fail)
		}
		if n := srv.count(); n < 50 || n > 150 {
			t.Errorf("%d arrivals, want 50 to 150", n)
		}
		if n, ev := srv.count(), e.events(); n != 50+len(ev) {
			t.Errorf("%d arrivals but 50 calls and %d retries", n, len(ev))
		}
	})
}

// BenchmarkHugeErrorBody measures one GetPet call that meets a 503 with a 100 MiB body
// and then a 200, on the in-memory network outside a bubble (waits of 1ns): B/op is what
// the call and the server cost together.
func BenchmarkHugeErrorBody(b *testing.B) {
	n := memnet.New()
	ln, err := n.Listen("tcp", petstoreAddr)
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	calls := 0
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		odd := calls%2 == 1
		mu.Unlock()
		if !odd {
			io.WriteString(w, petJSON)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(100<<20))
		w.WriteHeader(503)
		chunk := make([]byte, 32<<10)
		for written := 0; written < 100<<20; written += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})}
	go hs.Serve(ln)
	defer hs.Close()
	tr := n.Transport()
	defer tr.CloseIdleConnections()
	c := client.NewClient(client.WithBaseURL(petstoreURL), client.WithHTTPClient(&http.Client{Transport: tr}), client.WithoutRetryBudget(),
		client.WithPolicyOverride(func(p *client.Policy) { p.InitialDelay, p.MaxDelay = time.Nanosecond, time.Nanosecond }))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.GetPet(b.Context(), 7); err != nil {
			b.Fatal(err)
		}
	}
}
