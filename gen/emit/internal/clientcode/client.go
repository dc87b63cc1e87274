// Package clientcode is the fixed part of every generated client: the Client type, its
// options, the re-exported runtime names and the request-building helpers the generated
// methods call. The emitter copies everything after the import block into each generated
// file verbatim, so this file must only use the imports it declares and must not refer to
// anything a generated file declares. Keeping it a real package means it is compiled,
// vetted and unit-tested like any other code.
package clientcode

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// Client calls the API. It is safe for concurrent use; all its calls share one retry
// budget and, when enabled, one circuit breaker.
type Client struct {
	baseURL   *url.URL
	engine    *runtime.Engine
	editors   []func(ctx context.Context, req *http.Request) error
	userAgent string
}

// Option configures a Client.
type Option func(*Client)

// NewClient returns a client for the API served at baseURL, e.g.
// "https://api.example.com/v1". By default it sends requests with http.DefaultClient,
// retries each operation under the policy its spec declares, and caps retries with
// runtime.DefaultBudget.
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: want an absolute http or https URL", u.Redacted())
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("base URL %q: must not have a query or fragment", u.Redacted())
	}
	u.RawPath = strings.TrimSuffix(u.EscapedPath(), "/")
	u.Path = strings.TrimSuffix(u.Path, "/")
	c := &Client{baseURL: u, engine: &runtime.Engine{Budget: runtime.DefaultBudget()}}
	for _, opt := range opts {
		opt(c)
	}
	return c, nil
}

// WithHTTPClient sends every attempt with hc instead of http.DefaultClient. Do not give
// it a transport that retries by itself: its attempts would multiply the client's.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.engine.HTTPClient = hc }
}

// WithRequestEditor calls edit on each request before it is sent, for example to add
// authentication. It runs once per call, before the first attempt, never on a redirect,
// so credentials it adds are not carried to another host. An error from edit ends the
// call before anything is sent.
func WithRequestEditor(edit func(ctx context.Context, req *http.Request) error) Option {
	return func(c *Client) { c.editors = append(c.editors, edit) }
}

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua }
}

// WithLogger logs each retry at WARN level to l, without header values or bodies.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) { c.engine.Logger = l }
}

// WithOnRetry calls fn before each wait between attempts.
func WithOnRetry(fn func(RetryEvent)) Option {
	return func(c *Client) { c.engine.OnRetry = fn }
}

// WithRetryBudget caps the retries of all calls to ratio of recent requests, plus
// minPerSecond retries per second, instead of the default budget.
func WithRetryBudget(ratio, minPerSecond float64) Option {
	return func(c *Client) { c.engine.Budget = runtime.NewBudget(ratio, minPerSecond) }
}

// WithoutRetryBudget lets every call make all the attempts its policy allows, however
// many other calls are failing.
func WithoutRetryBudget() Option {
	return func(c *Client) { c.engine.Budget = nil }
}

// WithCircuitBreaker stops calls for coolDown after failures consecutive failed calls,
// then lets one probe call through to decide whether to close again.
func WithCircuitBreaker(failures int, coolDown time.Duration) Option {
	return func(c *Client) { c.engine.Breaker = runtime.NewBreaker(failures, coolDown) }
}

// WithPolicyOverride lets fn adjust the retry policy of every call, e.g. to cap
// MaxAttempts client-wide. fn receives a copy; changing it does not change the
// operation's own policy.
func WithPolicyOverride(fn func(*Policy)) Option {
	return func(c *Client) { c.engine.Override = fn }
}

// CallOption changes how one call is made; pass it as the last argument of a method.
type CallOption = runtime.CallOption

// APIError is the error a method returns when a call fails: a non-2xx response, a
// transport failure, or a retry loop that stopped early. When the spec declares an error
// model for the response's status, Model holds it decoded and errors.As reaches it.
type APIError = runtime.Error

// Policy says how an operation is retried.
type Policy = runtime.Policy

// RetryEvent describes one retry, for WithOnRetry.
type RetryEvent = runtime.RetryEvent

// Reasons a call stopped retrying, for errors.Is.
var (
	ErrExhausted         = runtime.ErrExhausted
	ErrBudgetExhausted   = runtime.ErrBudgetExhausted
	ErrCircuitOpen       = runtime.ErrCircuitOpen
	ErrBodyNotReplayable = runtime.ErrBodyNotReplayable
	ErrRetryAfterTooLong = runtime.ErrRetryAfterTooLong
)

// WithMaxAttempts makes at most n attempts for this call.
func WithMaxAttempts(n int) CallOption { return runtime.WithMaxAttempts(n) }

// WithoutRetry sends this call once, whatever its policy says.
func WithoutRetry() CallOption { return runtime.WithoutRetry() }

// WithIdempotencyKey sends key as this call's idempotency key instead of a random one.
func WithIdempotencyKey(key string) CallOption { return runtime.WithIdempotencyKey(key) }

// WithAttemptTimeout bounds each attempt of this call by d.
func WithAttemptTimeout(d time.Duration) CallOption { return runtime.WithAttemptTimeout(d) }

// WithHeader adds a header to every attempt of this call.
func WithHeader(key, value string) CallOption { return runtime.WithHeader(key, value) }
