package wire_test

import (
	"context"
	"errors"
	"net/http"
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
// operation that is not retry-safe never sends its request again. The error carries the
// event, and says no event was delivered.
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
		{"invalid request", badRequest, keyed, nil, "invalid_request_error"},
		{"not retry-safe", overloaded, post, runtime.ErrNotRetrySafe, "overloaded_error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr := retrytest.NewTransport(nil, retrytest.Events(c.first), retrytest.Events(textEvents(false, "a")...))
				s, err := openText(t, tr, c.p)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if got := read(s); len(got) != 0 {
					t.Errorf("delivered %q", got)
				}
				var se *wire.StreamError
				var ee *wire.EventError
				if !errors.As(s.Err(), &se) || se.Delivered != 0 || !errors.As(s.Err(), &ee) || ee.Code != c.code {
					t.Fatalf("err = %v, want a StreamError with 0 delivered carrying the %s event", s.Err(), c.code)
				}
				if c.is != nil && !errors.Is(s.Err(), c.is) {
					t.Errorf("err = %v, want it to match %v", s.Err(), c.is)
				}
				if n := len(tr.Requests()); n != 1 {
					t.Errorf("%d requests, want 1", n)
				}
			})
		})
	}
}

// Error events in a row use up the policy's attempts; the last one ends the stream.
func TestStreamErrorEventsExhaustAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(nil, retrytest.Events(overloaded), retrytest.Events(overloaded),
			retrytest.Events(overloaded), retrytest.Events(overloaded), retrytest.Events(textEvents(false, "a")...))
		s, err := openText(t, tr, keyed)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		read(s)
		var ee *wire.EventError
		if !errors.Is(s.Err(), runtime.ErrExhausted) || !errors.As(s.Err(), &ee) || ee.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("err = %v, want exhausted on an overloaded event (as 503)", s.Err())
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
			s, err := openText(t, tr, runtime.Policy{MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			read(s)
			var ee *wire.EventError
			if !errors.As(s.Err(), &ee) || ee.Error() != want {
				t.Errorf("%s: %v, want %q", data, s.Err(), want)
			}
		})
	}
	// An event whose data only starts like an error is an ordinary event.
	tr := retrytest.NewTransport(nil, retrytest.Events(textEvents(false, `{"error":null,"text":"hi"}`)...))
	synctest.Test(t, func(t *testing.T) {
		s, _ := openText(t, tr, keyed)
		if got := read(s); len(got) != 1 || s.Err() != nil {
			t.Errorf("got %q, err %v; want the event delivered", got, s.Err())
		}
	})
}
