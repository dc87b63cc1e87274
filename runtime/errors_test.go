package runtime

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/runtime/retrytest"
)

// The attempt count and "no attempt made" never contradict each other: a response with no
// status code (retrytest.Status(0)) is not "no attempt".
func TestErrorAttemptWordingAgrees(t *testing.T) {
	tr := retrytest.NewTransport(http.NotFoundHandler(), retrytest.Status(0))
	e := &Engine{HTTPClient: tr.Client()}
	_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", "https://api.test/v1/x", nil), idempotent())
	if want := "GET https://api.test/v1/x: no status code"; err == nil || err.Error() != want {
		t.Errorf("Status(0): %v, want %s", err, want)
	}

	for _, attempts := range []int{0, 1, 2} {
		for _, code := range []int{0, 503} {
			for _, cause := range []error{nil, ErrStatusNotRetried, ErrExhausted, ErrCircuitOpen, context.DeadlineExceeded} {
				for _, last := range []error{nil, errors.New("EOF")} {
					e := &Error{Method: "GET", URL: "https://api.test/x", Attempts: attempts, StatusCode: code, Err: last, Cause: cause}
					text := e.Error()
					if attempts > 0 && strings.Contains(text, "no attempt") {
						t.Errorf("%d attempts: %q", attempts, text)
					}
					if attempts == 0 && strings.Contains(text, "after") {
						t.Errorf("no attempt: %q", text)
					}
				}
			}
		}
	}
}

// A status the operation's policy does not retry, answered on the first attempt, reads as
// the response alone: no attempt count, no reason for not retrying. Where retries happened,
// or a retryable outcome was stopped, the text still says so.
func TestErrorRetryWording(t *testing.T) {
	const prefix = "GET https://api.test/v1/x: "
	for _, tc := range []struct {
		name string
		e    Error
		want string
	}{
		{"401 not retried", Error{Attempts: 1, StatusCode: 401, Cause: ErrStatusNotRetried}, "401 Unauthorized"},
		{"404 not retried", Error{Attempts: 1, StatusCode: 404, Cause: ErrStatusNotRetried}, "404 Not Found"},
		{"429 outside the list keeps no hint", Error{Attempts: 1, StatusCode: 429, RetryAfter: 30e9, Cause: ErrStatusNotRetried},
			"429 Too Many Requests"},
		{"not retried after retries", Error{Attempts: 3, StatusCode: 400, Cause: ErrStatusNotRetried},
			"400 Bad Request after 3 attempts: status not retried by the operation's policy"},
		{"exhausted", Error{Attempts: 3, StatusCode: 503, Cause: ErrExhausted},
			"503 Service Unavailable after 3 attempts: retry attempts exhausted"},
		{"retries off", Error{Attempts: 1, StatusCode: 503, Cause: ErrRetriesOff},
			"503 Service Unavailable after 1 attempt: not retried: one attempt allowed"},
		{"budget", Error{Attempts: 1, StatusCode: 503, Cause: ErrBudgetExhausted},
			"503 Service Unavailable after 1 attempt: retry budget exhausted"},
		{"not retry-safe", Error{Attempts: 1, StatusCode: 503, Cause: ErrNotRetrySafe},
			"503 Service Unavailable after 1 attempt: not retried: the operation is not idempotent and its policy has no idempotency key"},
		{"hint too long", Error{Attempts: 1, StatusCode: 429, RetryAfter: 3600e9, Cause: ErrRetryAfterTooLong},
			"429 Too Many Requests after 1 attempt: server asked to retry later than allowed (Retry-After 1h0m0s)"},
		{"breaker", Error{Cause: ErrCircuitOpen}, "no attempt made: circuit breaker open"},
		{"cancelled", Error{Attempts: 1, Err: context.Canceled}, "context canceled after 1 attempt"},
	} {
		tc.e.Method, tc.e.URL = "GET", "https://api.test/v1/x"
		if got := tc.e.Error(); got != prefix+tc.want {
			t.Errorf("%s\ngot  %s\nwant %s", tc.name, got, prefix+tc.want)
		}
	}
}

// The same through the engine: a 401 ends the call on its first attempt.
func TestErrorNotRetriedStatusThroughEngine(t *testing.T) {
	tr := retrytest.NewTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	e := &Engine{HTTPClient: tr.Client()}
	_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", "https://api.test/v1/x", nil), idempotent())
	if want := "GET https://api.test/v1/x: 401 Unauthorized"; err == nil || err.Error() != want {
		t.Errorf("message\n%v\nwant\n%s", err, want)
	}
	if !errors.Is(err, ErrStatusNotRetried) || mustError(t, err).Attempts != 1 {
		t.Errorf("err = %#v", err)
	}
}
