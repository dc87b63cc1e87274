package emit

import (
	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/model"
)

// The fixed client surface: the names a user of the generated package calls that do not
// come from the spec. Each is a line or a few that hand over to runtime/wire or runtime;
// model.FixedNames lists what this declares, for the naming pass.

// clientOption is an option of NewClient or of a call, declared as a one-line function
// that returns the runtime/wire or runtime function of the same name.
type clientOption struct {
	doc    string
	name   string
	params []jen.Code
	args   []string
	// convert, when set, gives for an argument the conversion to its runtime/wire type,
	// e.g. (*wire.ResponseInfo).
	convert []*jen.Statement
}

var newClientOptions = []clientOption{
	{
		doc:    "WithHTTPClient sends every attempt with hc instead of http.DefaultClient. Do not give it a transport that retries by itself: its attempts would multiply the client's.",
		name:   "WithHTTPClient",
		params: []jen.Code{jen.Id("hc").Op("*").Qual(httpPath, "Client")},
		args:   []string{"hc"},
	},
	{
		doc:  "WithRequestEditor calls edit on each request before it is sent, for example to add authentication. It runs once per call, before the first attempt, never on a redirect, so credentials it adds are not carried to another host. An error from edit ends the call before anything is sent.",
		name: "WithRequestEditor",
		params: []jen.Code{jen.Id("edit").Func().Params(
			jen.Id("ctx").Qual(contextPath, "Context"), jen.Id("req").Op("*").Qual(httpPath, "Request"),
		).Error()},
		args: []string{"edit"},
	},
	{
		doc:    "WithUserAgent sets the User-Agent header of every request.",
		name:   "WithUserAgent",
		params: []jen.Code{jen.Id("ua").String()},
		args:   []string{"ua"},
	},
	{
		doc:    "WithLogger logs each retry at WARN level to l, without header values or bodies.",
		name:   "WithLogger",
		params: []jen.Code{jen.Id("l").Op("*").Qual(slogPath, "Logger")},
		args:   []string{"l"},
	},
	{
		doc:    "WithOnRetry calls fn before each wait between attempts.",
		name:   "WithOnRetry",
		params: []jen.Code{jen.Id("fn").Func().Params(jen.Id("RetryEvent"))},
		args:   []string{"fn"},
	},
	{
		doc:    "WithRetryBudget caps the retries of all calls to ratio of recent requests, plus minPerSecond retries per second, instead of the default budget.",
		name:   "WithRetryBudget",
		params: []jen.Code{jen.List(jen.Id("ratio"), jen.Id("minPerSecond")).Float64()},
		args:   []string{"ratio", "minPerSecond"},
	},
	{
		doc:  "WithoutRetryBudget lets every call make all the attempts its policy allows, however many other calls are failing.",
		name: "WithoutRetryBudget",
	},
	{
		doc:    "WithCircuitBreaker stops calls for coolDown after failures consecutive failed calls, then lets one probe call through to decide whether to close again.",
		name:   "WithCircuitBreaker",
		params: []jen.Code{jen.Id("failures").Int(), jen.Id("coolDown").Qual(timePath, "Duration")},
		args:   []string{"failures", "coolDown"},
	},
	{
		doc:    "WithJitterSource makes rnd the random source of the backoff's jitter: each call returns a number in [0, 1). A seeded source, e.g. rand.New(rand.NewPCG(1, 2)).Float64, makes the waits of a test repeatable.",
		name:   "WithJitterSource",
		params: []jen.Code{jen.Id("rnd").Func().Params().Float64()},
		args:   []string{"rnd"},
	},
	{
		doc:    "WithResponseHeaderTimeout bounds how long each attempt waits for its response header once the request is written: 30s by default; runtime.NoResponseHeaderTimeout turns the bound off, for long polls.",
		name:   "WithResponseHeaderTimeout",
		params: []jen.Code{jen.Id("d").Qual(timePath, "Duration")},
		args:   []string{"d"},
	},
	{
		doc:    "WithMaxBodySize caps the bytes of a response body decoded whole: 32 MiB by default; runtime.NoBodyLimit turns the cap off. A larger body fails the call.",
		name:   "WithMaxBodySize",
		params: []jen.Code{jen.Id("n").Int64()},
		args:   []string{"n"},
	},
	{
		doc:  "WithoutServerRetrySignals makes every call ignore the x-should-retry and Stripe-Should-Retry response headers, by which the server says whether repeating a request is safe: each call is then retried under its operation's policy alone.",
		name: "WithoutServerRetrySignals",
	},
	{
		doc:    "WithPolicyOverride lets fn adjust the retry policy of every call, e.g. to cap MaxAttempts client-wide. fn receives a copy; changing it does not change the operation's own policy.",
		name:   "WithPolicyOverride",
		params: []jen.Code{jen.Id("fn").Func().Params(jen.Op("*").Id("Policy"))},
		args:   []string{"fn"},
	},
}

var callOptions = []clientOption{
	{
		doc:    "WithMaxAttempts makes at most n attempts for this call.",
		name:   "WithMaxAttempts",
		params: []jen.Code{jen.Id("n").Int()},
		args:   []string{"n"},
	},
	{
		doc:  "WithoutRetry sends this call once, whatever its policy says.",
		name: "WithoutRetry",
	},
	{
		doc:    "WithIdempotencyKey sends key as this call's idempotency key instead of a random one. On an operation that declares no key and is not retry-safe by itself (a POST, a PATCH), it sends key as Idempotency-Key and makes this call retry-safe. Where no key is sent (a GET, a PUT), the call fails with ErrOptionDoesNotApply before anything is sent.",
		name:   "WithIdempotencyKey",
		params: []jen.Code{jen.Id("key").String()},
		args:   []string{"key"},
	},
	{
		doc:  "WithIdempotent declares this call retry-safe without an idempotency key, because repeating it does no harm (a search sent as a POST, say).",
		name: "WithIdempotent",
	},
	{
		doc:    "WithAttemptTimeout bounds each attempt of this call by d.",
		name:   "WithAttemptTimeout",
		params: []jen.Code{jen.Id("d").Qual(timePath, "Duration")},
		args:   []string{"d"},
	},
	{
		doc:    "WithHeader adds a header to every attempt of this call.",
		name:   "WithHeader",
		params: []jen.Code{jen.List(jen.Id("key"), jen.Id("value")).String()},
		args:   []string{"key", "value"},
	},
	{
		doc:    "WithMaxReconnects lets an event stream reconnect at most n times over its life instead of 10; n < 1 means never. Other calls ignore it.",
		name:   "WithMaxReconnects",
		params: []jen.Code{jen.Id("n").Int()},
		args:   []string{"n"},
	},
	{
		doc:    "WithCursor starts a paginated walk (an <Op>All or <Op>Pages method) at the page that cursor asks for: a page's Next, or a PageError's Cursor, to resume a walk where it stopped. Other calls ignore it.",
		name:   "WithCursor",
		params: []jen.Code{jen.Id("cursor").String()},
		args:   []string{"cursor"},
	},
	{
		doc:    "WithMaxPages ends a paginated walk (an <Op>All or <Op>Pages method) after n pages, without an error; n < 1 lets it go to the last page, as it does by default. Other calls ignore it.",
		name:   "WithMaxPages",
		params: []jen.Code{jen.Id("n").Int()},
		args:   []string{"n"},
	},
	{
		doc:     "WithResponseInfo fills *info when the call ends, success or failure: the final status and headers, the attempts made and the Retry-After the server sent. For a stream it is filled when the stream opens and again on each reconnection.",
		name:    "WithResponseInfo",
		params:  []jen.Code{jen.Id("info").Op("*").Id("ResponseInfo")},
		args:    []string{"info"},
		convert: []*jen.Statement{jen.Parens(jen.Op("*").Qual(wirePath, "ResponseInfo"))},
	},
}

// sentinels are the runtime's errors.Is targets, re-exported under the same names.
var sentinels = []string{
	"ErrExhausted", "ErrBudgetExhausted", "ErrCircuitOpen", "ErrBodyNotReplayable", "ErrRetryAfterTooLong",
	"ErrStatusNotRetried", "ErrNotRetrySafe", "ErrNotRetryable", "ErrConnectionErrorsOff", "ErrBodyTooLarge",
	"ErrOptionDoesNotApply", "ErrRetriesOff", "ErrServerSaidNoRetry", "ErrRequestBody",
	"ErrContentType", "ErrUndeclaredStatus", "ErrStreamClosed", "ErrNoLocation", "ErrNoVariant", "ErrManyVariants",
	"ErrPageLoop", "ErrPageLink",
}

// clientSurface renders Client, NewClient, the options, the values a caller builds
// (Nullable, Date, File, Ptr), the event stream and the re-exported runtime names. Every
// exported name is declared here, so that a caller imports the generated package alone
// and its documentation names nothing of runtime/wire.
func clientSurface(api *model.API) []jen.Code {
	var out []jen.Code
	add := func(text string, c *jen.Statement) {
		var d doc
		d.para(text)
		out = append(out, d.code().Add(c).Line())
	}
	add("Client calls the API. It is safe for concurrent use; all its calls share one retry budget and, when enabled, one circuit breaker.",
		jen.Type().Id("Client").Struct(jen.Id("wire").Op("*").Qual(wirePath, "Client")))
	add("Option configures a Client; the With functions make them.", wrapperType("Option", "Option"))
	newClientDoc := "NewClient returns a client for the API served at baseURL, e.g. \"https://api.example.com/v1\". By default it sends requests with http.DefaultClient, retries each operation under the policy its spec declares, and caps retries with runtime.DefaultBudget."
	if len(api.ServerConsts) > 0 {
		newClientDoc += " An empty baseURL means " + api.ServerConsts[0].GoName + ". Operations the spec gives servers of their own go there, unless baseURL is none of the spec's servers."
	}
	add(newClientDoc,
		jen.Func().Id("NewClient").Params(jen.Id("baseURL").String(), jen.Id("opts").Op("...").Id("Option")).Params(jen.Op("*").Id("Client"), jen.Error()).Block(
			newWireClient(api),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Op("&").Id("Client").Values(jen.Dict{jen.Id("wire"): jen.Id("w")}), jen.Nil()),
		))
	for _, o := range newClientOptions {
		add(o.doc, delegate(o, "Option"))
	}
	add("CallOption changes how one call is made; pass it as the last argument of a method.", wrapperType("CallOption", "CallOption"))
	// A method expression rather than a function literal: callOptions is inlined into
	// every method, and a literal would be compiled once for each of them.
	add("callOptions returns opts as runtime/wire takes them.",
		jen.Func().Id("callOptions").Params(jen.Id("opts").Index().Id("CallOption")).Index().Qual(wirePath, "CallOption").Block(
			jen.Return(jen.Qual(wirePath, "Unwrap").Call(jen.Id("opts"), jen.Id("CallOption").Dot("unwrap"))),
		))
	add("unwrap returns o as runtime/wire takes it.",
		jen.Func().Params(jen.Id("o").Id("CallOption")).Id("unwrap").Params().Qual(wirePath, "CallOption").Block(jen.Return(jen.Id("o").Dot("apply"))))
	for _, o := range callOptions {
		add(o.doc, delegate(o, "CallOption"))
	}
	out = append(out, responseInfo()...)
	out = append(out, values()...)
	out = append(out, eventStream()...)
	add("APIError is the error a method returns when a call fails: a non-2xx response, a transport failure, or a retry loop that stopped early. Its fields say what happened: StatusCode, Header and Body (bounded) of the last response, Attempts, RetryAfter, Err (the last transport error) and Cause (why retrying stopped, one of the Err variables below); its text carries the server's message and request id when the response has them. When the spec declares an error model for the response's status, Model holds it decoded and errors.As reaches it. See runtime.Error for its methods.",
		jen.Type().Id("APIError").Op("=").Qual(runtimePath, "Error"))
	add("PageError ends a paginated walk (an <Op>All or <Op>Pages method) at the page it could not get: Page counts from 1, Cursor is what the page was to be asked with (WithCursor(Cursor) resumes the walk there), and Err is why: the page's call failed (an *APIError, a context error) or the walk would not go on (ErrPageLoop, ErrPageLink). See runtime.PageError.",
		jen.Type().Id("PageError").Op("=").Qual(runtimePath, "PageError"))
	add("Policy says how an operation is retried; see runtime.Policy for its fields.", jen.Type().Id("Policy").Op("=").Qual(runtimePath, "Policy"))
	add("RetryEvent describes one retry, for WithOnRetry; see runtime.RetryEvent for its fields.", jen.Type().Id("RetryEvent").Op("=").Qual(runtimePath, "RetryEvent"))
	add("Reasons a call failed or stopped retrying, for errors.Is.", jen.Var().DefsFunc(func(g *jen.Group) {
		for _, name := range sentinels {
			g.Id(name).Op("=").Qual(runtimePath, name)
		}
	}))
	return out
}

// wrapperType renders `type Name struct{ apply wire.Name }`: an option whose runtime/wire
// form stays out of sight.
func wrapperType(name, wireName string) *jen.Statement {
	return jen.Type().Id(name).Struct(jen.Id("apply").Qual(wirePath, wireName))
}

// delegate renders `func Name(params) Result { return Result{wire.Name(args)} }` on one
// line.
func delegate(o clientOption, result string) *jen.Statement {
	args := make([]jen.Code, len(o.args))
	for i, a := range o.args {
		args[i] = jen.Id(a)
		if o.convert != nil && o.convert[i] != nil {
			args[i] = o.convert[i].Clone().Call(jen.Id(a))
		}
	}
	return jen.Func().Id(o.name).Params(o.params...).Id(result).
		Op("{").Return(jen.Id(result).Values(jen.Qual(wirePath, o.name).Call(args...))).Op("}")
}

// newWireClient renders the statement of NewClient that builds the wire client, telling
// it the spec's servers first when there are some.
func newWireClient(api *model.API) *jen.Statement {
	lhs := jen.List(jen.Id("w"), jen.Err()).Op(":=")
	unwrap := jen.Qual(wirePath, "Unwrap").Call(jen.Id("opts"), jen.Func().Params(jen.Id("o").Id("Option")).Qual(wirePath, "Option").Block(jen.Return(jen.Id("o").Dot("apply"))))
	if len(api.ServerConsts) == 0 {
		return lhs.Qual(wirePath, "NewClient").Call(jen.Id("baseURL"), unwrap.Op("..."))
	}
	urls := make([]jen.Code, len(api.ServerConsts))
	for i, s := range api.ServerConsts {
		urls[i] = jen.Id(s.GoName)
	}
	all := jen.Append(jen.Index().Qual(wirePath, "Option").Values(jen.Qual(wirePath, "WithSpecServers").Call(urls...)), unwrap.Op("..."))
	return lhs.Qual(wirePath, "NewClient").Call(jen.Id("baseURL"), all.Op("..."))
}
