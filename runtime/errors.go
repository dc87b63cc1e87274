package runtime

import (
	"errors"
	"net/http"
	"time"
)

// Sentinel causes, reachable with errors.Is on an *Error.
var (
	// ErrExhausted: every allowed attempt failed.
	ErrExhausted = errors.New("retry attempts exhausted")
	// ErrBudgetExhausted: the client's retry budget allowed no further retry.
	ErrBudgetExhausted = errors.New("retry budget exhausted")
	// ErrCircuitOpen: the client's circuit breaker is open.
	ErrCircuitOpen = errors.New("circuit breaker open")
	// ErrBodyNotReplayable: the request body cannot be sent again (no GetBody).
	ErrBodyNotReplayable = errors.New("request body cannot be replayed")
	// ErrRetryAfterTooLong: the server asked for a wait longer than MaxRetryAfter, the
	// context deadline or MaxElapsed allows.
	ErrRetryAfterTooLong = errors.New("server asked to retry later than allowed")
)

// Error is the error Engine.Do returns for a failed call: a transport failure, a non-2xx
// final response, or a retry loop that stopped early. errors.As reaches the last attempt's
// error (Err) and errors.Is the reason the engine stopped (Cause).
type Error struct {
	Method string // e.g. "GET"
	URL    string // the request URL, user information redacted
	// Attempts is the number of attempts made.
	Attempts int
	// StatusCode, Header and Body describe the last response; StatusCode is 0 when the last
	// attempt got none. Body holds at most ErrorBodyLimit bytes.
	StatusCode int
	Header     http.Header
	Body       []byte
	// RetryAfter is the server's hint when it ended the call (ErrRetryAfterTooLong).
	RetryAfter time.Duration
	// Err is the last attempt's transport error, or nil when it got a response.
	Err error
	// Cause is why the engine stopped retrying, one of the sentinels, or nil when the last
	// outcome was not retryable.
	Cause error
	// Model is the decoded error body, set by generated code when the spec declares one.
	Model any
}

func (e *Error) Error() string {
	// Placeholder formatting; the engine's own implementation refines it.
	return e.Method + " " + e.URL + ": request failed"
}

// Unwrap returns the cause, the last attempt's error and the error model, whichever are set.
func (e *Error) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.Cause, e.Err} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if m, ok := e.Model.(error); ok {
		errs = append(errs, m)
	}
	return errs
}
