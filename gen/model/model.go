// Package model is the plain data that flows from the spec to the emitter: operations,
// parameters, bodies, responses, types and the resolved retry policy of each operation.
// Every Go identifier the emitter writes is decided before it lands here. The package
// imports neither kin-openapi nor jennifer; a policy holds the runtime's own values
// (runtime.Jitter, runtime.StatusCode), as the generated literal sets them.
package model

import (
	"strconv"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// API is one OpenAPI description, ready to emit.
type API struct {
	Title       string // info.title
	Version     string // info.version
	Description string // info.description
	Servers     []Server
	Operations  []*Operation // sorted by path, then method

	// Decls are the named types of the generated package, in the order they are emitted:
	// component schemas sorted by name, then the types each operation needs, in operation
	// order.
	Decls []*Decl
	// ErrorSets are the distinct error-model mappings the operations use, each emitted
	// once as a function.
	ErrorSets []*ErrorSet

	// SecuritySchemes are components.securitySchemes, sorted by key.
	SecuritySchemes []*SecurityScheme
	// ServerConsts are the top-level servers as constants, in the spec's order.
	ServerConsts []*ServerConst
	// Webhooks are the requests the API sends, sorted by name: 3.1 webhooks, then the
	// callbacks of the operations in operation order.
	Webhooks []*Webhook
	// Endpoint is how Do and DoRaw call an endpoint the spec lacks; nil gives them the
	// runtime's default policy and no credentials.
	Endpoint *Endpoint
}

// Server is one entry of the document's servers list.
type Server struct {
	URL         string // e.g. "https://api.example.com/v1"
	Description string
}

// ResponseDoc is the description of one response, e.g. 200, "The pet.".
type ResponseDoc struct {
	Status string
	Doc    string
}

// Operation is one method on one path.
type Operation struct {
	Method      string // e.g. "POST"
	Path        string // e.g. "/orders/{orderId}"
	OperationID string // e.g. "createOrder"; "" when the spec has none
	GoName      string // e.g. "CreateOrder"
	Summary     string
	Description string
	Deprecated  bool
	Policy      Policy

	// PolicyVar is the package-level variable holding the policy literal, e.g.
	// "policyCreateOrder". Operations with the same literal share one.
	PolicyVar string
	// PathParams are the path parameters in the order the path names them; each is a
	// method argument named by its LocalName.
	PathParams []*Param
	// Path is the path template cut at its parameters.
	PathParts []PathPart
	// FixedQuery holds query pairs written into the path key itself, as in
	// "/responses?beta=true": [["beta", "true"]].
	FixedQuery [][2]string
	// Params are the query, header and cookie parameters: the required ones method
	// arguments after the path parameters (see Param.Argument), the others fields of
	// ParamsType.
	Params []*Param
	// ParamsType is the struct that carries the optional Params, e.g. "ListPetsParams";
	// "" when the operation has none.
	ParamsType string
	// Body is the request body; nil when the operation takes none.
	Body *Body
	// BodyKey is the property of the form or JSON body that carries the call's
	// idempotency key (Policy.KeyInBody), e.g. the field IdempotencyKey of "IdempotencyKey":
	// the method fills it with a fresh key when the caller leaves it empty. nil when the
	// key is a header, or there is none.
	BodyKey *Field
	// Result is what a successful call returns besides the error; nil when only an error.
	Result *Result
	// Errors maps non-2xx statuses to the error models declared for them; nil when the
	// operation declares none.
	Errors *ErrorSet
	// SuccessStatuses are the 2xx statuses the spec declares, with content or without,
	// e.g. ["200", "204"] or ["2XX"]. Another 2xx status is an error; with none declared,
	// any 2xx is a success.
	SuccessStatuses []string
	// ResponseDocs describe the 2xx responses, one per status with a description, in the
	// order of the statuses.
	ResponseDocs []ResponseDoc

	// Security lists the alternatives of the operation's security requirement, each the
	// scheme keys sent together; nil sends no credentials.
	Security [][]string
	// Server is the operation's own server URL (path- or operation-level servers), ""
	// for the client's base URL.
	Server string
	// Stream is the operation's server-sent event stream; nil when it has none. A variant
	// (Variants) of an operation that offers the stream beside other responses holds a
	// copy with Only false, for its Flag: the variant itself returns no stream.
	Stream *Stream
	// Variants are the operation again for each further content type of its request
	// body, each with its own GoName (e.g. "CreateThingForm") and Body; the rest is
	// shared.
	Variants []*Operation
	// Headers are the response headers the 2xx responses declare; nil when none.
	Headers *HeaderSet
	// Redirect reports that the operation declares redirects (3xx) and no 2xx response:
	// the method stops at the redirect and returns its Location (Result is a URL).
	Redirect bool
	// Pagination is how the operation's results go on over several pages; nil when they
	// do not.
	Pagination *Pagination
}

// Source says where a policy field's value came from.
type Source string

const (
	FromDefault   Source = "default"
	FromDocument  Source = "document"
	FromPath      Source = "path"
	FromOperation Source = "operation"
)

// Policy is an operation's resolved retry policy.
type Policy struct {
	// Retry reports whether attempts that may have reached the server are retried:
	// Idempotent and MaxAttempts > 1. When false, the engine retries only attempts whose
	// connection could not be opened (up to MaxAttempts), or none when MaxAttempts is 1.
	Retry bool
	// Idempotent reports that the request may be repeated after it may have reached the
	// server: the method is safe or idempotent, or the operation has an idempotency key
	// or x-idempotent: true. It becomes runtime.Policy.Idempotent.
	Idempotent bool
	// Reason says why, e.g. "GET is safe (RFC 9110 §9.2.1)".
	Reason string

	MaxAttempts      int                  // e.g. 4
	InitialDelay     time.Duration        // e.g. 500ms
	MaxDelay         time.Duration        // e.g. 10s
	Multiplier       float64              // e.g. 2
	Jitter           runtime.Jitter       // e.g. runtime.JitterFull
	StatusCodes      []runtime.StatusCode // e.g. [408, 429, runtime.Class5XX]
	ConnectionErrors bool
	AttemptTimeout   time.Duration // 0: none
	MaxElapsed       time.Duration // 0: only the context's
	RetryAfter       bool
	MaxRetryAfter    time.Duration // e.g. 60s
	// ServerSignals follows the server's word on repeating a request (x-should-retry,
	// Stripe-Should-Retry); false becomes runtime.Policy.IgnoreServerSignals: true.
	ServerSignals  bool
	IdempotencyKey string // header name, e.g. "Idempotency-Key"; "" when none
	// KeyInBody says that IdempotencyKey names a property of the request body, e.g.
	// "IdempotencyKey", rather than a header (x-idempotency-key: {in: body, name: ...}).
	KeyInBody bool

	// Sources maps each field name above, as spelled in x-retry ("maxAttempts"), to where
	// its value came from.
	Sources map[string]Source
	// Overlays maps the fields whose value an overlay put in the spec (names as in
	// Sources, and "idempotent" for x-idempotent) to the place in the overlay, e.g.
	// {"idempotencyKey": "overlays/keys.yaml:9:7"}.
	Overlays map[string]string
}

// KeyText says where the call's idempotency key goes, as plan and diff show it: the
// header's name, "Idempotency-Key", or the body property's with "(body)",
// "IdempotencyKey (body)"; "" when the operation sends none.
func (p *Policy) KeyText() string {
	if p.KeyInBody && p.IdempotencyKey != "" {
		return p.IdempotencyKey + " (body)"
	}
	return p.IdempotencyKey
}

// StatusText spells c as x-retry does: "503", and a class "5XX".
func StatusText(c runtime.StatusCode) string {
	if c >= runtime.Class1XX && c <= runtime.Class5XX {
		return strconv.Itoa(int(c)) + "XX"
	}
	return strconv.Itoa(int(c))
}

// StatusTexts spells each of codes as StatusText does.
func StatusTexts(codes []runtime.StatusCode) []string {
	texts := make([]string, len(codes))
	for i, c := range codes {
		texts[i] = StatusText(c)
	}
	return texts
}
