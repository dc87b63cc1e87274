package model

import "strings"

// Param is one parameter of an operation.
type Param struct {
	Name       string // the wire name, e.g. "petId" or "X-Request-ID"
	In         string // "path", "query", "header" or "cookie"
	GoName     string // the field in the params struct, e.g. "PetID"
	LocalName  string // the method argument of an Argument parameter, e.g. "petID"
	Doc        string
	Deprecated bool
	Required   bool
	// Type is the field or argument type; optional scalars are pointers, so that an
	// unset parameter is not sent.
	Type *Type
	// Style and Explode are the serialization, defaults applied: "simple", "label",
	// "matrix", "form", "spaceDelimited", "pipeDelimited" or "deepObject".
	Style   string
	Explode bool
	// IdempotencyKey marks the declared Idempotency-Key header: a value the caller sets
	// becomes the call's idempotency key, and an empty one is filled by the runtime.
	IdempotencyKey bool
}

// Argument reports whether p is a method argument rather than a field of the params
// struct: path parameters and the other required ones, so that none can be left out by
// accident. A declared idempotency key stays a field, which the runtime fills when empty.
func (p *Param) Argument() bool { return p.Required && !p.IdempotencyKey }

// PathPart is one piece of a path template: literal text, or a parameter.
type PathPart struct {
	// Literal is already percent-encoded, e.g. "/pets/".
	Literal string
	// Param is set for a parameter, nil for literal text.
	Param *Param
}

// BodyEncoding says how a request body is written.
type BodyEncoding int

const (
	// JSONBody marshals Body.Type with encoding/json.
	JSONBody BodyEncoding = iota
	// FormBody writes application/x-www-form-urlencoded.
	FormBody
	// MultipartBody writes multipart/form-data, one part per struct field; io.Reader
	// fields become file parts.
	MultipartBody
	// RawBody sends an io.Reader as is, e.g. application/octet-stream.
	RawBody
)

// Body is an operation's request body.
type Body struct {
	Encoding    BodyEncoding
	ContentType string // e.g. "application/json"
	// Type is the method argument's type: a value for a required body, a pointer (or a
	// nil-able type) for an optional one.
	Type     *Type
	Required bool
	Doc      string
	// FormStyles lists the properties of a form body that the spec's encoding object
	// writes in another style than form with explode (deepObject as
	// "metadata[key]=value", an array as "a=1,2"), sorted by name. Each holds the property's name as Name, its style
	// and explode flag, and In "query": a form body's properties are written as query
	// parameters are.
	FormStyles []*Param
}

// Result is what a successful call returns.
type Result struct {
	// Type is the method's first result, e.g. *Pet or []Pet.
	Type *Type
	// Accept is the Accept header sent: every media type the method can take, e.g.
	// "application/json" or "text/csv, text/plain".
	Accept string
	// Responses are the 2xx responses that carry content, sorted by status. With one
	// distinct type the method decodes any 2xx into it; with several, Type is the
	// struct Multi and each response fills its own field.
	Responses []*Response
	// Multi is the struct with one field per response, e.g. "CreateOrderResponse"; nil
	// when all responses share one type.
	Multi *Decl
	// StrictJSON reports that the operation also offers text/plain, so its JSON
	// responses refuse a text/plain body rather than take it for mislabelled JSON.
	StrictJSON bool
}

// Streams reports whether a response's body is handed to the caller unread (an
// io.ReadCloser) rather than decoded whole by the method.
func (r *Result) Streams() bool {
	for _, resp := range r.Responses {
		if resp.Type.Kind == KindBuiltin && resp.Type.Builtin == ReadCloser {
			return true
		}
	}
	return false
}

// Methods are op and its variants: the methods of one operation.
func (op *Operation) Methods() []*Operation {
	return append([]*Operation{op}, op.Variants...)
}

// StreamVariant is op as its <Op>Stream method sees it, for an operation that offers
// an event stream beside other responses: the same request under the stream's name,
// returning the stream. It returns nil for other operations.
func (op *Operation) StreamVariant() *Operation {
	if op.Stream == nil || op.Stream.Only {
		return nil
	}
	cp := *op
	cp.GoName = op.Stream.GoName
	cp.Result = nil
	s := *op.Stream
	s.Only = true
	cp.Stream = &s
	return &cp
}

// ReadsBodyWhole reports whether the method decodes a 2xx response's body whole rather
// than hand it to the caller unread or ignore it. It then sends the request with
// wire's Fetch, which reads the body within the attempt, so a body cut short is retried
// like any other failed attempt. A method without a result ignores the body: it drains
// a little of it, so a successful call whose server sends more than Engine.MaxBodySize
// anyway is not turned into ErrBodyTooLarge, nor is the body held in memory.
func (op *Operation) ReadsBodyWhole() bool {
	return op.Result != nil && !op.Result.Streams() && !op.Redirect
}

// Response is one 2xx response with content.
type Response struct {
	Status string // e.g. "200", "2XX"
	// Type is the decoded value's type, e.g. Pet; String for a text body, ReadCloser for
	// a binary body handed to the caller, Bytes for a binary body read whole (a field of
	// Multi).
	Type *Type
	// JSON reports that the body is decoded with encoding/json.
	JSON bool
	// Text reports that the body is text read whole into a string; Media then lists the
	// media types the method takes, e.g. ["text/csv", "text/plain"], and a response with
	// another Content-Type is an error.
	Text  bool
	Media []string
	// Field is the field of Result.Multi this response fills; nil without Multi.
	Field *Field
}

// ErrorSet maps the non-2xx statuses of one or more operations to their error models.
type ErrorSet struct {
	// GoName is the function that picks a model for a status, e.g. "errorsGetPet".
	GoName string
	// Cases are sorted: exact statuses, then classes ("4XX"), then "default".
	Cases []*ErrorCase
}

// Only returns the model of a set whose one case is "default": the model of every
// status. It returns nil for other sets.
func (s *ErrorSet) Only() *Type {
	if len(s.Cases) == 1 && s.Cases[0].Status == "default" {
		return s.Cases[0].Type
	}
	return nil
}

// ErrorCase is one declared error response with a JSON model.
type ErrorCase struct {
	Status string // "404", "4XX" or "default"
	Type   *Type  // a named type with an Error method
}

// SimplifyErrorCases drops the cases that a later case answers with the same model, so
// that two mappings that pick the same model for every status are one: in
// {404: Problem, default: Problem} the 404 case says nothing the default does not. cases
// must be sorted as ErrorSet.Cases are; they are not changed.
func SimplifyErrorCases(cases []*ErrorCase) []*ErrorCase {
	out := cases[:0:0]
	for i, c := range cases {
		if next := fallback(cases[i+1:], c.Status); next == nil || !SameType(next.Type, c.Type) {
			out = append(out, c)
		}
	}
	return out
}

// fallback returns the first of later that answers status when no earlier case does: the
// class of an exact status, or default.
func fallback(later []*ErrorCase, status string) *ErrorCase {
	for _, c := range later {
		switch {
		case c.Status == "default":
			return c
		case isClass(c.Status) && !isClass(status) && len(status) == 3 && c.Status[0] == status[0]:
			return c
		}
	}
	return nil
}

// isClass reports a status class such as "4XX".
func isClass(status string) bool {
	return len(status) == 3 && strings.EqualFold(status[1:], "XX")
}
