package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/retrytest"
)

var getPet = runtime.Operation{ID: "getPet", Template: "/pets/{petId}"}

// observedEngine returns an engine that sends through tr, with a fixed jitter, a
// Recorder as its observer and OnRetry recording each wait.
func observedEngine(tr *retrytest.Transport) (*runtime.Engine, *retrytest.Recorder, *[]time.Duration) {
	rec := new(retrytest.Recorder)
	waits := new([]time.Duration)
	e := &runtime.Engine{HTTPClient: tr.Client(), Rand: func() float64 { return 0.5 }, Observer: rec,
		OnRetry: func(ev runtime.RetryEvent) { *waits = append(*waits, ev.Wait) }}
	return e, rec, waits
}

func retrySafe() *runtime.Policy {
	p := runtime.DefaultPolicy()
	p.Idempotent = true
	return &p
}

func okHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
}

// A GET answered 503, 503, 200 is one call of three attempts, resend counts 0, 1 and 2,
// with the two waits the engine waited, named by its operation and template.
func TestObserverSeesEachAttemptAndWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(okHandler(), retrytest.Status(503), retrytest.Status(503))
		e, rec, waits := observedEngine(tr)
		req, _ := http.NewRequest("GET", "https://user:pw@api.test/pets/7?api_key=s3cr3t", nil)
		resp, err := e.DoOperation(t.Context(), getPet, req, retrySafe())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		calls := rec.Calls()
		if len(calls) != 1 {
			t.Fatalf("%d calls recorded, want 1", len(calls))
		}
		c := calls[0]
		want := runtime.CallInfo{OperationID: "getPet", Method: "GET", URLTemplate: "/pets/{petId}",
			Server: "https://api.test", URL: "https://api.test/pets/7?api_key=REDACTED", RetryClass: runtime.RetrySafe}
		if c.Info != want {
			t.Errorf("info\n%+v\nwant\n%+v", c.Info, want)
		}
		if got := c.ResendCounts(); !slices.Equal(got, []int{0, 1, 2}) {
			t.Errorf("resend counts %v, want [0 1 2]", got)
		}
		if got := c.Statuses(); !slices.Equal(got, []int{503, 503, 200}) {
			t.Errorf("statuses %v, want [503 503 200]", got)
		}
		var delays []time.Duration
		for _, w := range c.Waits {
			delays = append(delays, w.Delay)
			if w.Cause != runtime.WaitBackoff {
				t.Errorf("wait cause %q, want backoff", w.Cause)
			}
		}
		if len(delays) != 2 || !slices.Equal(delays, *waits) {
			t.Errorf("waits %v, want the engine's %v", delays, *waits)
		}
		if !c.Ended || c.Result.Attempts != 3 || c.Result.Stop != runtime.StopSucceeded || c.Result.StatusCode != 200 || c.Result.Err != nil {
			t.Errorf("result %+v, want 3 attempts, succeeded, 200", c.Result)
		}
	})
}

// Each reason a call stops with reaches CallEnd, the attempts made, and whether the call
// gave up for load reasons.
func TestObserverSeesWhyACallStopped(t *testing.T) {
	post := func(key string) *runtime.Policy {
		p := runtime.DefaultPolicy()
		p.IdempotencyKey = key
		p.Idempotent = key != ""
		return &p
	}
	for _, tc := range []struct {
		name     string
		method   string
		policy   *runtime.Policy
		engine   func(e *runtime.Engine)
		faults   []retrytest.Fault
		attempts int
		stop     runtime.StopReason
		gaveUp   bool
		class    runtime.RetryClass
	}{
		{name: "unkeyed POST", method: "POST", policy: post(""), faults: []retrytest.Fault{retrytest.Status(503)},
			attempts: 1, stop: runtime.StopNotRetrySafe, class: runtime.RetryUnsafe},
		{name: "keyed POST", method: "POST", policy: post("Idempotency-Key"), faults: repeat(retrytest.Status(503), 4),
			attempts: 4, stop: runtime.StopExhausted, gaveUp: true, class: runtime.RetryKeyed},
		{name: "budget", method: "GET", policy: retrySafe(), engine: func(e *runtime.Engine) { e.Budget = runtime.NewBudget(0, 0) },
			faults: repeat(retrytest.Status(503), 4), attempts: 1, stop: runtime.StopBudget, gaveUp: true, class: runtime.RetrySafe},
		{name: "server said no", method: "PUT", policy: retrySafe(), faults: []retrytest.Fault{retrytest.ShouldRetry(503, false)},
			attempts: 1, stop: runtime.StopServerSaidNo, gaveUp: true, class: runtime.RetryIdempotent},
		{name: "a 404", method: "GET", policy: retrySafe(), faults: []retrytest.Fault{retrytest.Status(404)},
			attempts: 1, stop: runtime.StopStatusNotRetried, class: runtime.RetrySafe},
		{name: "Retry-After too long", method: "GET", policy: retrySafe(), faults: []retrytest.Fault{retrytest.RetryAfter(429, time.Hour)},
			attempts: 1, stop: runtime.StopRetryAfterTooLong, gaveUp: true, class: runtime.RetrySafe},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr := retrytest.NewTransport(okHandler(), tc.faults...)
				e, rec, _ := observedEngine(tr)
				if tc.engine != nil {
					tc.engine(e)
				}
				req, _ := http.NewRequest(tc.method, "http://api.test/pets", strings.NewReader("{}"))
				_, err := e.Do(t.Context(), req, tc.policy)
				if err == nil {
					t.Fatal("the call succeeded")
				}
				c := rec.Calls()[0]
				r := c.Result
				if r.Attempts != tc.attempts || r.Stop != tc.stop || r.GaveUp != tc.gaveUp || !errors.Is(r.Err, err) {
					t.Errorf("result %+v; want %d attempts, %s, gave up %v", r, tc.attempts, tc.stop, tc.gaveUp)
				}
				if len(c.Attempts) != tc.attempts {
					t.Errorf("%d attempts recorded, want %d", len(c.Attempts), tc.attempts)
				}
				if c.Info.RetryClass != tc.class || c.Info.KeySent != (tc.policy.IdempotencyKey != "") {
					t.Errorf("class %q, key sent %v; want %q, %v", c.Info.RetryClass, c.Info.KeySent, tc.class, tc.policy.IdempotencyKey != "")
				}
			})
		})
	}
}

func repeat(f retrytest.Fault, n int) []retrytest.Fault {
	out := make([]retrytest.Fault, n)
	for i := range out {
		out[i] = f
	}
	return out
}

// A call the breaker refuses, or whose context is done, has a CallStart and a CallEnd
// and no attempt.
func TestObserverSeesRefusedCalls(t *testing.T) {
	tr := retrytest.NewTransport(okHandler())
	e, rec, _ := observedEngine(tr)
	e.Breaker = runtime.NewBreaker(1, time.Hour)
	tr.Then(retrytest.Status(500))
	p := retrySafe()
	p.MaxAttempts = 1
	for range 2 {
		req, _ := http.NewRequest("GET", "http://api.test/pets", nil)
		e.Do(context.Background(), req, p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequest("GET", "http://api.test/pets", nil)
	e.Do(ctx, req, p)
	calls := rec.Calls()
	if len(calls) != 3 {
		t.Fatalf("%d calls, want 3", len(calls))
	}
	for i, want := range []runtime.StopReason{runtime.StopRetriesOff, runtime.StopBreakerOpen, runtime.StopCancelled} {
		c := calls[i]
		if !c.Ended || c.Result.Stop != want {
			t.Errorf("call %d: %+v, want stopped by %s", i+1, c.Result, want)
		}
	}
	if len(calls[1].Attempts) != 0 || len(calls[2].Attempts) != 0 {
		t.Errorf("refused calls recorded attempts: %+v, %+v", calls[1].Attempts, calls[2].Attempts)
	}
}

// A wait set by the server's Retry-After says so, with the hint.
func TestObserverSeesTheServersHint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(okHandler(), retrytest.RetryAfter(429, 2*time.Second))
		e, rec, waits := observedEngine(tr)
		req, _ := http.NewRequest("GET", "http://api.test/pets", nil)
		resp, err := e.Do(t.Context(), req, retrySafe())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		w := rec.Calls()[0].Waits
		if len(w) != 1 || w[0].Cause != runtime.WaitRetryAfter || w[0].RetryAfter != 2*time.Second || w[0].Delay != (*waits)[0] || w[0].Attempt != 1 {
			t.Errorf("waits %+v, want one of %v after attempt 1, set by a Retry-After of 2s", w, *waits)
		}
	})
}

// peek is a RoundTripper below the engine that reads what the accessors say of each
// request it sends, as a span name formatter of otelhttp's would.
type peek struct {
	next  http.RoundTripper
	calls []runtime.CallInfo
	atts  []runtime.AttemptInfo
}

func (p *peek) RoundTrip(r *http.Request) (*http.Response, error) {
	if ci, ok := runtime.CallInfoFrom(r.Context()); ok {
		p.calls = append(p.calls, ci)
	}
	if ai, ok := runtime.AttemptFrom(r.Context()); ok {
		p.atts = append(p.atts, ai)
	}
	return p.next.RoundTrip(r)
}

// Middleware below the engine learns the operation and the resend count from each
// attempt's request context, with or without an observer.
func TestCallInfoFromAttemptContext(t *testing.T) {
	for _, observed := range []bool{false, true} {
		t.Run(fmt.Sprint("observer ", observed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr := retrytest.NewTransport(okHandler(), retrytest.Status(503))
				p := &peek{next: tr}
				e := &runtime.Engine{HTTPClient: &http.Client{Transport: p}, Rand: func() float64 { return 0 }}
				if observed {
					e.Observer = new(retrytest.Recorder)
				}
				req, _ := http.NewRequest("GET", "http://api.test/pets/7", nil)
				resp, err := e.DoOperation(t.Context(), getPet, req, retrySafe())
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if len(p.calls) != 2 || p.calls[1].URLTemplate != "/pets/{petId}" || p.calls[1].OperationID != "getPet" || p.calls[1].Method != "GET" {
					t.Fatalf("call infos %+v", p.calls)
				}
				if len(p.atts) != 2 || p.atts[0].ResendCount != 0 || p.atts[1].ResendCount != 1 {
					t.Errorf("attempt infos %+v, want resend counts 0 and 1", p.atts)
				}
			})
		})
	}
	if _, ok := runtime.CallInfoFrom(context.Background()); ok {
		t.Error("CallInfoFrom found a call in a context of no attempt")
	}
}

// headerObserver adds a header to each attempt, as a trace propagator does.
type headerObserver struct{ retrytest.Recorder }

func (o *headerObserver) AttemptStart(ctx context.Context, info runtime.AttemptInfo) context.Context {
	info.Header.Set("Traceparent", fmt.Sprintf("attempt-%d", info.ResendCount))
	return o.Recorder.AttemptStart(ctx, info)
}

// What AttemptStart adds to the header goes with that attempt only, and with a redirect
// on the request's origin, never off it.
func TestObserverHeaderPerAttemptSameOriginOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []string
		mux := http.NewServeMux()
		mux.HandleFunc("api.test/pets", func(w http.ResponseWriter, r *http.Request) {
			got = append(got, r.Host+" "+r.Header.Get("Traceparent"))
			if len(got) == 1 {
				w.WriteHeader(503)
				return
			}
			http.Redirect(w, r, "http://api.test/here", http.StatusFound)
		})
		mux.HandleFunc("api.test/here", func(w http.ResponseWriter, r *http.Request) {
			got = append(got, r.Host+" "+r.Header.Get("Traceparent"))
			http.Redirect(w, r, "http://elsewhere.test/there", http.StatusFound)
		})
		mux.HandleFunc("elsewhere.test/there", func(w http.ResponseWriter, r *http.Request) {
			got = append(got, r.Host+" "+r.Header.Get("Traceparent"))
		})
		tr := retrytest.NewTransport(mux)
		e := &runtime.Engine{HTTPClient: tr.Client(), Rand: func() float64 { return 0 }, Observer: new(headerObserver)}
		req, _ := http.NewRequest("GET", "http://api.test/pets", nil)
		resp, err := e.Do(t.Context(), req, retrySafe())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := []string{"api.test attempt-0", "api.test attempt-1", "api.test attempt-1", "elsewhere.test "}
		if !slices.Equal(got, want) {
			t.Errorf("requests %q, want %q", got, want)
		}
		if req.Header.Get("Traceparent") != "" {
			t.Error("the caller's request was changed")
		}
	})
}

// OneRetryLayer tells the observer of the call that gave up of the X-Should-Retry: false
// it writes, with the Retry-After it adds.
func TestObserverSeesOneRetryLayerSuppress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(okHandler(), repeat(retrytest.RetryAfter(503, 3*time.Second), 4)...)
		e, rec, _ := observedEngine(tr)
		srv := runtime.OneRetryLayer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			req, _ := http.NewRequestWithContext(r.Context(), "GET", "http://store.test/pets", nil)
			if _, err := e.Do(r.Context(), req, retrySafe()); err != nil {
				w.WriteHeader(503)
			}
		}))
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		if w.Header().Get("X-Should-Retry") != "false" {
			t.Fatalf("answer header %v", w.Header())
		}
		if got := rec.Suppressions(); len(got) != 1 || got[0] != (runtime.SuppressInfo{StatusCode: 503, RetryAfter: 3 * time.Second}) {
			t.Errorf("suppressions %+v, want one 503 with Retry-After 3s", got)
		}
	})
}

// The Retry-After OneRetryLayer adds, and tells the observer of, is the server's hint cut
// to the longest the call that gave up would have waited: its policy's MaxRetryAfter.
func TestObserverSeesOneRetryLayerSuppressCappedHint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(okHandler(), retrytest.RetryAfter(503, time.Hour))
		e, rec, _ := observedEngine(tr)
		srv := runtime.OneRetryLayer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			req, _ := http.NewRequestWithContext(r.Context(), "GET", "http://store.test/pets", nil)
			if _, err := e.Do(r.Context(), req, retrySafe()); !errors.Is(err, runtime.ErrRetryAfterTooLong) {
				t.Errorf("call error %v, want ErrRetryAfterTooLong", err)
			}
			w.WriteHeader(503)
		}))
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		if w.Header().Get("X-Should-Retry") != "false" || w.Header().Get("Retry-After") != "60" {
			t.Fatalf("answer header %v, want X-Should-Retry: false and Retry-After: 60", w.Header())
		}
		if got := rec.Suppressions(); len(got) != 1 || got[0] != (runtime.SuppressInfo{StatusCode: 503, RetryAfter: time.Minute}) {
			t.Errorf("suppressions %+v, want one 503 with Retry-After 60s", got)
		}
	})
}

// Each cause an *Error gives maps to its stop reason, through wrapping too.
func TestStopReasonOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want runtime.StopReason
	}{
		{nil, runtime.StopSucceeded},
		{&runtime.Error{Cause: runtime.ErrExhausted}, runtime.StopExhausted},
		{&runtime.Error{Cause: runtime.ErrOutcomeUnknown}, runtime.StopNotRetrySafe},
		{&runtime.Error{Cause: context.DeadlineExceeded, Err: context.Canceled}, runtime.StopDeadline},
		{&runtime.Error{Err: fmt.Errorf("x: %w", context.Canceled)}, runtime.StopCancelled},
		{&runtime.PageError{Err: &runtime.Error{Cause: runtime.ErrBudgetExhausted}}, runtime.StopBudget},
		{&runtime.PageError{Err: runtime.ErrPageLoop}, runtime.StopPageLoop},
		{fmt.Errorf("stream: %w", runtime.ErrStreamClosed), runtime.StopCancelled},
		{errors.New("bad"), runtime.StopOther},
	} {
		if got := runtime.StopReasonOf(tc.err); got != tc.want {
			t.Errorf("StopReasonOf(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

// Transport failures are classed in few values; a reset and a refusal are told apart.
func TestErrorTypeOfTransportFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			fault retrytest.Fault
			want  string
		}{
			{retrytest.Reset(), "connection_reset"},
			{retrytest.Refused(), "connection_refused"},
		} {
			tr := retrytest.NewTransport(okHandler(), tc.fault)
			e, rec, _ := observedEngine(tr)
			p := retrySafe()
			p.MaxAttempts = 1
			req, _ := http.NewRequest("GET", "http://api.test/pets", nil)
			e.Do(t.Context(), req, p)
			if got := rec.Calls()[0].Attempts[0].Result; got.ErrorType != tc.want || got.Err == nil {
				t.Errorf("%v: %+v, want error type %s", tc.fault, got, tc.want)
			}
		}
	})
	if runtime.ErrorType(nil) != "" || runtime.ErrorType(errors.New("x")) != "_OTHER" {
		t.Error("ErrorType of nil or of an unknown error")
	}
}

// SpanName names an attempt by its method and template, and any other request by its
// method.
func TestSpanName(t *testing.T) {
	var names []string
	tr := retrytest.NewTransport(okHandler())
	e := &runtime.Engine{HTTPClient: &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		names = append(names, runtime.SpanName("", r))
		return tr.RoundTrip(r)
	})}}
	req, _ := http.NewRequest("GET", "http://api.test/pets/7", nil)
	resp, err := e.DoOperation(context.Background(), getPet, req, retrySafe())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	other, _ := http.NewRequest("POST", "http://api.test/pets/7", nil)
	names = append(names, runtime.SpanName("", other))
	if want := []string{"GET /pets/{petId}", "POST"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// nilObserver returns no context, which the engine takes as its own.
type nilObserver struct{ retrytest.Recorder }

func (*nilObserver) CallStart(context.Context, runtime.CallInfo) context.Context       { return nil }
func (*nilObserver) AttemptStart(context.Context, runtime.AttemptInfo) context.Context { return nil }

// An observer that returns a nil context does not break the call.
func TestObserverReturningNilContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(okHandler(), retrytest.Status(503))
		e := &runtime.Engine{HTTPClient: tr.Client(), Rand: func() float64 { return 0 }, Observer: new(nilObserver)}
		req, _ := http.NewRequest("GET", "http://api.test/pets", nil)
		resp, err := e.Do(t.Context(), req, retrySafe())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	})
}

// A call that stopped for a reason of retrying is logged at INFO with the reason; an
// answer no policy retries, on its first attempt, is not.
func TestStopReasonsLoggedAtInfo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs strings.Builder
		tr := retrytest.NewTransport(okHandler(), retrytest.Status(503), retrytest.Status(404))
		e := &runtime.Engine{HTTPClient: tr.Client(), Logger: slog.New(slog.NewTextHandler(&logs, nil))}
		post := runtime.DefaultPolicy()
		req, _ := http.NewRequest("POST", "http://api.test/pets?api_key=s3cr3t", strings.NewReader("{}"))
		e.DoOperation(t.Context(), runtime.Operation{ID: "createPet", Template: "/pets"}, req, &post)
		req, _ = http.NewRequest("GET", "http://api.test/pets/7", nil)
		e.DoOperation(t.Context(), getPet, req, retrySafe())
		want := `level=INFO msg="HTTP call ended" http.request.method=POST url.full="http://api.test/pets?api_key=REDACTED" url.template=/pets retrygen.operation=createPet retrygen.stop_reason=not_retry_safe retrygen.attempts=1 http.response.status_code=503` + "\n"
		if got := logs.String(); !strings.HasSuffix(got, want) || strings.Count(got, "\n") != 1 {
			t.Errorf("log:\n%s\nwant one record:\n%s", got, want)
		}
	})
}

// An attempt refused with a 401 invalid_token and repeated with a fresh token
// (WithTokenRefresh) is an attempt of its own: it ends with its 401, the repeat starts
// with the next resend count and no wait before it, and a retry after the repeat is
// numbered on from both. The call's attempts count all three.
func TestObserverSeesTheRepeatWithAFreshToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		expired := `Bearer realm="api", error="invalid_token"`
		n := 0
		tr := retrytest.NewTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n++
			switch {
			case r.Header.Get("Authorization") != "Bearer fresh":
				w.Header().Set("WWW-Authenticate", expired)
				w.WriteHeader(401)
			case n == 2:
				w.WriteHeader(503)
			default:
				io.WriteString(w, "{}")
			}
		}))
		e, rec, waits := observedEngine(tr)
		refreshes := 0
		refresh := runtime.WithTokenRefresh(func(context.Context) (http.Header, error) {
			refreshes++
			return http.Header{"Authorization": {"Bearer fresh"}}, nil
		})
		req, _ := http.NewRequest("GET", "https://api.test/pets/7", nil)
		req.Header.Set("Authorization", "Bearer stale")
		var out runtime.Outcome
		resp, err := e.DoOperation(t.Context(), getPet, req, retrySafe(), refresh, runtime.WithOutcome(&out))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		calls := rec.Calls()
		if len(calls) != 1 || refreshes != 1 {
			t.Fatalf("%d calls recorded, %d refreshes, want 1 and 1", len(calls), refreshes)
		}
		c := calls[0]
		if got := c.ResendCounts(); !slices.Equal(got, []int{0, 1, 2}) {
			t.Errorf("resend counts %v, want [0 1 2]", got)
		}
		if got := c.Statuses(); !slices.Equal(got, []int{401, 503, 200}) {
			t.Errorf("statuses %v, want [401 503 200]", got)
		}
		for i, a := range c.Attempts {
			if !a.Ended || a.Result.Err != nil {
				t.Errorf("attempt %d: ended %v, error %v", i+1, a.Ended, a.Result.Err)
			}
		}
		if len(c.Waits) != 1 || c.Waits[0].Attempt != 2 || len(*waits) != 1 {
			t.Errorf("waits %+v (OnRetry %v), want one, after attempt 2", c.Waits, *waits)
		}
		if !c.Ended || c.Result.Attempts != 3 || out.Attempts != 3 || c.Result.Stop != runtime.StopSucceeded {
			t.Errorf("result %+v, outcome %d attempts, want 3 attempts, succeeded", c.Result, out.Attempts)
		}
	})
}
