package model

import "slices"

// Option is an option of the fixed client surface: a function of the generated package
// that returns an Option, for NewClient, or a CallOption, for one call, made of the
// runtime/wire function of the same name called with its parameters.
type Option struct {
	// Name is the function's name, e.g. "WithHeader".
	Name string
	// Params is the function's parameter list as Go source, e.g. "key, value string". A
	// type is the generated package's, a predeclared one, or qualified by a package name
	// of Reserved.Imports.
	Params string
	// Doc is the function's doc comment.
	Doc string
}

// ClientOptions returns the options of NewClient in the order the generated package
// declares them, in a new slice the caller may change.
func ClientOptions() []Option { return slices.Clone(clientOptions) }

// CallOptions returns the options of one call in the order the generated package
// declares them, in a new slice the caller may change.
func CallOptions() []Option { return slices.Clone(callOptions) }

var clientOptions = []Option{
	{
		Name:   "WithBaseURL",
		Params: "baseURL string",
		Doc:    "WithBaseURL sends the calls to baseURL, an absolute http or https URL without query or fragment, e.g. \"https://api.example.com/v1\" or a test server's URL, instead of the spec's first server. A base URL that is none of the spec's servers sends every operation there, operations with servers of their own included.",
	},
	{
		Name:   "WithHTTPClient",
		Params: "hc *http.Client",
		Doc:    "WithHTTPClient sends every attempt with hc instead of http.DefaultClient. Do not give it a transport that retries by itself: its attempts would multiply the client's.",
	},
	{
		Name:   "WithRequestEditor",
		Params: "edit func(ctx context.Context, req *http.Request) error",
		Doc:    "WithRequestEditor calls edit on each request before it is sent, for example to add authentication. It runs once per call, before the first attempt, never on a redirect, so credentials it adds are not carried to another host. An error from edit ends the call before anything is sent.",
	},
	{
		Name:   "WithUserAgent",
		Params: "ua string",
		Doc:    "WithUserAgent sets the User-Agent header of every request.",
	},
	{
		Name:   "WithLogger",
		Params: "l *slog.Logger",
		Doc:    "WithLogger logs each retry at WARN level to l, and at INFO why a call that retried, or could not, stopped, without header values or bodies.",
	},
	{
		Name:   "WithOnRetry",
		Params: "fn func(RetryEvent)",
		Doc:    "WithOnRetry calls fn before each wait between attempts.",
	},
	{
		Name:   "WithObserver",
		Params: "o Observer",
		Doc:    "WithObserver reports every call, attempt and wait to o, and why each call stopped: retrygenotel.New makes one that records OpenTelemetry traces and metrics, retrytest.Recorder one for tests. An event stream is one call whose connections are its attempts; a paginated walk is one call with each page a call under it.",
	},
	{
		Name:   "WithRetryBudget",
		Params: "ratio, minPerSecond float64",
		Doc:    "WithRetryBudget caps the retries of all calls to ratio of recent requests, plus minPerSecond retries per second, instead of the default budget.",
	},
	{
		Name: "WithoutRetryBudget",
		Doc:  "WithoutRetryBudget lets every call make all the attempts its policy allows, however many other calls are failing.",
	},
	{
		Name:   "WithCircuitBreaker",
		Params: "failures int, coolDown time.Duration",
		Doc:    "WithCircuitBreaker stops calls for coolDown after failures consecutive failed calls, then lets one probe call through to decide whether to close again.",
	},
	{
		Name:   "WithJitterSource",
		Params: "rnd func() float64",
		Doc:    "WithJitterSource makes rnd the random source of the backoff's jitter: each call returns a number in [0, 1). A seeded source, e.g. rand.New(rand.NewPCG(1, 2)).Float64, makes the waits of a test repeatable.",
	},
	{
		Name:   "WithResponseHeaderTimeout",
		Params: "d time.Duration",
		Doc:    "WithResponseHeaderTimeout bounds how long each attempt waits for its response header once the request is written: 30s by default; runtime.NoResponseHeaderTimeout turns the bound off, for long polls.",
	},
	{
		Name:   "WithMaxBodySize",
		Params: "n int64",
		Doc:    "WithMaxBodySize caps the bytes of a response body decoded whole: 32 MiB by default; runtime.NoBodyLimit turns the cap off. A larger body fails the call.",
	},
	{
		Name: "WithoutServerRetrySignals",
		Doc:  "WithoutServerRetrySignals makes every call ignore the x-should-retry and Stripe-Should-Retry response headers, by which the server says whether repeating a request is safe: each call is then retried under its operation's policy alone.",
	},
	{
		Name:   "WithPolicyOverride",
		Params: "fn func(*Policy)",
		Doc:    "WithPolicyOverride lets fn adjust the retry policy of every call, e.g. to cap MaxAttempts client-wide. fn receives a copy; changing it does not change the operation's own policy.",
	},
}

var callOptions = []Option{
	{
		Name:   "WithMaxAttempts",
		Params: "n int",
		Doc:    "WithMaxAttempts makes at most n attempts for this call.",
	},
	{
		Name: "WithoutRetry",
		Doc:  "WithoutRetry sends this call once, whatever its policy says.",
	},
	{
		Name:   "WithIdempotencyKey",
		Params: "key string",
		Doc:    "WithIdempotencyKey sends key as this call's idempotency key instead of a random one. On an operation that declares no key and is not retry-safe by itself (a POST, a PATCH), it sends key as Idempotency-Key and makes this call retry-safe. Where no key is sent (a GET, a PUT), the call fails with ErrOptionDoesNotApply before anything is sent.",
	},
	{
		Name: "WithIdempotent",
		Doc:  "WithIdempotent declares this call retry-safe without an idempotency key, because repeating it does no harm (a search sent as a POST, say).",
	},
	{
		Name:   "WithAttemptTimeout",
		Params: "d time.Duration",
		Doc:    "WithAttemptTimeout bounds each attempt of this call by d.",
	},
	{
		Name:   "WithHeader",
		Params: "key, value string",
		Doc:    "WithHeader adds a header to every attempt of this call.",
	},
	{
		Name:   "WithMaxReconnects",
		Params: "n int",
		Doc:    "WithMaxReconnects lets an event stream reconnect at most n times over its life instead of 10; n < 1 means never. Other calls ignore it.",
	},
	{
		Name:   "WithMaxEventSize",
		Params: "n int",
		Doc:    "WithMaxEventSize lets one event of an event stream hold at most n bytes (16 MiB by default); a larger one ends the stream with an error that matches ErrEventTooLarge. Other calls ignore it.",
	},
	{
		Name:   "WithStreamIdleTimeout",
		Params: "d time.Duration",
		Doc:    "WithStreamIdleTimeout cuts an event stream's connection when no byte of it arrives for d: its response header, or any byte of its events, heartbeat comments included. The stream then goes on as after any cut: a retry-safe operation reconnects with Last-Event-ID, any other ends with a *StreamError that matches ErrStreamIdle and says how long it waited. By default d is 5 minutes, or what the spec's x-stream-idle-timeout says; a negative d turns the bound off. Given to NewClient it applies to every stream. Other calls ignore it.",
	},
	{
		Name:   "WithFirstEventTimeout",
		Params: "d time.Duration",
		Doc:    "WithFirstEventTimeout cuts an event stream's connection when its response header does not arrive within d of its request, or its first event within d of its header, heartbeats or not; the cut is handled as WithStreamIdleTimeout's. By default only the idle bound applies. Given to NewClient it applies to every stream. Other calls ignore it.",
	},
	{
		Name:   "WithCursor",
		Params: "cursor string",
		Doc:    "WithCursor starts a paginated walk (an <Op>All or <Op>Pages method) at the page that cursor asks for: a page's Next, or a PageError's Cursor, to resume a walk where it stopped. Other calls ignore it.",
	},
	{
		Name:   "WithMaxPages",
		Params: "n int",
		Doc:    "WithMaxPages ends a paginated walk (an <Op>All or <Op>Pages method) after n pages, without an error, instead of after 100,000, where a walk that reached no last page ends with ErrTooManyPages; n < 1 keeps that default. Other calls ignore it.",
	},
	{
		Name:   "WithResponseInfo",
		Params: "info *ResponseInfo",
		Doc:    "WithResponseInfo fills *info when the call ends, success or failure: the final status and headers, the attempts made and the Retry-After the server sent. For a stream it is filled when the stream opens and again on each reconnection.",
	},
}
