package runtime

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime/internal/giveup"
)

// withGiveUps returns ctx with a tracker, as OneRetryLayer gives a request's context.
func withGiveUps(ctx context.Context) (context.Context, *giveup.Tracker) {
	return giveup.With(ctx)
}

// The engine records a call that gives up for load reasons on the tracker of its context,
// with the longest Retry-After it was sent, and nothing else.
func TestEngineRecordsGiveUps(t *testing.T) {
	post := func() *Policy { p := DefaultPolicy(); return &p } // not retry-safe
	withHint := func(code int, hint string) func(int, *http.Request) (*http.Response, error) {
		return func(int, *http.Request) (*http.Response, error) {
			return response(code, http.Header{"Retry-After": {hint}}, ""), nil
		}
	}
	openBreaker := NewBreaker(1, time.Hour)
	cases := []struct {
		name     string
		answer   func(int, *http.Request) (*http.Response, error)
		policy   *Policy
		setup    func(*Engine)
		opts     []CallOption
		cancel   bool
		deadline time.Duration // the call's context's, when set
		want     error         // the call's Cause
		recorded bool
		hint     time.Duration
	}{
		{name: "retries ran out", answer: status(503), policy: idempotent(), want: ErrExhausted, recorded: true},
		{name: "retries ran out, with a hint", answer: withHint(503, "2"), policy: idempotent(), want: ErrExhausted, recorded: true, hint: 2 * time.Second},
		{name: "transport errors ran out", answer: func(int, *http.Request) (*http.Response, error) {
			return nil, errors.New("connection reset by peer")
		}, policy: idempotent(), want: ErrExhausted, recorded: true},
		{name: "budget refused", answer: status(503), policy: idempotent(), setup: func(e *Engine) { e.Budget = NewBudget(0, 0) }, want: ErrBudgetExhausted, recorded: true},
		{name: "breaker open", answer: status(503), policy: idempotent(), setup: func(e *Engine) { e.Breaker = openBreaker }, want: ErrCircuitOpen, recorded: true},
		{name: "server said no", answer: func(int, *http.Request) (*http.Response, error) {
			return response(503, http.Header{"X-Should-Retry": {"false"}}, ""), nil
		}, policy: idempotent(), want: ErrServerSaidNoRetry, recorded: true},
		// A layer never tells its callers to wait longer than it would have: the policy's
		// MaxRetryAfter, 60s.
		{name: "hint too long", answer: withHint(429, "3600"), policy: idempotent(), want: ErrRetryAfterTooLong, recorded: true, hint: time.Minute},
		{name: "hint beyond any duration", answer: withHint(429, "99999999999999999999"), policy: idempotent(), want: ErrRetryAfterTooLong, recorded: true, hint: time.Minute},
		{name: "no hint waited for", answer: withHint(429, "3600"), policy: func() *Policy { p := idempotent(); p.MaxRetryAfter = 0; return p }(), want: ErrRetryAfterTooLong, recorded: true},
		{name: "deadline leaves no room for the next wait", answer: status(503), policy: idempotent(), deadline: 120 * time.Millisecond,
			want: context.DeadlineExceeded, recorded: true},

		{name: "not retry-safe", answer: status(503), policy: post(), want: ErrNotRetrySafe},
		{name: "status not retried", answer: status(404), policy: idempotent(), want: ErrStatusNotRetried},
		{name: "one attempt allowed", answer: status(503), policy: idempotent(), opts: []CallOption{WithoutRetry()}, want: ErrRetriesOff},
		{name: "caller cancelled", answer: status(503), policy: idempotent(), cancel: true},
		{name: "success", answer: status(200), policy: idempotent()},
	}
	// Open the shared breaker: one failed call.
	synctest.Test(t, func(t *testing.T) {
		e := engineFor(&stub{fn: status(503)}, 0.5)
		e.Breaker = openBreaker
		p := idempotent()
		p.MaxAttempts = 1
		e.Do(context.Background(), newRequest(t, context.Background(), "GET", "http://api.test/x", nil), p)
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := engineFor(&stub{fn: c.answer}, 0.5)
				if c.setup != nil {
					c.setup(e)
				}
				ctx, g := withGiveUps(context.Background())
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				if c.deadline > 0 {
					ctx, cancel = context.WithTimeout(ctx, c.deadline)
					defer cancel()
				}
				if c.cancel {
					e.OnRetry = func(RetryEvent) { cancel() }
				}
				resp, err := e.Do(ctx, newRequest(t, ctx, "GET", "http://api.test/x", nil), c.policy, c.opts...)
				if err == nil {
					resp.Body.Close()
				} else if cause := mustError(t, err).Cause; c.want != nil && cause != c.want {
					t.Fatalf("Cause = %v, want %v", cause, c.want)
				}
				if got := g.GaveUp(); got != c.recorded {
					t.Errorf("recorded = %v, want %v (err %v)", got, c.recorded, err)
				}
				if got := g.Hint(); got != c.hint {
					t.Errorf("hint = %v, want %v", got, c.hint)
				}
			})
		})
	}
}

// Calls of one request run concurrently: the tracker keeps the longest hint.
func TestGiveUpsConcurrent(t *testing.T) {
	ctx, g := withGiveUps(context.Background())
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			(&Engine{}).noteGiveUp(ctx, &Error{Cause: ErrExhausted, RetryAfter: time.Duration(i) * time.Second}, time.Minute)
		})
	}
	wg.Wait()
	if !g.GaveUp() || g.Hint() != 15*time.Second {
		t.Errorf("gaveUp %v, hint %v; want true, 15s", g.GaveUp(), g.Hint())
	}
}

// A failed call without a tracker costs no allocation for it; nor does one with a tracker.
func TestNoteGiveUpAllocatesNothing(t *testing.T) {
	err := &Error{Cause: ErrExhausted, RetryAfter: time.Second}
	tracked, _ := withGiveUps(context.Background())
	plain := context.WithValue(context.Background(), struct{ k int }{1}, "v")
	e := &Engine{}
	for name, ctx := range map[string]context.Context{"no tracker": plain, "tracker": tracked} {
		if n := testing.AllocsPerRun(100, func() { e.noteGiveUp(ctx, err, time.Minute) }); n != 0 {
			t.Errorf("%s: %v allocations", name, n)
		}
	}
}

func BenchmarkNoteGiveUpNoTracker(b *testing.B) {
	err := &Error{Cause: ErrExhausted}
	ctx := context.WithValue(context.Background(), struct{ k int }{1}, "v")
	e := &Engine{}
	b.ReportAllocs()
	for b.Loop() {
		e.noteGiveUp(ctx, err, time.Minute)
	}
}

// serveLayer runs h under OneRetryLayer for one request and returns the response header
// and status. gaveUp makes a call of the request give up first, with hint.
func serveLayer(t *testing.T, req *http.Request, gaveUp bool, hint time.Duration, h func(w http.ResponseWriter)) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	OneRetryLayer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gaveUp {
			(&Engine{}).noteGiveUp(r.Context(), &Error{Cause: ErrExhausted, RetryAfter: hint}, math.MaxInt64)
		}
		h(w)
	})).ServeHTTP(rec, req)
	return rec.Result()
}

// The Retry-After an observer is told of is the header's, in seconds, and the largest
// Duration when the header's seconds, rounded up, are more than a Duration holds.
func TestSecondsDuration(t *testing.T) {
	for _, c := range []struct {
		secs int64
		want time.Duration
	}{
		{2, 2 * time.Second},
		{math.MaxInt64 / int64(time.Second), time.Duration(math.MaxInt64/int64(time.Second)) * time.Second},
		{ceilSeconds(math.MaxInt64), math.MaxInt64},
	} {
		if got := secondsDuration(c.secs); got != c.want {
			t.Errorf("secondsDuration(%d) = %v, want %v", c.secs, got, c.want)
		}
	}
}

func TestOneRetryLayerHeaders(t *testing.T) {
	code := func(c int) func(http.ResponseWriter) { return func(w http.ResponseWriter) { w.WriteHeader(c) } }
	withHeader := func(k, v string, c int) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) { w.Header().Set(k, v); w.WriteHeader(c) }
	}
	cases := []struct {
		name        string
		gaveUp      bool
		hint        time.Duration
		handler     func(http.ResponseWriter)
		shouldRetry []string
		retryAfter  string
	}{
		{name: "503 after a give-up", gaveUp: true, handler: code(503), shouldRetry: []string{"false"}},
		{name: "502 after a give-up, hint", gaveUp: true, hint: 1500 * time.Millisecond, handler: code(502), shouldRetry: []string{"false"}, retryAfter: "2"},
		{name: "the longest hint, rounded up without overflow", gaveUp: true, hint: math.MaxInt64, handler: code(503), shouldRetry: []string{"false"}, retryAfter: "9223372037"},
		{name: "429 after a give-up", gaveUp: true, handler: code(429), shouldRetry: []string{"false"}},
		{name: "implicit 200 after a give-up", gaveUp: true, handler: func(w http.ResponseWriter) { io.WriteString(w, "ok") }},
		{name: "404 after a give-up", gaveUp: true, handler: code(404)},
		{name: "200 after a give-up", gaveUp: true, handler: code(200)},
		{name: "503 of the service's own", handler: code(503)},
		{name: "handler said true", gaveUp: true, handler: withHeader("X-Should-Retry", "true", 503), shouldRetry: []string{"true"}},
		{name: "handler said Stripe-Should-Retry", gaveUp: true, handler: withHeader("Stripe-Should-Retry", "true", 503)},
		{name: "handler's Retry-After kept", gaveUp: true, hint: time.Minute, handler: withHeader("Retry-After", "5", 503), shouldRetry: []string{"false"}, retryAfter: "5"},
		{name: "handler's Retry-After-Ms kept", gaveUp: true, hint: time.Minute, handler: withHeader("Retry-After-Ms", "5", 503), shouldRetry: []string{"false"}},
		{name: "second WriteHeader ignored", gaveUp: true, handler: func(w http.ResponseWriter) { w.WriteHeader(200); w.WriteHeader(503) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := serveLayer(t, httptest.NewRequest("GET", "/", nil), c.gaveUp, c.hint, c.handler)
			if got := resp.Header.Values("X-Should-Retry"); strings.Join(got, ",") != strings.Join(c.shouldRetry, ",") {
				t.Errorf("X-Should-Retry = %q, want %q", got, c.shouldRetry)
			}
			if got := resp.Header.Get("Retry-After"); got != c.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, c.retryAfter)
			}
		})
	}
}

// Nothing in the request changes what the layer writes or what the service's own calls do.
func TestOneRetryLayerTrustsNoRequestHeader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: status(503)}
		e := engineFor(s, 0)
		req := httptest.NewRequest("GET", "/", nil)
		for _, k := range []string{"X-Should-Retry", "Stripe-Should-Retry", "Retry-After", "X-Retry-Layer"} {
			req.Header.Set(k, "false")
		}
		rec := httptest.NewRecorder()
		OneRetryLayer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, err := e.Do(r.Context(), newRequest(t, r.Context(), "GET", "http://store.test/x", nil), idempotent())
			if err == nil {
				t.Error("the store's 503 succeeded")
			}
			w.WriteHeader(503)
		})).ServeHTTP(rec, req)
		if s.count() != 3 {
			t.Errorf("the service made %d attempts, want its policy's 3", s.count())
		}
		if got := rec.Result().Header.Get("X-Should-Retry"); got != "false" {
			t.Errorf("X-Should-Retry = %q, want false", got)
		}
	})
}

func TestOneRetryLayerExposesSignalsToBrowsers(t *testing.T) {
	cases := []struct {
		name   string
		header map[string]string
		want   string // Access-Control-Expose-Headers; "" for none
	}{
		{name: "not CORS", header: nil, want: ""},
		{name: "CORS", header: map[string]string{"Access-Control-Allow-Origin": "https://app.test"},
			want: "Retry-After, Retry-After-Ms, X-Should-Retry"},
		{name: "merged", header: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "X-Request-Id, retry-after"},
			want: "X-Request-Id, retry-after, Retry-After-Ms, X-Should-Retry"},
		{name: "wildcard", header: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "*"},
			want: "*"},
		{name: "wildcard with credentials", header: map[string]string{"Access-Control-Allow-Origin": "https://app.test",
			"Access-Control-Allow-Credentials": "true", "Access-Control-Expose-Headers": "*"},
			want: "*, Retry-After, Retry-After-Ms, X-Should-Retry"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := serveLayer(t, httptest.NewRequest("GET", "/", nil), true, 0, func(w http.ResponseWriter) {
				for k, v := range c.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(503)
			})
			if got := strings.Join(resp.Header.Values("Access-Control-Expose-Headers"), ", "); got != c.want {
				t.Errorf("Access-Control-Expose-Headers = %q, want %q", got, c.want)
			}
		})
	}
}

// The wrapped writer streams, flushes, hijacks and answers http.ResponseController over a
// real HTTP/1.1 connection, and flushes over HTTP/2, where hijacking is not supported.
func TestOneRetryLayerKeepsWriterFeatures(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); !ok {
			t.Error("the writer is not an http.Flusher")
		}
		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Time{}); err != nil {
			t.Errorf("ResponseController.SetWriteDeadline: %v", err)
		}
		for _, part := range []string{"a", "b", "c"} {
			io.WriteString(w, part)
			if err := rc.Flush(); err != nil {
				t.Errorf("Flush: %v", err)
			}
		}
	})
	mux.HandleFunc("/hijack", func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if r.ProtoMajor == 2 {
			if !errors.Is(err, http.ErrNotSupported) {
				t.Errorf("HTTP/2 Hijack: %v, want ErrNotSupported", err)
			}
			w.WriteHeader(204)
			return
		}
		if err != nil {
			t.Errorf("Hijack: %v", err)
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nhijacked")
		rw.Flush()
	})
	for _, h2 := range []bool{false, true} {
		srv := httptest.NewUnstartedServer(OneRetryLayer(mux))
		srv.EnableHTTP2 = h2
		srv.StartTLS()
		hc := srv.Client()
		get := func(path string) (string, *http.Response) {
			resp, err := hc.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(bufio.NewReader(resp.Body))
			return string(b), resp
		}
		if body, _ := get("/stream"); body != "abc" {
			t.Errorf("h2=%v: stream body %q", h2, body)
		}
		if body, resp := get("/hijack"); (!h2 && body != "hijacked") || (h2 && resp.StatusCode != 204) {
			t.Errorf("h2=%v: hijack answered %d %q", h2, resp.StatusCode, body)
		}
		hc.CloseIdleConnections()
		srv.Close()
	}
}
