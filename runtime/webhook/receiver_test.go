package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/retrytest"
	"github.com/retrygen/retrygen/runtime/webhook"
)

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

var signed = &webhook.Signature{Scheme: webhook.StandardWebhooks}

type created struct {
	Type string `json:"type"`
	Data struct {
		ID string `json:"id"`
	} `json:"data"`
}

type deleted struct {
	Type string `json:"type"`
}

func routes(onCreated func(context.Context, created) error, onDeleted func(context.Context, deleted) error) []webhook.Route {
	return []webhook.Route{
		webhook.Handle(webhook.Route{Name: "created", Method: "POST", Member: "type", Event: "thing.created", Signature: signed, ID: webhook.ID{Header: "webhook-id"}}, onCreated),
		webhook.Handle(webhook.Route{Name: "deleted", Method: "POST", Member: "type", Event: "thing.deleted", Signature: signed, ID: webhook.ID{Header: "webhook-id"}}, onDeleted),
	}
}

func receiver(t *testing.T, rs []webhook.Route, opts ...webhook.Option) http.Handler {
	t.Helper()
	h, err := webhook.NewReceiver(rs, append([]webhook.Option{webhook.WithSecret(secret)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// delivery returns a signed request for body, its id id, signed now.
func delivery(id, body string) *http.Request {
	r := httptest.NewRequest("POST", "/hooks", strings.NewReader(body))
	for k, v := range retrytest.SignWebhook(webhook.StandardWebhooks, secret, id, time.Now(), []byte(body)) {
		r.Header[k] = v
	}
	return r
}

func serve(h http.Handler, r *http.Request) *http.Response {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

const createdBody = `{"type": "thing.created", "data": {"id": "t_1", "new_member": [1, 2]}}`

// A signed delivery reaches its handler decoded, with its id and raw body in the context;
// the same delivery again is answered 200 without calling the handler.
func TestDeliveredOnce(t *testing.T) {
	var calls atomic.Int32
	var got created
	var d webhook.Delivery
	h := receiver(t, routes(func(ctx context.Context, c created) error {
		calls.Add(1)
		got, d, _ = c, func() webhook.Delivery { d, _ := webhook.DeliveryFrom(ctx); return d }(), true
		return nil
	}, nil))
	for i := range 3 {
		if resp := serve(h, delivery("msg_1", createdBody)); resp.StatusCode != 200 {
			t.Fatalf("delivery %d: %d", i+1, resp.StatusCode)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("handler called %d times, want once", calls.Load())
	}
	if got.Data.ID != "t_1" || d.ID != "msg_1" || d.Webhook != "created" || string(d.Body) != createdBody {
		t.Errorf("payload %+v, delivery %+v", got, d)
	}
	if resp := serve(h, delivery("msg_2", createdBody)); resp.StatusCode != 200 || calls.Load() != 2 {
		t.Errorf("another delivery: %d, %d calls", resp.StatusCode, calls.Load())
	}
}

// The same delivery sent again while the first is still being handled is answered 409,
// and the later repeat 200, the handler called once; under -race.
func TestRepeatWhileInProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var calls atomic.Int32
		h := receiver(t, routes(func(ctx context.Context, c created) error {
			if calls.Add(1) == 1 {
				<-release
			}
			return nil
		}, nil))
		var answers []*http.Response
		done := make(chan struct{})
		go func() {
			answers = retrytest.Redeliver(h, delivery("msg_1", createdBody), time.Minute)
			close(done)
		}()
		synctest.Wait() // both sent: one handling, one answered
		close(release)
		<-done
		codes := []int{answers[0].StatusCode, answers[1].StatusCode, answers[2].StatusCode}
		if !(codes[0] == 200 && codes[1] == 409 || codes[0] == 409 && codes[1] == 200) || codes[2] != 200 {
			t.Errorf("answers %v, want 200 and 409 at once, then 200", codes)
		}
		if calls.Load() != 1 {
			t.Errorf("handler called %d times", calls.Load())
		}
	})
}

// Many copies of one delivery at once run the handler once.
func TestConcurrentCopies(t *testing.T) {
	var calls atomic.Int32
	h := receiver(t, routes(func(ctx context.Context, c created) error {
		calls.Add(1)
		time.Sleep(time.Millisecond)
		return nil
	}, nil))
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if code := serve(h, delivery("msg_1", createdBody)).StatusCode; code != 200 && code != 409 {
				t.Errorf("answer %d", code)
			}
		})
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Errorf("handler called %d times, want once", calls.Load())
	}
}

// What the handler returns decides the answer; every answer but success releases the id,
// so that the sender's next attempt runs the handler again.
func TestAnswers(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		status     int
		retryAfter string
	}{
		{"nil", nil, 200, ""},
		{"not handled", webhook.ErrNotHandled, 200, ""},
		{"retry after", webhook.RetryAfter(90 * time.Second), 503, "90"},
		{"retry after less than a second", webhook.RetryAfter(time.Millisecond), 503, "1"},
		{"retry after the longest duration, rounded up without overflow", webhook.RetryAfter(math.MaxInt64), 503, "9223372037"},
		{"gone", webhook.Gone(), 410, ""},
		{"error", errors.New("database down"), 500, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls int
			h := receiver(t, routes(func(ctx context.Context, c created) error { calls++; return tc.err }, nil))
			resp := serve(h, delivery("msg_1", createdBody))
			if resp.StatusCode != tc.status || resp.Header.Get("Retry-After") != tc.retryAfter {
				t.Errorf("%d Retry-After %q, want %d %q", resp.StatusCode, resp.Header.Get("Retry-After"), tc.status, tc.retryAfter)
			}
			serve(h, delivery("msg_1", createdBody))
			if want := map[bool]int{true: 1, false: 2}[tc.status == 200]; calls != want {
				t.Errorf("after a repeat the handler ran %d times, want %d", calls, want)
			}
		})
	}
}

// A handler whose call through a generated client gave up for load reasons answers 503
// with the Retry-After that call was sent, cut to the longest the call would have waited
// (its policy's MaxRetryAfter, 60s): the webhook twin of X-Should-Retry: false.
func TestDownstreamGaveUp(t *testing.T) {
	for _, tc := range []struct {
		name       string
		hint       time.Duration
		retryAfter string
	}{
		{"retries ran out", 30 * time.Second, "30"},
		{"hint too long", time.Hour, "60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				api := retrytest.NewTransport(nil, retrytest.RetryAfter(503, tc.hint), retrytest.RetryAfter(503, tc.hint))
				eng := &runtime.Engine{HTTPClient: api.Client()}
				h := receiver(t, routes(func(ctx context.Context, c created) error {
					req, _ := http.NewRequestWithContext(ctx, "GET", "https://upstream.test/things", nil)
					p := runtime.DefaultPolicy()
					p.Idempotent, p.MaxAttempts = true, 2
					resp, err := eng.Do(ctx, req, &p)
					if err == nil {
						resp.Body.Close()
					}
					return err
				}, nil))
				resp := serve(h, delivery("msg_1", createdBody))
				if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != tc.retryAfter {
					t.Errorf("%d Retry-After %q, want 503 and %s", resp.StatusCode, resp.Header.Get("Retry-After"), tc.retryAfter)
				}
			})
		})
	}
}

// Refused deliveries never reach the handler: unsigned (401), a wrong secret, a body
// changed by one byte, a signature without its version tag, a timestamp 6 minutes old or
// ahead (400), a body over the cap (413), another method (405).
func TestRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		h := receiver(t, routes(func(ctx context.Context, c created) error { calls.Add(1); return nil }, nil), webhook.WithMaxBody(1024))
		sign := func(secret string, at time.Time, body string) *http.Request {
			r := httptest.NewRequest("POST", "/hooks", strings.NewReader(body))
			for k, v := range retrytest.SignWebhook(webhook.StandardWebhooks, secret, "msg_1", at, []byte(body)) {
				r.Header[k] = v
			}
			return r
		}
		unsigned := delivery("msg_1", createdBody)
		unsigned.Header.Del("webhook-signature")
		changed := delivery("msg_1", createdBody)
		changed.Body = httpBody(strings.Replace(createdBody, "t_1", "t_2", 1))
		untagged := delivery("msg_1", createdBody)
		untagged.Header.Set("webhook-signature", strings.TrimPrefix(untagged.Header.Get("webhook-signature"), "v1,"))
		get := delivery("msg_1", createdBody)
		get.Method = "GET"
		for _, tc := range []struct {
			name   string
			r      *http.Request
			status int
		}{
			{"unsigned", unsigned, 401},
			{"wrong secret", sign("whsec_d3Jvbmcgc2VjcmV0IG9mIDI0IGJ5dGVzISE=", time.Now(), createdBody), 400},
			{"body changed", changed, 400},
			{"no v1 tag", untagged, 400},
			{"6 minutes old", sign(secret, time.Now().Add(-6*time.Minute), createdBody), 400},
			{"6 minutes ahead", sign(secret, time.Now().Add(6*time.Minute), createdBody), 400},
			{"too large", sign(secret, time.Now(), `{"type": "thing.created", "pad": "`+strings.Repeat("x", 2000)+`"}`), 413},
			{"GET", get, 405},
		} {
			resp := serve(h, tc.r)
			if resp.StatusCode != tc.status {
				t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.status)
			}
			if n, _ := resp.Body.Read(make([]byte, 1)); n != 0 {
				t.Errorf("%s: the answer has a body", tc.name)
			}
		}
		if calls.Load() != 0 {
			t.Errorf("handler called %d times", calls.Load())
		}
	})
}

func httpBody(s string) *readCloser { return &readCloser{strings.NewReader(s)} }

type readCloser struct{ *strings.Reader }

func (*readCloser) Close() error { return nil }

// A delivery of an event the spec does not list (a newer API's) is acknowledged once its
// signature is checked; a payload that does not decode is 400 and reserves nothing.
func TestUnknownAndUndecodable(t *testing.T) {
	var calls atomic.Int32
	h := receiver(t, routes(func(ctx context.Context, c created) error { calls.Add(1); return nil }, nil))
	if code := serve(h, delivery("msg_1", `{"type": "thing.renamed"}`)).StatusCode; code != 200 {
		t.Errorf("unknown event: %d", code)
	}
	forged := delivery("msg_1", `{"type": "thing.renamed"}`)
	forged.Header.Set("webhook-signature", "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=")
	if code := serve(h, forged).StatusCode; code != 400 {
		t.Errorf("unknown event, bad signature: %d", code)
	}
	if code := serve(h, delivery("msg_2", `{"type": "thing.created", "data": "not an object"}`)).StatusCode; code != 400 {
		t.Errorf("undecodable: %d", code)
	}
	if code := serve(h, delivery("msg_2", createdBody)).StatusCode; code != 200 || calls.Load() != 1 {
		t.Errorf("then decodable under the same id: %d, %d calls", code, calls.Load())
	}
}

// A handler that panics releases the delivery's id: the sender's next attempt runs it.
func TestPanicReleases(t *testing.T) {
	var calls int
	h := receiver(t, routes(func(ctx context.Context, c created) error {
		calls++
		if calls == 1 {
			panic("boom")
		}
		return nil
	}, nil))
	func() {
		defer func() { recover() }()
		serve(h, delivery("msg_1", createdBody))
	}()
	if code := serve(h, delivery("msg_1", createdBody)).StatusCode; code != 200 || calls != 2 {
		t.Errorf("after a panic: %d, %d calls", code, calls)
	}
}

// NewReceiver refuses what would check nothing: signed webhooks without a secret, secrets
// for webhooks the spec does not sign.
func TestReceiverRefusesConfig(t *testing.T) {
	if _, err := webhook.NewReceiver(routes(nil, nil)); err == nil {
		t.Error("signed webhooks without a secret accepted")
	}
	unsigned := []webhook.Route{webhook.Handle(webhook.Route{Name: "x", Method: "POST"}, func(context.Context, created) error { return nil })}
	if _, err := webhook.NewReceiver(unsigned, webhook.WithSecret(secret)); err == nil {
		t.Error("a secret for unsigned webhooks accepted")
	}
	if _, err := webhook.NewReceiver([]webhook.Route{{Name: "x", Method: "POST"}}); err == nil {
		t.Error("a route without a handler accepted")
	}
}

// The receiver's log names what it refused, never the secret, a signature or the body.
func TestLogShowsNoSecret(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := receiver(t, routes(func(ctx context.Context, c created) error { return errors.New("failed") }, nil), webhook.WithLogger(log))
	r := delivery("msg_1", createdBody)
	sig := r.Header.Get("webhook-signature")
	serve(h, r)
	bad := delivery("msg_1", createdBody)
	bad.Header.Set("webhook-signature", "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=")
	serve(h, bad)
	out := buf.String()
	for _, s := range []string{secret, strings.TrimPrefix(secret, "whsec_"), strings.TrimPrefix(sig, "v1,"), "Ceo5qEr07ixe2NLpvHk3FH9bwy", "t_1"} {
		if strings.Contains(out, s) {
			t.Errorf("the log shows %q:\n%s", s, out)
		}
	}
	if !strings.Contains(out, "signature refused") || !strings.Contains(out, "handler failed") {
		t.Errorf("the log says nothing of what happened:\n%s", out)
	}
}

// Routes recognised by the request's path, and a delivery no route takes.
func TestPathRoutes(t *testing.T) {
	var got []string
	mk := func(name, path string) webhook.Route {
		return webhook.Handle(webhook.Route{Name: name, Method: "POST", Path: path}, func(ctx context.Context, v map[string]any) error {
			got = append(got, name)
			return nil
		})
	}
	h, err := webhook.NewReceiver([]webhook.Route{mk("data", "/data"), mk("meta", "/data/meta")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/cb/data", "/cb/data/meta", "/cb/other"} {
		serve(h, httptest.NewRequest("POST", p, strings.NewReader("{}")))
	}
	if strings.Join(got, ",") != "data,meta" {
		t.Errorf("handled %v", got)
	}
}
