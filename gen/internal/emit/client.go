package emit

import (
	"fmt"
	"go/ast"
	"go/parser"
	"slices"

	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/model"
)

// The fixed client surface: the names a user of the generated package calls that do not
// come from the spec. Each is a line or a few that hand over to runtime/wire or runtime;
// model.FixedNames lists what this declares, for the naming pass. The options are
// model.ClientOptions and model.CallOptions, whose names FixedNames reserves from there.

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
	add("Option configures a Client: the With functions that return one make them, and any CallOption given to NewClient applies to every call, before the call's own options (WithHeader or WithStreamIdleTimeout for all calls, say). A CallOption that describes one call (WithIdempotencyKey, WithIdempotent, WithResponseInfo, WithCursor, WithMaxPages) makes every call of the client fail with ErrOptionDoesNotApply (see Err).",
		jen.Type().Id("Option").Interface(jen.Id("option").Params().Id("clientOption")))
	add("clientOption is an Option of the client alone.", wrapperType("clientOption", "Option"))
	add("option returns o.", jen.Func().Params(jen.Id("o").Id("clientOption")).Id("option").Params().Id("clientOption").Block(jen.Return(jen.Id("o"))))
	target := "the base URL WithBaseURL gives, e.g. \"https://api.example.com/v1\" (the spec declares no server)"
	if len(api.ServerConsts) > 0 {
		target = api.ServerConsts[0].GoName + ", or the base URL WithBaseURL gives"
	}
	add("NewClient returns a client that sends requests to "+target+". By default it sends them with http.DefaultClient, retries each operation under the policy its spec declares, and caps retries with runtime.DefaultBudget. Operations the spec gives servers of their own go there, unless the base URL is none of the spec's servers. A base URL or an option that cannot be used does not stop NewClient: every call of the client fails with the error, before anything is sent, and Err returns it.",
		jen.Func().Id("NewClient").Params(jen.Id("opts").Op("...").Id("Option")).Op("*").Id("Client").Block(
			jen.Return(jen.Op("&").Id("Client").Values(jen.Dict{jen.Id("wire"): newWireClient(api)})),
		))
	add("Err returns why the client cannot make calls (a base URL or an option NewClient could not use), which each of its calls returns too; nil when it can.",
		jen.Func().Params(jen.Id("c").Op("*").Id("Client")).Id("Err").Params().Error().Block(jen.Return(jen.Id("c").Dot("wire").Dot("Err").Call())))
	for _, o := range model.ClientOptions() {
		add(o.Doc, delegate(o, "Option", "clientOption"))
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
	add("option makes o an Option: it applies to every call of the client.",
		jen.Func().Params(jen.Id("o").Id("CallOption")).Id("option").Params().Id("clientOption").Block(
			jen.Return(jen.Id("clientOption").Values(jen.Qual(wirePath, "WithCallDefaults").Call(jen.Id("o").Dot("apply"))))))
	for _, o := range model.CallOptions() {
		add(o.Doc, delegate(o, "CallOption", "CallOption"))
	}
	out = append(out, endpointSurface(api)...)
	out = append(out, responseInfo()...)
	out = append(out, values()...)
	out = append(out, eventStream()...)
	out = append(out, runtimeTypes()...)
	add("Reasons a call failed or stopped retrying, for errors.Is.", jen.Var().DefsFunc(func(g *jen.Group) {
		for _, name := range model.Sentinels() {
			g.Id(name).Op("=").Qual(runtimePath, name)
		}
	}))
	return out
}

// runtimeTypes renders the aliases of runtime's APIError (runtime.Error), PageError,
// EventError, Policy, RetryEvent and Observer. go doc shows an alias's comment alone, so each
// comment lists the type's fields and methods as Go, the way go doc shows a struct;
// gen's TestRuntimeAliasesListFieldsAndMethods holds the lists to runtime's declarations.
func runtimeTypes() []jen.Code {
	var out []jen.Code
	alias := func(name, runtimeName string, d doc) {
		out = append(out, d.code().Add(jen.Type().Id(name).Op("=").Qual(runtimePath, runtimeName)).Line())
	}
	var apiErr doc
	apiErr.para("APIError is the error a method returns when a call fails: a non-2xx response, a transport failure, or a retry loop that stopped early; errors.As(err, &apiErr) finds it. Its text carries the server's message and request id when the response has them, on one line and without the request's credentials. It is runtime.Error, with these fields:")
	apiErr.block(
		"Method     string        // the request's method, e.g. \"GET\"",
		"URL        string        // the request's URL: no user information or fragment, query values REDACTED",
		"Attempts   int           // the attempts made; 0 when none was",
		"StatusCode int           // the last response's status; 0 when the last attempt got none",
		"Header     http.Header   // the last response's header",
		"Body       []byte        // the last response's body, its first 64 KiB",
		"RetryAfter time.Duration // the wait the last response asked for; 0 when none",
		"Err        error         // the last attempt's transport error; nil when it got a response",
		"Cause      error         // why retrying stopped: one of the Err variables, or the context's error",
		"Model      any           // the error model the spec declares for the status, decoded; nil when none",
	)
	apiErr.para("and these methods:")
	apiErr.block(
		"func (e *APIError) Error() string",
		"func (e *APIError) Unwrap() []error        // Cause, Err and Model, for errors.Is and errors.As",
		"func (e *APIError) Code() string           // the error code of a JSON body (\"invalid_api_key\"); \"\" when none",
		"func (e *APIError) DecodeBody(v any) error // Body as JSON into v, credentials REDACTED",
		"func (e *APIError) RateLimit() RateLimitStatus // the rate limit Header describes: on a 429, when the quota comes back",
	)
	apiErr.para("A status the spec declares no error model for (a 401 where only 404 has one, say) leaves Model nil: Code reads the common places of an error code ({\"error\": {\"code\": …}}, {\"code\": …}, OAuth's {\"error\": …}), and DecodeBody the rest of the body into a struct of the caller's, such as struct{ Error struct{ Message, Param string } }.")
	alias("APIError", "Error", apiErr)

	var page doc
	page.para("PageError ends a paginated walk (an <Op>All or <Op>Pages method) at the page it could not get; errors.As reaches the page's *APIError through it. It is runtime.PageError:")
	page.block(
		"Page   int    // the page that failed, from 1",
		"Cursor string // what the page was to be asked with: WithCursor(Cursor) resumes the walk there",
		"Err    error  // why: the page's call failed (an *APIError, a context error), or ErrPageLoop, ErrPageLink, ErrTooManyPages",
		"",
		"func (e *PageError) Error() string",
		"func (e *PageError) Unwrap() error // Err",
	)
	alias("PageError", "PageError", page)

	var event doc
	event.para("EventError is an error event an event stream received in place of an event: an event of type \"error\", or one whose data is an object whose only member is \"error\". It is never delivered as an event: before the first event it is retried like the status it stands for (StatusCode: 503 for an overloaded server, 429 for a rate limit; an invalid request is not retried), and after it the stream ends with a *StreamError that errors.As reaches it through, unless the stream resumes. It is runtime.EventError:")
	event.block(
		"Type       string // the event's type: \"error\", or \"\" for the data-only form",
		"Code       string // the error's kind as the server names it (\"overloaded_error\"); \"\" when none",
		"Message    string // the server's message, as it sent it",
		"StatusCode int    // the HTTP status the error stands for; 0 when it names none (not retried)",
		"Data       []byte // the event's data, as received",
		"Model      any    // Data decoded into the error model the spec declares; nil when none",
		"",
		"func (e *EventError) Error() string",
		"func (e *EventError) Unwrap() error     // Model, when it is an error",
		"func (e *EventError) AnswerStatus() int // StatusCode",
	)
	alias("EventError", "EventError", event)

	var policy doc
	policy.para("Policy says how an operation is retried, as WithPolicyOverride sees it (a copy: the operation's own policy never changes). It is runtime.Policy:")
	policy.block(
		"MaxAttempts         int                  // attempts in all, the first included",
		"InitialDelay        time.Duration        // the backoff's first ceiling",
		"MaxDelay            time.Duration        // the most one backoff step waits",
		"Multiplier          float64              // how the ceiling grows from one step to the next",
		"Jitter              runtime.Jitter       // \"full\", \"equal\", \"decorrelated\" or \"none\"",
		"StatusCodes         []runtime.StatusCode // the statuses retried, 5 for 5XX; nil for 408, 429, 500, 502-504",
		"ConnectionErrors    bool                 // whether transport failures are retried",
		"AttemptTimeout      time.Duration        // the bound of one attempt; 0 for none",
		"MaxElapsed          time.Duration        // the bound of the whole call; 0 leaves it to the context",
		"RetryAfter          bool                 // whether the server's Retry-After is a floor under the wait",
		"MaxRetryAfter       time.Duration        // the longest Retry-After waited for; a longer one ends the call",
		"IgnoreServerSignals bool                 // ignore the server's x-should-retry",
		"Idempotent          bool                 // whether a request that may have reached the server is repeated",
		"IdempotencyKey      string               // the header that carries the call's idempotency key",
		"ReadBody            bool                 // read a 2xx body whole within its attempt",
	)
	policy.para("A zero InitialDelay, MaxDelay or MaxRetryAfter means zero; Jitter and StatusCodes take string and integer constants. The copy WithPolicyOverride gets has the defaults filled in, StatusCodes the statuses retried included, so that p.StatusCodes = append(p.StatusCodes, 409) retries a 409 as well. Its methods compute what the engine does under it:")
	policy.block(
		"func (p *Policy) Validate() error                 // every field the engine cannot honour",
		"func (p *Policy) RetriesStatus(code int) bool     // whether a response with the status is retried",
		"func (p *Policy) Ceiling(retry int) time.Duration // the backoff's ceiling before retry number retry",
		"func (p *Policy) Backoff(retry int, prev time.Duration, rnd float64) time.Duration",
		"func (p *Policy) Wait(retry int, prev, hint time.Duration, rnd float64) time.Duration",
	)
	alias("Policy", "Policy", policy)

	var retry doc
	retry.para("RetryEvent describes one retry, for WithOnRetry, which is called before the wait. It is runtime.RetryEvent:")
	retry.block(
		"Method          string",
		"URL             string        // no user information or fragment, query values REDACTED",
		"Attempt         int           // the attempt that failed, from 1",
		"Wait            time.Duration // the wait before the next attempt",
		"StatusCode      int           // of the failed attempt, or the one its stream error event stands for (503); 0 when none",
		"Err             error         // of the failed attempt (a transport error, a stream's error event); nil when it got a response",
		"ServerSaidRetry bool          // the response said x-should-retry: true, and the policy follows it",
	)
	alias("RetryEvent", "RetryEvent", retry)

	var observer doc
	observer.para("Observer sees every call of the client, for traces, metrics and logs: WithObserver sets it. retrygenotel.New (module github.com/retrygen/retrygen/retrygenotel) makes one that records OpenTelemetry spans and metrics; retrytest.Recorder records what it sees, for tests. It is runtime.Observer:")
	observer.block(
		"CallStart(ctx context.Context, info runtime.CallInfo) context.Context       // operation, method, URL template, server, retry class",
		"AttemptStart(ctx context.Context, info runtime.AttemptInfo) context.Context // resend count, the attempt's own header",
		"AttemptEnd(ctx context.Context, result runtime.AttemptResult)               // status, or transport error and its type",
		"Wait(ctx context.Context, info runtime.WaitInfo)                            // delay and cause: backoff, Retry-After, the server's word",
		"CallEnd(ctx context.Context, result runtime.CallResult)                     // attempts and stop reason",
	)
	alias("Observer", "Observer", observer)

	var rate doc
	rate.para("RateLimitStatus is what a response says of the caller's rate limit, from ResponseInfo.RateLimit or APIError.RateLimit. It is runtime.RateLimit (under a name of its own: RateLimit is a common schema name, github.json's rate-limit):")
	rate.block(
		"Limit     int64     // the requests the window allows; -1 when the response does not say",
		"Remaining int64     // the requests left in the window; -1 when the response does not say",
		"Used      int64     // the requests made in the window; -1 when the response does not say",
		"Reset     time.Time // when the window starts again; zero when the response does not say",
		"",
		"func (r RateLimitStatus) Known() bool // whether the response said anything of its rate limit",
	)
	rate.para("It reads RateLimit (draft-ietf-httpapi-ratelimit-headers, with RateLimit-Policy), else RateLimit-Limit, -Remaining and -Reset, else X-RateLimit-Limit, -Remaining, -Used and -Reset (a Unix time, or seconds when small), else OpenAI's x-ratelimit-limit-requests, -remaining-requests and -reset-requests; a value that does not parse is left out.")
	alias("RateLimitStatus", "RateLimit", rate)
	return out
}

// wrapperType renders `type Name struct{ apply wire.Name }`: an option whose runtime/wire
// form stays out of sight.
func wrapperType(name, wireName string) *jen.Statement {
	return jen.Type().Id(name).Struct(jen.Id("apply").Qual(wirePath, wireName))
}

// delegate renders `func Name(params) Result { return Value{wire.Name(args)} }` on one
// line: o's function, which hands its parameters to runtime/wire's of the same name.
func delegate(o model.Option, result, value string) *jen.Statement {
	expr, err := parser.ParseExpr("func(" + o.Params + ")")
	if err != nil {
		panic(fmt.Sprintf("internal error: option %s: parameters %q: %v", o.Name, o.Params, err))
	}
	params := expr.(*ast.FuncType).Params
	var args []jen.Code
	for _, f := range params.List {
		for _, n := range f.Names {
			args = append(args, toWire(jen.Id(n.Name), f.Type))
		}
	}
	return jen.Func().Id(o.Name).Params(sourceParams(params)...).Id(result).
		Op("{").Return(jen.Id(value).Values(jen.Qual(wirePath, o.Name).Call(args...))).Op("}")
}

// toWire renders v, of type t, as runtime/wire takes it: a pointer to a struct of the
// fixed surface converted to a pointer to its twin, e.g. (*wire.ResponseInfo)(info).
func toWire(v jen.Code, t ast.Expr) jen.Code {
	if star, ok := t.(*ast.StarExpr); ok {
		if id, ok := star.X.(*ast.Ident); ok && slices.Contains(wireTwins, id.Name) {
			return wireTwin(id.Name, v)
		}
	}
	return v
}

// sourceParams renders a parameter or result list written as Go source, such as
// "ctx context.Context, req *http.Request".
func sourceParams(list *ast.FieldList) []jen.Code {
	if list == nil {
		return nil
	}
	out := make([]jen.Code, len(list.List))
	for i, f := range list.List {
		names := make([]jen.Code, len(f.Names))
		for j, n := range f.Names {
			names[j] = jen.Id(n.Name)
		}
		out[i] = jen.List(names...).Add(sourceType(f.Type))
	}
	return out
}

// sourceType renders a type written as Go source, such as *http.Client or func(*Policy):
// jennifer then imports the packages it names, which must be importNames'.
func sourceType(t ast.Expr) jen.Code {
	switch t := t.(type) {
	case *ast.Ident:
		return jen.Id(t.Name)
	case *ast.StarExpr:
		return jen.Op("*").Add(sourceType(t.X))
	case *ast.SelectorExpr:
		if pkg, ok := t.X.(*ast.Ident); ok {
			for path, name := range importNames {
				if name == pkg.Name {
					return jen.Qual(path, t.Sel.Name)
				}
			}
		}
	case *ast.FuncType:
		f := jen.Func().Params(sourceParams(t.Params)...)
		switch res := t.Results; {
		case res == nil:
			return f
		case len(res.List) == 1 && len(res.List[0].Names) == 0:
			return f.Add(sourceType(res.List[0].Type))
		}
		return f.Params(sourceParams(t.Results)...)
	}
	panic(fmt.Sprintf("internal error: a type of option parameters, %T, that sourceType does not render", t))
}

// newWireClient renders the expression of NewClient that builds the wire client, telling
// it the spec's servers first when there are some.
func newWireClient(api *model.API) *jen.Statement {
	unwrap := jen.Qual(wirePath, "Unwrap").Call(jen.Id("opts"), jen.Func().Params(jen.Id("o").Id("Option")).Qual(wirePath, "Option").Block(
		jen.Return(jen.Id("o").Dot("option").Call().Dot("apply"))))
	if len(api.ServerConsts) == 0 {
		return jen.Qual(wirePath, "New").Call(unwrap.Op("..."))
	}
	urls := make([]jen.Code, len(api.ServerConsts))
	for i, s := range api.ServerConsts {
		urls[i] = jen.Id(s.GoName)
	}
	all := jen.Append(jen.Index().Qual(wirePath, "Option").Values(jen.Qual(wirePath, "WithSpecServers").Call(urls...)), unwrap.Op("..."))
	return jen.Qual(wirePath, "New").Call(all.Op("..."))
}
