package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
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

	creds      map[string]Credential // by security scheme name
	queryCreds []string              // the query parameter names credentials use; see runtime.Engine.QueryCredentials

	specServers []string // the spec's top-level server URLs; see WithSpecServers
	overridden  bool     // the base URL is not one of specServers

	ignoreSignals bool              // WithoutServerRetrySignals
	tokenURLs     map[string]string // WithTokenURL, by security scheme

	defaults []CallOption // WithCallDefaults: applied to every call, before its own

	givenBase string // WithBaseURL
	err       error  // why the client cannot make calls; see New
}

// Option configures a Client.
type Option func(*Client)

// New returns a client configured by opts, for the API served at the base URL
// WithBaseURL gives, else the spec's first server (see WithSpecServers). By default it
// sends requests with http.DefaultClient and caps retries with runtime.DefaultBudget. A
// base URL or an option that cannot be used does not stop New: every call of the client
// fails with the error, before anything is sent (see Client.Err).
func New(opts ...Option) *Client {
	c := &Client{engine: &runtime.Engine{Budget: runtime.DefaultBudget()}}
	for _, opt := range opts {
		opt(c)
	}
	c.err = c.setUp()
	return c
}

// NewClient is New with WithBaseURL(baseURL), when baseURL is not empty, that returns the
// error New keeps for the calls: the form of clients generated before version 7.
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	if baseURL != "" {
		opts = append(slices.Clip(opts), WithBaseURL(baseURL))
	}
	c := New(opts...)
	if c.err != nil {
		return nil, c.err
	}
	return c, nil
}

// WithBaseURL sends the calls to baseURL, an absolute http or https URL without query or
// fragment, e.g. "https://api.example.com/v1", instead of the spec's first server. A base
// URL that is none of the spec's servers sends every operation there, operations with
// servers of their own included.
func WithBaseURL(baseURL string) Option {
	return func(c *Client) { c.givenBase = baseURL }
}

// setUp finishes a client once its options are applied, and returns why it cannot make
// calls, if it cannot.
func (c *Client) setUp() error {
	baseURL := c.givenBase
	if baseURL == "" && len(c.specServers) > 0 {
		baseURL = c.specServers[0]
	}
	if baseURL == "" {
		return errors.New("no base URL: the spec declares no server, so give one with WithBaseURL")
	}
	u, err := parseBase(baseURL)
	if err != nil {
		return err
	}
	c.baseURL = u
	c.overridden = !slices.ContainsFunc(c.specServers, func(s string) bool {
		return strings.TrimSuffix(s, "/") == strings.TrimSuffix(baseURL, "/")
	})
	c.engine.QueryCredentials = c.queryCreds
	if err := checkDefaults(c.defaults); err != nil {
		return err
	}
	for scheme, cred := range c.creds {
		if cred.tok != nil {
			cred.tok.bind(c, scheme)
		}
	}
	if c.ignoreSignals {
		c.engine.Override = ignoreSignals(c.engine.Override)
	}
	return nil
}

// Err returns why the client cannot make calls (a base URL or an option that cannot be
// used), which each of its calls returns; nil for a client that can.
func (c *Client) Err() error { return c.err }

// ignoreSignals returns the policy override that applies fn, if any, then sets
// IgnoreServerSignals, so that WithoutServerRetrySignals holds whatever fn does and
// whichever option came first.
func ignoreSignals(fn func(*runtime.Policy)) func(*runtime.Policy) {
	return func(p *runtime.Policy) {
		if fn != nil {
			fn(p)
		}
		p.IgnoreServerSignals = true
	}
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

// WithLogger logs each retry at WARN level to l, without header values, query values or
// bodies (the engine redacts what it logs).
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

// WithoutServerRetrySignals makes every call ignore the server's word on repeating a
// request (x-should-retry, Stripe-Should-Retry; see runtime.Policy.IgnoreServerSignals),
// leaving each retry to the operation's policy alone.
func WithoutServerRetrySignals() Option {
	return func(c *Client) { c.ignoreSignals = true }
}

// Call sends r under policy p: it builds the *http.Request from the base URL (or the
// operation's own server) and r, sets Accept when accept is not empty, adds the
// credentials r's security requirement asks for, applies the request editors once, and
// hands the request to the engine. A problem r recorded while it was built fails the call
// before anything is sent. An idempotency key set with Request.IdempotencyKey comes before
// opts, so a key the caller passes still wins. A WithResponseInfo option is filled before
// Call returns.
func (c *Client) Call(ctx context.Context, r *Request, p *runtime.Policy, accept string, opts []CallOption) (*http.Response, error) {
	s := c.settings(opts)
	return c.send(ctx, r, p, accept, nil, &s)
}

// Fetch is Call for a method that decodes the 2xx response's body: the engine reads the
// body whole within each attempt (runtime.Policy.ReadBody), up to the client's
// WithMaxBodySize cap, so a body cut short is retried like any other failed attempt.
// Call leaves the body to the caller: a method that returns it unread, or drains it.
func (c *Client) Fetch(ctx context.Context, r *Request, p *runtime.Policy, accept string, opts []CallOption) (*http.Response, error) {
	if !p.ReadBody {
		whole := *p
		whole.ReadBody = true
		p = &whole
	}
	return c.Call(ctx, r, p, accept, opts)
}

// Do is Call with the engine's own options, as clients generated before CallOption
// existed pass them.
func (c *Client) Do(ctx context.Context, r *Request, p *runtime.Policy, accept string, opts []runtime.CallOption) (*http.Response, error) {
	s := callSettings{runtime: opts}
	return c.send(ctx, r, p, accept, nil, &s)
}

// send is Call with extra headers (a stream's Last-Event-ID) and the settings read. An
// extra header replaces the request's; one without values removes it.
func (c *Client) send(ctx context.Context, r *Request, p *runtime.Policy, accept string, extra http.Header, s *callSettings) (*http.Response, error) {
	opts := s.runtime
	if s.lastEventIDSet {
		opts = append(slices.Clip(opts), runtime.WithHeader(lastEventIDHeader, s.lastEventID))
	}
	if s.info == nil && s.page == nil {
		return c.do(ctx, r, p, accept, extra, opts, nil, s.observed)
	}
	var o runtime.Outcome
	opts = append(slices.Clip(opts), runtime.WithOutcome(&o))
	observed := s.observed
	if s.page != nil {
		observed = &s.page.walk
	}
	resp, err := c.do(ctx, r, p, accept, extra, opts, s.page, observed)
	if s.info != nil {
		fill(s.info, o, resp, err)
	}
	if s.page != nil {
		fill(&s.page.info, o, resp, err)
	}
	return resp, err
}

// do builds the request and hands it to the engine; page, when not nil, is the page of
// a walk the request asks for, and observed, when not nil, the stream or walk the call
// is part of for the client's observer.
func (c *Client) do(ctx context.Context, r *Request, p *runtime.Policy, accept string, extra http.Header, opts []runtime.CallOption, page *PageStep, observed *observation) (*http.Response, error) {
	if c.err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path.String(), c.err)
	}
	if r.err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path.String(), r.err)
	}
	base, err := c.base(r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path.String(), err)
	}
	u := *base
	u.RawPath = r.path.after(base.RawPath)
	path, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, u.RawPath, err)
	}
	u.Path = path
	body, err := r.bodyReader()
	if err != nil {
		return nil, fmt.Errorf("%s %s: request body: %w", r.method, r.path.String(), err)
	}
	// The empty URL parses to a URL of the request's own, which takes u's value once the
	// credentials are in the query; the header is the request's own too.
	req, err := http.NewRequestWithContext(ctx, r.method, "", body)
	if err != nil {
		closeReader(body)
		return nil, err
	}
	// A call that ends before the engine has the request closes its body, which may hold
	// files a Reopen body opened.
	abandon := func(err error) (*http.Response, error) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	header := req.Header
	for k, v := range r.header {
		header[k] = v
	}
	for k, v := range extra {
		if len(v) == 0 {
			delete(header, k)
		} else {
			header[k] = v
		}
	}
	query, cookies := r.query, r.cookies
	if len(r.security) > 0 && len(c.creds) > 0 {
		// Credentials go on copies: a Request may be sent again (a stream reconnecting).
		r.query = cloneValues(query)
		r.cookies = append([]string(nil), cookies...)
		refresh, err := c.authenticate(ctx, r, header)
		q, ck := r.query, r.cookies
		r.query, r.cookies = query, cookies
		if err != nil {
			return abandon(fmt.Errorf("%s %s: %w", r.method, r.path.String(), err))
		}
		query, cookies = q, ck
		if refresh != nil {
			opts = append(slices.Clip(opts), refresh)
		}
	}
	u.RawQuery = query.Encode()
	if page != nil {
		if err := page.apply(base, &u, r.query, query, header, c.queryCreds); err != nil {
			return abandon(fmt.Errorf("%s %s: %w", r.method, r.path.String(), err))
		}
	}
	*req.URL, req.Host = u, u.Host
	if err := replayable(req, body, r); err != nil {
		// The path only: query values may be secrets.
		return abandon(fmt.Errorf("%s %s: request body: %w", r.method, r.path.String(), err))
	}
	if r.contentType != "" {
		header.Set("Content-Type", r.contentType)
	}
	if accept != "" {
		header.Set("Accept", accept)
	}
	if len(cookies) > 0 {
		header.Set("Cookie", strings.Join(cookies, "; "))
	}
	if c.userAgent != "" {
		header.Set("User-Agent", c.userAgent)
	}
	for _, edit := range c.editors {
		if err := edit(ctx, req); err != nil {
			return abandon(err)
		}
	}
	if r.key != "" {
		opts = append([]runtime.CallOption{runtime.WithIdempotencyKey(r.key)}, opts...)
	}
	if r.noRedirects {
		opts = append(slices.Clip(opts), runtime.WithoutRedirects())
	}
	if observed != nil && c.engine.Observer != nil {
		ctx = observed.context(ctx, c, r.op, req, p, opts)
	}
	return c.engine.DoOperation(ctx, r.op, req, p, opts...)
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// closeReader closes r when it is an io.Closer.
func closeReader(r io.Reader) {
	if c, ok := r.(io.Closer); ok {
		c.Close()
	}
}
