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
	if want := "GET https://api.test/v1/x: no status code after 1 attempt: status not retried by the operation's policy"; err == nil || err.Error() != want {
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
