package wire

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// CallOption changes how one call is made. Generated packages re-export the ones below
// under the same names.
type CallOption func(*callSettings)

type callSettings struct {
	runtime []runtime.CallOption
	info    *ResponseInfo

	maxReconnects int  // WithMaxReconnects
	reconnectsSet bool // WithMaxReconnects was given
	maxEventSize  int  // WithMaxEventSize; 0 for DefaultMaxEventSize

	idleTimeout       time.Duration // WithStreamIdleTimeout; 0 for the stream's default
	firstEventTimeout time.Duration // WithFirstEventTimeout; 0 for none

	// lastEventID is the Last-Event-ID WithHeader gives, sent after every other header;
	// a stream sends it with its first request only.
	lastEventID    string
	lastEventIDSet bool

	keyed      bool         // WithIdempotencyKey, or WithHeader of an idempotency key, was given
	idempotent bool         // WithIdempotent was given
	cursor     string       // WithCursor
	maxPages   int          // WithMaxPages
	page       *PageStep    // the page of a walk this call asks for; see PageStep.Option
	observed   *observation // the event stream this call connects, for the client's observer
}

// lastEventIDHeader is the header a stream resumes with, canonical.
const lastEventIDHeader = "Last-Event-Id"

// Runtime adapts an option of the retry engine to a CallOption.
func Runtime(o runtime.CallOption) CallOption {
	return func(s *callSettings) { s.runtime = append(s.runtime, o) }
}

// WithMaxAttempts makes at most n attempts for this call.
func WithMaxAttempts(n int) CallOption { return Runtime(runtime.WithMaxAttempts(n)) }

// WithoutRetry sends this call once, whatever its policy says.
func WithoutRetry() CallOption { return Runtime(runtime.WithoutRetry()) }

// WithIdempotencyKey sends key as this call's idempotency key; see runtime.WithIdempotencyKey.
// A paginated walk refuses it (see Walk).
func WithIdempotencyKey(key string) CallOption {
	o := runtime.WithIdempotencyKey(key)
	return func(s *callSettings) { s.runtime, s.keyed = append(s.runtime, o), true }
}

// WithAttemptTimeout bounds each attempt of this call by d.
func WithAttemptTimeout(d time.Duration) CallOption { return Runtime(runtime.WithAttemptTimeout(d)) }

// WithIdempotent declares this call retry-safe without an idempotency key.
func WithIdempotent() CallOption {
	o := runtime.WithIdempotent()
	return func(s *callSettings) { s.runtime, s.idempotent = append(s.runtime, o), true }
}

// WithHeader adds a header to every attempt of this call. A Last-Event-ID goes with a
// stream's first request only: a reconnection sends the stream's own.
func WithHeader(key, value string) CallOption {
	switch http.CanonicalHeaderKey(key) {
	case lastEventIDHeader:
		return func(s *callSettings) { s.lastEventID, s.lastEventIDSet = value, true }
	case "Idempotency-Key", "X-Idempotency-Key":
		o := runtime.WithHeader(key, value)
		return func(s *callSettings) { s.runtime, s.keyed = append(s.runtime, o), true }
	}
	return Runtime(runtime.WithHeader(key, value))
}

// ResponseInfo describes how a call went, success or failure: the final response's
// status and headers, the attempts made and the Retry-After the server sent.
type ResponseInfo struct {
	// StatusCode is the final response's status, 0 when the call got none.
	StatusCode int
	// Header is the final response's header, nil when the call got none.
	Header http.Header
	// Attempts is the number of attempts made, redirects not counted; for a stream it
	// counts the attempts of every connection.
	Attempts int
	// RetryAfter is the last Retry-After (or retry-after-ms) hint the server sent on any
	// attempt of the call, 0 when none.
	RetryAfter time.Duration
}

// WithResponseInfo fills *info when the call ends, whether it succeeds or fails. For a
// stream it is filled when the stream opens and updated on each reconnection.
func WithResponseInfo(info *ResponseInfo) CallOption {
	return func(s *callSettings) { s.info = info }
}

// WithCursor starts a paginated walk at the page that cursor asks for: a page's Next, or
// a *runtime.PageError's Cursor, to resume a walk where it stopped. Other calls ignore it.
func WithCursor(cursor string) CallOption {
	return func(s *callSettings) { s.cursor = cursor }
}

// WithMaxPages ends a paginated walk after n pages, without an error, instead of
// DefaultMaxPages, after which a walk that reached no last page ends with
// runtime.ErrTooManyPages; n < 1 keeps the default. Other calls ignore it.
func WithMaxPages(n int) CallOption {
	return func(s *callSettings) { s.maxPages = n }
}

// WithCallDefaults makes opts apply to every call of the client, before the call's own
// options, which win where both set the same thing: WithHeader, WithAttemptTimeout or
// WithStreamIdleTimeout for all calls, say. The options that describe one call
// (WithIdempotencyKey, or a WithHeader of Idempotency-Key, WithIdempotent,
// WithResponseInfo, WithCursor, WithMaxPages) make every call of the client fail with
// runtime.ErrOptionDoesNotApply (see New).
func WithCallDefaults(opts ...CallOption) Option {
	return func(c *Client) { c.defaults = append(c.defaults, opts...) }
}

// checkDefaults returns why the call options of WithCallDefaults cannot apply to every
// call, or nil.
func checkDefaults(defaults []CallOption) error {
	if len(defaults) == 0 {
		return nil
	}
	s := settings(defaults)
	var one []string
	for _, o := range []struct {
		set  bool
		name string
	}{
		{s.keyed, "WithIdempotencyKey"}, {s.idempotent, "WithIdempotent"}, {s.info != nil, "WithResponseInfo"},
		{s.cursor != "", "WithCursor"}, {s.maxPages != 0, "WithMaxPages"},
	} {
		if o.set {
			one = append(one, o.name)
		}
	}
	if len(one) > 0 {
		return fmt.Errorf("%w: %s given to NewClient: it describes one call, so pass it to that call", runtime.ErrOptionDoesNotApply, strings.Join(one, ", "))
	}
	return nil
}

// settings returns the settings of a call with opts: the client's defaults, then opts.
func (c *Client) settings(opts []CallOption) callSettings {
	if len(c.defaults) == 0 {
		return settings(opts)
	}
	return settings(append(slices.Clip(c.defaults), opts...))
}

func settings(opts []CallOption) callSettings {
	if len(opts) == 0 {
		return callSettings{}
	}
	s := new(callSettings) // o may keep the pointer: a heap copy only for calls with options
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	return *s
}

// fill records the outcome of one exchange of a call into info.
func fill(info *ResponseInfo, o runtime.Outcome, resp *http.Response, err error) {
	info.Attempts = o.Attempts
	info.RetryAfter = o.RetryAfter
	switch {
	case resp != nil:
		info.StatusCode, info.Header = resp.StatusCode, resp.Header
	default:
		info.StatusCode, info.Header = 0, nil
		if e := asRuntimeError(err); e != nil {
			info.StatusCode, info.Header = e.StatusCode, e.Header
			if e.RetryAfter > 0 {
				info.RetryAfter = e.RetryAfter
			}
		}
	}
}

// Unwrap returns what get makes of each of opts, nil for none: the runtime/wire options
// that a generated package's own option types hold.
//
//go:noinline
func Unwrap[O, T any](opts []O, get func(O) T) []T {
	if len(opts) == 0 {
		return nil
	}
	out := make([]T, len(opts))
	for i, o := range opts {
		out[i] = get(o)
	}
	return out
}

// RateLimit returns the rate limit the final response's headers describe (see
// runtime.ParseRateLimit), a reset in seconds counted from the response's Date, else from
// now.
func (i *ResponseInfo) RateLimit() runtime.RateLimit {
	return runtime.ParseRateLimit(i.Header, runtime.ResponseTime(i.Header))
}
