package runtime

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// RetryEvent describes one retry, for Engine.OnRetry.
type RetryEvent struct {
	Method     string
	URL        string        // redacted
	Attempt    int           // the attempt that failed, from 1
	Wait       time.Duration // the wait before the next attempt
	StatusCode int           // of the failed attempt, 0 if it got no response
	Err        error         // of the failed attempt, nil if it got a response
}

// Engine sends requests under a Policy. One Engine serves all calls of one generated client,
// so that they share its budget and breaker. The zero value is ready to use and retries
// without a budget; set the fields before the first call and do not change them after.
type Engine struct {
	// HTTPClient sends each attempt; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Budget caps retries to a share of recent requests; nil means no budget.
	Budget *Budget
	// Breaker stops calls while the server keeps failing; nil means none.
	Breaker *Breaker
	// Logger receives one WARN record per retry; nil logs nothing.
	Logger *slog.Logger
	// OnRetry is called before each wait; nil means no hook.
	OnRetry func(RetryEvent)
	// Override adjusts every policy before a call (a client-wide policy override).
	Override func(*Policy)
}

// Do sends req under policy p and returns the response of the final attempt when its status
// is 2xx, open for the caller to read and close. Any other outcome is an *Error: a non-2xx
// final response (its body read up to ErrorBodyLimit and closed), a transport failure, or a
// retry loop that stopped early. The request is sent at least once unless ctx is already
// done or the breaker is open. req's context is replaced by ctx.
func (e *Engine) Do(ctx context.Context, req *http.Request, p *Policy, opts ...CallOption) (*http.Response, error) {
	client := e.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	// Placeholder: a single attempt. The engine's real loop replaces this.
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		return nil, &Error{Method: req.Method, URL: req.URL.Redacted(), Attempts: 1, Err: err}
	}
	return resp, nil
}

// Budget caps the retries of all calls of one client to a share of their recent requests.
type Budget struct{}

// Breaker is a circuit breaker shared by all calls of one client.
type Breaker struct{}
