package model

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
