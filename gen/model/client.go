package model

import "time"

// SecurityScheme is one entry of components.securitySchemes, with the options that
// configure it on the client.
type SecurityScheme struct {
	Key  string // the scheme's key in the spec, e.g. "bearerAuth"
	Kind string // "apiKey", "bearer", "basic", "oauth2" or "openIdConnect"
	In   string // for apiKey: "header", "query" or "cookie"
	Name string // for apiKey: the header, query parameter or cookie name
	Doc  string
	// Option is the option that takes the credential, e.g. "WithBearerAuth"; FuncOption
	// its form that takes a function, e.g. "WithBearerAuthFunc", "" when the kind has none.
	Option     string
	FuncOption string

	// For an oauth2 scheme: its clientCredentials flow, and the flow whose tokens come
	// with refresh tokens (authorizationCode, else password); nil when it has none with
	// a tokenUrl.
	ClientCredentials *OAuthFlow
	Refresh           *OAuthFlow
	// The options of an oauth2 or openIdConnect scheme besides Option, "" when it has
	// none: e.g. "WithOAuth2ClientCredentials", "WithOAuth2RefreshToken" (with the flows
	// above), "WithOAuth2TokenSource" (every such scheme) and "WithOAuth2TokenURL" (with
	// a flow).
	ClientCredentialsOption, RefreshTokenOption, TokenSourceOption, TokenURLOption string
}

// OAuthFlow is one OAuth 2 flow of a security scheme, as the client runs it.
type OAuthFlow struct {
	TokenURL   string   // e.g. "https://auth.example.com/oauth/token"
	RefreshURL string   // "" for TokenURL
	Scopes     []string // the scopes the spec lists, sorted
}

// Stream is an operation's server-sent event stream, or stream of JSON values.
type Stream struct {
	// GoName is the method that returns the stream: the operation's own name when it
	// offers nothing but the stream, else e.g. "CreateChatCompletionStream".
	GoName string
	// Only reports that the operation's success responses offer only the stream.
	Only bool
	// Type is the type each event's data decodes into.
	Type *Type
	// Text reports that Type is a string that takes the data as is, not as JSON.
	Text bool
	// Sentinel is the data that ends the stream, e.g. "[DONE]".
	Sentinel string
	// Accept is the Accept header the stream method sends, e.g. "text/event-stream".
	Accept string
	// Lines reports a stream of JSON values, one a line (Accept is e.g.
	// "application/x-ndjson" or "application/json;stream=watch"), not server-sent events.
	// Such a stream has no sentinel.
	Lines bool
	// IdleTimeout is how long the stream may go without a byte, from the spec's
	// x-stream-idle-timeout; 0 for the runtime's default.
	IdleTimeout time.Duration
	// Accumulate describes how the events add up to the operation's JSON response; nil
	// when they do not, or the operation has no JSON response.
	Accumulate *Accumulate
	// Flag is the request body's boolean property "stream" (JSON, form or multipart), by
	// which the caller asks for the event stream: the stream method sends it true, the
	// operation's other methods leave it out (false when it is required). nil when the
	// body has none.
	Flag *Field
}

// ServerConst is one of the spec's top-level servers, declared as a constant.
type ServerConst struct {
	GoName      string // e.g. "ServerURL", "ServerURL2"
	URL         string
	Description string
	// Vars are the server's variables, sorted by name; a URL with variables also gets a
	// function named by FuncName that fills them.
	Vars     []ServerVar
	FuncName string
}

// ServerVar is one variable of a server URL template.
type ServerVar struct {
	Name        string
	GoName      string // the function's argument, e.g. "region"
	Default     string
	Enum        []string
	Description string
}

// HeaderSet is the struct that holds the response headers an operation declares, typed,
// read from a ResponseInfo.
type HeaderSet struct {
	GoName string // e.g. "ListItemsHeaders"
	Fields []HeaderField
}

// HeaderField is one declared response header.
type HeaderField struct {
	Name   string // the header's name, e.g. "X-Rate-Limit-Remaining"
	GoName string // e.g. "XRateLimitRemaining"
	Type   *Type  // a builtin scalar: String, Bool, Int32, Int64, Float32, Float64 or Time
	Doc    string
}

// Accumulate is how a stream's events, deltas of the operation's JSON response, add up
// to that response: the stream method returns a stream type of its own whose Accumulate
// method returns it.
type Accumulate struct {
	// Shape is how the events are deltas: "openai" (chat completion chunks whose choices
	// carry deltas of the response's messages) or "anthropic" (message_start,
	// content_block_delta, message_delta events).
	Shape string
	// GoName is the stream type, e.g. "CreateChatCompletionStream".
	GoName string
	// Result is the response type Accumulate returns, e.g. CreateChatCompletionResponse.
	Result *Type
}

// Endpoint is how Client.Do and DoRaw call an endpoint the spec lacks: as an operation
// of the document would be, with its policy and security.
type Endpoint struct {
	// Idempotent and NotIdempotent give the policy (Policy, PolicyVar) of a method that
	// is retry-safe by itself (GET, PUT, DELETE...) and of one that is not (POST, PATCH).
	Idempotent, NotIdempotent *Operation
	// Security is the document's security requirement, as Operation.Security.
	Security [][]string
}
