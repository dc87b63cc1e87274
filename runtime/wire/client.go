package wire

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

// Client holds what the calls of one generated client share: the base URL, the retry
// engine (with its budget and breaker), the request editors and the user agent. It is
// safe for concurrent use once built.
type Client struct {
	baseURL   *url.URL
	engine    *runtime.Engine
	editors   []func(ctx context.Context, req *http.Request) error
	userAgent string
}

// Option configures a Client.
type Option func(*Client)

// NewClient returns a client for the API served at baseURL, an absolute http or https URL
// without query or fragment, e.g. "https://api.example.com/v1". By default it sends
// requests with http.DefaultClient and caps retries with runtime.DefaultBudget.
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

// WithHTTPClient sends every attempt with hc instead of http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.engine.HTTPClient = hc }
}

// WithRequestEditor calls edit on each request before it is sent. It runs once per call,
// before the first attempt, never on a redirect, so credentials it adds are not carried
// to another host. An error from edit ends the call before anything is sent.
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
func WithOnRetry(fn func(runtime.RetryEvent)) Option {
	return func(c *Client) { c.engine.OnRetry = fn }
}

// WithRetryBudget caps the retries of all calls to ratio of recent requests, plus
// minPerSecond retries per second, instead of the default budget.
func WithRetryBudget(ratio, minPerSecond float64) Option {
	return func(c *Client) { c.engine.Budget = runtime.NewBudget(ratio, minPerSecond) }
}

// WithoutRetryBudget lets every call make all the attempts its policy allows.
func WithoutRetryBudget() Option {
	return func(c *Client) { c.engine.Budget = nil }
}

// WithCircuitBreaker stops calls for coolDown after failures consecutive failed calls,
// then lets one probe call through to decide whether to close again.
func WithCircuitBreaker(failures int, coolDown time.Duration) Option {
	return func(c *Client) { c.engine.Breaker = runtime.NewBreaker(failures, coolDown) }
}

// WithJitterSource makes rnd the random source of the backoff's jitter: each call returns
// a number in [0, 1). A seeded source, e.g. rand.New(rand.NewPCG(1, 2)).Float64, makes the
// waits of a test repeatable; guard it with a mutex if calls run concurrently.
func WithJitterSource(rnd func() float64) Option {
	return func(c *Client) { c.engine.Rand = rnd }
}

// WithResponseHeaderTimeout bounds how long each attempt waits for its response header
// once the request is written (30s by default; runtime.NoResponseHeaderTimeout turns it
// off, for long polls).
func WithResponseHeaderTimeout(d time.Duration) Option {
	return func(c *Client) { c.engine.ResponseHeaderTimeout = d }
}

// WithMaxBodySize caps the bytes of a response body decoded whole (32 MiB by default;
// runtime.NoBodyLimit turns the cap off). A larger body fails the call.
func WithMaxBodySize(n int64) Option {
	return func(c *Client) { c.engine.MaxBodySize = n }
}

// WithPolicyOverride lets fn adjust the retry policy of every call; fn receives a copy.
func WithPolicyOverride(fn func(*runtime.Policy)) Option {
	return func(c *Client) { c.engine.Override = fn }
}

// Do sends r under policy p: it builds the *http.Request from the base URL and r, sets
// Accept when accept is not empty, applies the request editors once, and hands the
// request to the engine. A problem r recorded while it was built fails the call before
// anything is sent. An idempotency key set with Request.IdempotencyKey comes before opts,
// so a key the caller passes still wins.
func (c *Client) Do(ctx context.Context, r *Request, p *runtime.Policy, accept string, opts []runtime.CallOption) (*http.Response, error) {
	if r.err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path.String(), r.err)
	}
	u := *c.baseURL
	u.RawPath = c.baseURL.RawPath + r.path.String()
	path, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, u.RawPath, err)
	}
	u.Path = path
	u.RawQuery = r.query.Encode()
	req, err := http.NewRequestWithContext(ctx, r.method, "", r.body)
	if err != nil {
		return nil, err
	}
	req.URL, req.Host = &u, u.Host
	if err := replayable(req, r.body); err != nil {
		// The path only: query values may be secrets.
		return nil, fmt.Errorf("%s %s: request body: %w", r.method, r.path.String(), err)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if len(r.cookies) > 0 {
		req.Header.Set("Cookie", strings.Join(r.cookies, "; "))
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	for _, edit := range c.editors {
		if err := edit(ctx, req); err != nil {
			return nil, err
		}
	}
	if r.key != "" {
		opts = append([]runtime.CallOption{runtime.WithIdempotencyKey(r.key)}, opts...)
	}
	return c.engine.Do(ctx, req, p, opts...)
}
