package wire_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/retrytest"
	"github.com/retrygen/retrygen/runtime/wire"
)

var (
	overloaded   = retrytest.ErrorEvent(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	badRequest   = retrytest.ErrorEvent(`{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}`)
	openAIServer = retrytest.Event{Data: `{"error":{"message":"The server had an error","type":"server_error","code":null}}`}
)

func textEvents(ids bool, data ...string) []retrytest.Event {
	var out []retrytest.Event
	for i, d := range data {
		ev := retrytest.Event{Data: d}
		if ids {
			ev.ID = string(rune('1' + i))
		}
		out = append(out, ev)
	}
	return out
}

// openText opens a stream of string events through tr under p.
func openText(t *testing.T, tr *retrytest.Transport, p runtime.Policy, opts ...wire.CallOption) (*wire.Stream[string], error) {
	t.Helper()
	c, err := wire.NewClient("http://api.test", wire.WithHTTPClient(tr.Client()), wire.WithJitterSource(func() float64 { return 0 }))
	if err != nil {
		t.Fatal(err)
	}
	return wire.OpenStream[string](context.Background(), c, wire.NewRequest("POST"), &p, wire.StreamConfig{Text: true}, opts)
}

func read(s *wire.Stream[string]) []string {
	var got []string
	for s.Next() {
		got = append(got, s.Current())
	}
	return got
}

var keyed = runtime.Policy{MaxAttempts: 4, InitialDelay: 100 * time.Millisecond, MaxDelay: time.Second, Multiplier: 2,
	Idempotent: true, ConnectionErrors: true, IdempotencyKey: "Idempotency-Key", MaxRetryAfter: time.Minute}

// An overloaded first event is that attempt's failure: the stream is requested again with
// the same key, and the caller sees only the second attempt's events, once each.
func TestStreamRetriesAnErrorBeforeTheFirstEvent(t *testing.T) {
	for _, first := range []retrytest.Event{overloaded, openAIServer} {
		synctest.Test(t, func(t *testing.T) {
			tr := retrytest.NewTransport(nil, retrytest.Events(first),
				retrytest.Events(textEvents(false, "a", "b", "[DONE]")...))
			s, err := openText(t, tr, keyed)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got := read(s)
			if strings.Join(got, ",") != "a,b" || s.Err() != nil {
				t.Errorf("got %q, err %v; want a,b and no error", got, s.Err())
			}
			reqs := tr.Requests()
			if len(reqs) != 2 || reqs[0].Header.Get("Idempotency-Key") == "" ||
				reqs[0].Header.Get("Idempotency-Key") != reqs[1].Header.Get("Idempotency-Key") {
				t.Errorf("%d requests, keys %q; want 2 with the same key", len(reqs), keyOf(reqs))
			}
		})
	}
}

func keyOf(reqs []retrytest.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Header.Get("Idempotency-Key"))
	}
	return out
}

// An error event is retried only as its status would be: an invalid request is not, and an
// operation that is not retry-safe never sends its request again. The stream does not
// open: its error is the call's, and carries the event.
func TestStreamErrorEventNotRetried(t *testing.T) {
	post := keyed
	post.Idempotent, post.IdempotencyKey = false, ""
	cases := []struct {
		name  string
		first retrytest.Event
		p     runtime.Policy
		is    error
		code  string
	}{
		{"invalid request", badRequest, keyed, runtime.ErrStatusNotRetried, "invalid_request_error"},
		{"not retry-safe", overloaded, post, runtime.ErrNotRetrySafe, "overloaded_error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr := retrytest.NewTransport(nil, retrytest.Events(c.first), retrytest.Events(textEvents(false, "a")...))
				s, err := openText(t, tr, c.p)
				if err == nil {
					s.Close()
					t.Fatal("the stream opened")
				}
				var ee *wire.EventError
				var apiErr *runtime.Error
				if !errors.As(err, &apiErr) || apiErr.Attempts != 1 || !errors.As(err, &ee) || ee.Code != c.code || !errors.Is(err, c.is) {
					t.Fatalf("err = %v, want the call's error after 1 attempt, carrying the %s event and matching %v", err, c.code, c.is)
				}
				if n := len(tr.Requests()); n != 1 {
					t.Errorf("%d requests, want 1", n)
				}
			})
		})
	}
}

// Error events in a row use up the policy's attempts; the last one is the call's error.
func TestStreamErrorEventsExhaustAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(nil, retrytest.Events(overloaded), retrytest.Events(overloaded),
			retrytest.Events(overloaded), retrytest.Events(overloaded), retrytest.Events(textEvents(false, "a")...))
		_, err := openText(t, tr, keyed)
		var ee *wire.EventError
		if !errors.Is(err, runtime.ErrExhausted) || !errors.As(err, &ee) || ee.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("err = %v, want exhausted on an overloaded event (as 503)", err)
		}
		if n := len(tr.Requests()); n != keyed.MaxAttempts {
			t.Errorf("%d requests, want %d", n, keyed.MaxAttempts)
		}
	})
}

// After the first event, an error event ends the stream with an error that carries it and
// counts the events delivered, unless the stream can resume with Last-Event-ID.
func TestStreamErrorEventAfterTheFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		events := append(textEvents(false, "a", "b"), overloaded)
		tr := retrytest.NewTransport(nil, retrytest.Events(events...))
		s, err := openText(t, tr, keyed)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := read(s)
		var se *wire.StreamError
		var ee *wire.EventError
		if strings.Join(got, ",") != "a,b" || !errors.As(s.Err(), &se) || se.Delivered != 2 || !errors.As(s.Err(), &ee) {
			t.Fatalf("got %q, err %v; want a,b then a StreamError carrying the event", got, s.Err())
		}
		if msg := s.Err().Error(); !strings.Contains(msg, "after 2 events delivered") || !strings.Contains(msg, "overloaded_error") {
			t.Errorf("error text %q", msg)
		}
	})
	// With IDs, the stream resumes from the last one.
	synctest.Test(t, func(t *testing.T) {
		first := append(textEvents(true, "a", "b"), overloaded)
		tr := retrytest.NewTransport(nil, retrytest.Events(first...),
			retrytest.Events(retrytest.Event{ID: "3", Data: "c"}, retrytest.Event{Data: "[DONE]"}))
		s, err := openText(t, tr, keyed)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := read(s)
		if strings.Join(got, ",") != "a,b,c" || s.Err() != nil {
			t.Errorf("got %q, err %v; want a,b,c", got, s.Err())
		}
		if reqs := tr.Requests(); len(reqs) != 2 || reqs[1].Header.Get("Last-Event-ID") != "2" {
			t.Errorf("resumed with %d requests, Last-Event-ID %q", len(reqs), reqs[len(reqs)-1].Header.Get("Last-Event-ID"))
		}
	})
}

// WithMaxEventSize bounds one event; a larger one is a clear error, not a hang or a cut.
func TestStreamMaxEventSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(nil, retrytest.Events(textEvents(false, "short", strings.Repeat("x", 100))...))
		s, err := openText(t, tr, keyed, wire.WithMaxEventSize(64))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := read(s)
		var se *wire.StreamError
		if strings.Join(got, ",") != "short" || !errors.As(s.Err(), &se) || !errors.Is(s.Err(), wire.ErrEventTooLarge) {
			t.Errorf("got %q, err %v; want one event, then ErrEventTooLarge", got, s.Err())
		}
	})
}

// A cut scripted by EventsCut reconnects a retry-safe stream.
func TestScriptedCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(nil, retrytest.EventsCut(1, textEvents(true, "a", "b")...),
			retrytest.Events(retrytest.Event{ID: "2", Data: "b"}))
		s, err := openText(t, tr, keyed)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got := read(s); strings.Join(got, ",") != "a,b" || s.Err() != nil {
			t.Errorf("got %q, err %v", got, s.Err())
		}
	})
}

func TestEventErrorText(t *testing.T) {
	for data, want := range map[string]string{
		`{"error":{"type":"rate_limit_exceeded","message":"Slow down"}}`:        "error event rate_limit_exceeded (as 429 Too Many Requests): Slow down",
		`{"error":{"code":503,"message":"UNAVAILABLE","status":"UNAVAILABLE"}}`: "error event 503 (as 503 Service Unavailable): UNAVAILABLE",
		`{"error":"plain words"}`:                             "error event: plain words",
		`{"error":{"message":"\u001b]0;pwned\u0007 \u202e"}}`: `error event: ]0;pwned`,
	} {
		tr := retrytest.NewTransport(nil, retrytest.Events(retrytest.Event{Data: data}))
		synctest.Test(t, func(t *testing.T) {
			_, err := openText(t, tr, runtime.Policy{MaxAttempts: 1})
			var ee *wire.EventError
			if !errors.As(err, &ee) || ee.Error() != want {
				t.Errorf("%s: %v, want %q", data, err, want)
			}
		})
	}
	// An event whose data only starts like an error is an ordinary event.
	tr := retrytest.NewTransport(nil, retrytest.Events(textEvents(false, `{"error":null,"text":"hi"}`)...))
	synctest.Test(t, func(t *testing.T) {
		s, err := openText(t, tr, keyed)
		if err != nil {
			t.Fatal(err)
		}
		if got := read(s); len(got) != 1 || s.Err() != nil {
			t.Errorf("got %q, err %v; want the event delivered", got, s.Err())
		}
	})
}

// keyedClient returns a client of tr that sends the API key sk-ant-SECRET-1234.
func keyedClient(t *testing.T, tr *retrytest.Transport) *wire.Client {
	t.Helper()
	c, err := wire.NewClient("http://api.test", wire.WithHTTPClient(tr.Client()), wire.WithRequestEditor(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Api-Key", "sk-ant-SECRET-1234")
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The request's credentials, echoed in an error event, are hidden from the call's error
// text, as they are from a response body's.
func TestEventErrorHidesCredentials(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(nil, retrytest.Events(retrytest.ErrorEvent(
			`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-ant-SECRET-1234"}}`)))
		c := keyedClient(t, tr)
		_, err := wire.OpenStream[string](context.Background(), c, wire.NewRequest("POST"), &keyed, wire.StreamConfig{Text: true}, nil)
		if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "authentication_error") {
			t.Errorf("err = %v, want the event's error without the key", err)
		}
	})
}

// A stream's error events count against the budget as the failures they stand for: in an
// outage answered with overloaded first events, the default budget keeps retries to its
// floor, as it does for 503s.
func TestStreamErrorEventsDrawOnTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(nil)
		c, err := wire.NewClient("http://api.test", wire.WithHTTPClient(tr.Client()), wire.WithJitterSource(func() float64 { return 0 }))
		if err != nil {
			t.Fatal(err)
		}
		const calls = 100
		for range calls {
			tr.Then(retrytest.Events(overloaded), retrytest.Events(overloaded), retrytest.Events(overloaded), retrytest.Events(overloaded))
			if s, err := wire.OpenStream[string](context.Background(), c, wire.NewRequest("POST"), &keyed, wire.StreamConfig{Text: true}, nil); err == nil {
				s.Close()
			}
			time.Sleep(100 * time.Millisecond)
		}
		if load := float64(len(tr.Requests())) / calls; load > 1.2 {
			t.Errorf("%d requests for %d calls (%.2f×), want the budget to hold them under 1.2×", len(tr.Requests()), calls, load)
		}
	})
}

// A stream that stops for load reasons (its reconnections ran out) under a request of
// runtime.OneRetryLayer tells the layer above not to retry, as a call that gave up does.
func TestStreamGiveUpIsSignalled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		events := textEvents(true, "a", "b")
		tr := retrytest.NewTransport(nil, retrytest.EventsCut(1, events...), retrytest.EventsCut(0, events...),
			retrytest.EventsCut(0, events...), retrytest.EventsCut(0, events...), retrytest.EventsCut(0, events...))
		svc := runtime.OneRetryLayer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := wire.NewClient("http://api.test", wire.WithHTTPClient(tr.Client()))
			if err != nil {
				t.Fatal(err)
			}
			s, err := wire.OpenStream[string](r.Context(), c, wire.NewRequest("GET"), &keyed, wire.StreamConfig{Text: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			read(s)
			if !errors.Is(s.Err(), runtime.ErrExhausted) {
				t.Errorf("stream err = %v, want its reconnections exhausted", s.Err())
			}
			w.WriteHeader(http.StatusBadGateway)
		}))
		rec := httptest.NewRecorder()
		svc.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if got := rec.Result().Header.Get("X-Should-Retry"); got != "false" {
			t.Errorf("X-Should-Retry = %q, want false", got)
		}
	})
}

// After the first event too, the request's credentials echoed in an error event are
// hidden from the stream's error text.
func TestStreamErrorEventAfterTheFirstHidesCredentials(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		events := append(textEvents(false, "a"), retrytest.ErrorEvent(
			`{"type":"error","error":{"type":"authentication_error","message":"key sk-ant-SECRET-1234 revoked"}}`))
		tr := retrytest.NewTransport(nil, retrytest.Events(events...))
		c := keyedClient(t, tr)
		s, err := wire.OpenStream[string](context.Background(), c, wire.NewRequest("POST"), &keyed, wire.StreamConfig{Text: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		read(s)
		if err := s.Err(); err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "revoked") {
			t.Errorf("err = %v, want the event's error without the key", err)
		}
	})
}

// rateLimited is an error model an operation declares for 429.
type rateLimited struct {
	Error_ struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

func (r *rateLimited) Error() string { return r.Error_.Message }

// An error event decodes into the error model the operation declares for the status it
// stands for, with the request's credentials hidden, and errors.As reaches it.
func TestEventErrorDecodesTheDeclaredModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(nil, retrytest.Events(retrytest.Event{
			Data: `{"error":{"message":"slow down, sk-SECRET-1","type":"rate_limit_exceeded"}}`}))
		c, err := wire.NewClient("http://api.test", wire.WithHTTPClient(tr.Client()), wire.WithRequestEditor(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer sk-SECRET-1")
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		cfg := wire.StreamConfig{Text: true, DecodeError: func(status int) any {
			if status == 429 {
				return new(rateLimited)
			}
			return nil
		}}
		_, err = wire.OpenStream[string](context.Background(), c, wire.NewRequest("POST"), &runtime.Policy{MaxAttempts: 1}, cfg, nil)
		m, ok := errors.AsType[*rateLimited](err)
		if !ok || m.Error_.Type != "rate_limit_exceeded" || strings.Contains(m.Error_.Message, "SECRET") || !strings.Contains(m.Error_.Message, "slow down") {
			t.Errorf("err = %v, model %+v; want the declared model, decoded, without the token", err, m)
		}
	})
}

// The *EventError of a connection's first event, which the call's error carries, shows
// the request's credentials echoed in it hidden too, in its Message, its Code and its
// text, as the error events after the first do.
func TestFirstEventErrorHidesCredentialsInTheEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(nil, retrytest.Events(retrytest.ErrorEvent(
			`{"type":"error","error":{"type":"bad_key_sk-ant-SECRET-1234","message":"invalid x-api-key sk-ant-SECRET-1234"}}`)))
		c := keyedClient(t, tr)
		_, err := wire.OpenStream[string](context.Background(), c, wire.NewRequest("POST"), &keyed, wire.StreamConfig{Text: true}, nil)
		ee, ok := errors.AsType[*runtime.EventError](err)
		if !ok {
			t.Fatalf("err = %v, want an *EventError", err)
		}
		for what, text := range map[string]string{"Message": ee.Message, "Code": ee.Code, "Error()": ee.Error()} {
			if strings.Contains(text, "SECRET") || !strings.Contains(text, "REDACTED") {
				t.Errorf("%s = %q, want the key hidden", what, text)
			}
		}
	})
}
