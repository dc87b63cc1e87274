package runtime

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
)

// A 2xx answer its check fails (a stream's first event that is an error event) is retried
// as the status it stands for, and its retry event and log line say that status, not the
// 200 the connection had: an overloaded stream shows 503.
func TestFailedAnswerShowsTheStatusItStandsFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: func(n int, r *http.Request) (*http.Response, error) { return jsonResponse(200, `{}`), nil }}
		var events []RetryEvent
		var log bytes.Buffer
		e := engineFor(s, 0.5)
		e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
		e.Logger = slog.New(slog.NewTextHandler(&log, nil))
		p := idempotent()
		p.StatusCodes = []StatusCode{503}
		checked := 0
		_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", "https://api.test/stream", nil), p,
			WithAnswerCheck(func(*http.Response) error {
				if checked++; checked == 1 {
					return failedAs503("overloaded_error")
				}
				return nil
			}))
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || events[0].StatusCode != 503 || events[0].Err == nil || !strings.Contains(events[0].Err.Error(), "overloaded_error") {
			t.Errorf("retry events %+v; want one of status 503 with the check's error", events)
		}
		if line := log.String(); !strings.Contains(line, "http.response.status_code=503") || !strings.Contains(line, "overloaded_error") {
			t.Errorf("log %q; want http.response.status_code=503 and the error", line)
		}
	})
}
