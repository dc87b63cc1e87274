package build

import (
	"bytes"
	"encoding/json"
	"errors"
	"iter"
	"mime"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// mediaType is ct's type and subtype in lower case, without parameters, also when ct
// does not parse as a whole ("application/json; charset").
func mediaType(ct string) string {
	if mt, _, err := mime.ParseMediaType(ct); err == nil || errors.Is(err, mime.ErrInvalidMediaParameter) {
		return mt
	}
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// isEventStream reports a text/event-stream media type.
func isEventStream(ct string) bool {
	mt := mediaType(ct)
	return mt == "text/event-stream"
}

// isJSONStream reports a media type whose body is a stream of JSON values, one a line:
// application/x-ndjson, application/jsonl, application/x-jsonlines, application/json-seq,
// and a JSON type with the parameter stream=watch, Kubernetes' watch events.
func isJSONStream(ct string) bool {
	switch mt := mediaType(ct); mt {
	case "application/x-ndjson", "application/jsonl", "application/x-jsonlines", "application/json-seq":
		return true
	case "application/json":
		_, params, _ := mime.ParseMediaType(ct)
		return params["stream"] == "watch"
	}
	return false
}

// isStream reports a media type that a stream method reads: server-sent events, or a
// stream of JSON values.
func isStream(ct string) bool { return isEventStream(ct) || isJSONStream(ct) }

// stream sets op.Stream when a 2xx response offers text/event-stream, or else a stream of
// JSON values (isJSONStream). The event's data is the media type's itemSchema (3.2), else
// its schema; a schema that describes the whole event (an object with a data property
// and nothing but id, event and retry beside it, as Speakeasy writes them) gives the data
// property. When the operation's success responses offer nothing else, its method
// returns the stream; otherwise the stream gets a method of its own, <Op>Stream.
func (b *builder) stream(op *model.Operation, kop *openapi3.Operation) {
	var (
		ct     string
		mt     *openapi3.MediaType
		others bool
	)
	for r := range successResponses(kop) {
		for _, c := range source.SortedKeys(r.Content) {
			switch {
			case !isStream(c):
				others = true
			case r.Content[c] != nil && (mt == nil || isEventStream(c) && !isEventStream(ct)):
				ct, mt = c, r.Content[c]
			}
		}
	}
	if mt == nil || !validHeaderValue(ct) {
		return
	}
	s := &model.Stream{Accept: ct, Sentinel: "[DONE]", Only: !others}
	if isJSONStream(ct) {
		s.Lines, s.Sentinel = true, ""
	}
	if v, ok := mt.Extensions["x-speakeasy-sse-sentinel"].(string); ok && v != "" && !s.Lines {
		s.Sentinel = v
	}
	schema := mt.ItemSchema
	if schema == nil {
		schema = eventData(mt.Schema)
	}
	if s.Only {
		s.GoName = op.GoName
		op.Result = nil
	} else {
		s.GoName = b.methods.UniqueFor(op.GoName+"Stream", "event stream of "+op.GoName)
	}
	if schema == nil || schema.Value == nil {
		s.Type = model.BuiltinType(model.Any)
	} else {
		s.Type = b.typeOf(schema, at("event of "+op.GoName, op.GoName+"Event", op.GoName+"StreamEvent"))
	}
	// An event's data is text; a value of a stream of JSON values is JSON, a string too.
	s.Text = !s.Lines && s.Type.Kind == model.KindBuiltin && s.Type.Builtin == model.String
	op.Stream = s
}

// streamFlags finds, for op and each of its variants, the boolean property "stream" of
// the request body, by which the caller asks the server for the event stream (OpenAI's
// and OpenRouter's chat completions and transcriptions), so that the stream methods send
// it true and the other methods do not. A variant of an operation that offers the stream
// beside other responses gets a copy of the stream (Only false) to hold its own flag.
func streamFlags(op *model.Operation) {
	streamFlag(op)
	for _, v := range op.Variants {
		if v.Stream == nil && op.Stream != nil && !op.Stream.Only {
			s := *op.Stream
			s.Flag = nil
			v.Stream = &s
		}
		streamFlag(v)
	}
}

// streamFlag sets op.Stream.Flag to the boolean property "stream" of op's JSON, form or
// multipart request body, when it has one.
func streamFlag(op *model.Operation) {
	if op.Stream == nil || op.Body == nil {
		return
	}
	switch op.Body.Encoding {
	case model.JSONBody, model.FormBody, model.MultipartBody:
	default:
		return
	}
	t := op.Body.Type
	for t.Kind == model.KindPointer || t.Kind == model.KindNamed && t.Decl.Kind == model.AliasDecl {
		if t.Kind == model.KindPointer {
			t = t.Elem
		} else {
			t = t.Decl.Underlying
		}
	}
	if t.Kind != model.KindNamed || t.Decl.Kind != model.StructDecl {
		return
	}
	for _, f := range t.Decl.Fields {
		if f.Name != "stream" || f.ReadOnly {
			continue
		}
		b := f.Type
		if b.Kind == model.KindPointer || b.Kind == model.KindNullable {
			b = b.Elem
		}
		if b.Kind == model.KindBuiltin && b.Builtin == model.Bool {
			op.Stream.Flag = f
		}
		return
	}
}

// eventData returns the schema of an event's data when sr describes the whole event.
func eventData(sr *openapi3.SchemaRef) *openapi3.SchemaRef {
	if sr == nil || sr.Value == nil {
		return sr
	}
	props := sr.Value.Properties
	data, ok := props["data"]
	if !ok {
		return sr
	}
	for name := range props {
		if !slices.Contains([]string{"data", "id", "event", "retry"}, name) {
			return sr
		}
	}
	return data
}

// bodyVariants gives op one more method per further content type of its request body:
// the content type requestBody picked keeps the plain name (JSON first), each other one
// becomes a variant named after it, e.g. CreateThingForm, CreateThingMultipart,
// CreateThingText. Content types whose name gives no usable suffix are a warning.
func (b *builder) bodyVariants(op *model.Operation, kop *openapi3.Operation) {
	if op.Body == nil || kop.RequestBody == nil || kop.RequestBody.Value == nil {
		return
	}
	rb := kop.RequestBody.Value
	if len(rb.Content) < 2 {
		return
	}
	seen := map[string]bool{op.Body.ContentType: true}
	for _, ct := range source.SortedKeys(rb.Content) {
		mt := rb.Content[ct]
		if mt == nil || seen[sendableType(ct)] || !validHeaderValue(ct) {
			continue
		}
		seen[sendableType(ct)] = true
		suffix := mediaSuffix(ct)
		if suffix == "" {
			b.warnOp(op, rb.Origin, "request content type %q gets no method of its own: its name gives none", ct)
			continue
		}
		v := *op
		v.Variants, v.Body, v.Stream = nil, nil, nil
		if op.Stream != nil && op.Stream.Only {
			s := *op.Stream
			v.Stream = &s
		}
		v.GoName = b.methods.UniqueFor(op.GoName+suffix, "request content type "+ct+" of "+op.GoName)
		if v.Stream != nil {
			v.Stream.GoName = v.GoName
		}
		one := *rb
		one.Content = openapi3.Content{ct: mt}
		fake := *kop
		fake.RequestBody = &openapi3.RequestBodyRef{Value: &one}
		b.requestBody(&v, &fake)
		if v.Body == nil {
			continue
		}
		v.Body.Doc = strings.TrimSpace("Sent as " + ct + ". " + v.Body.Doc)
		op.Variants = append(op.Variants, &v)
	}
}

// mediaSuffix names the method of a request content type: Form, Multipart, Text,
// Binary, or the media type's subtype (application/merge-patch+json → MergePatchJSON).
func mediaSuffix(ct string) string {
	mt := mediaType(ct)
	switch mt {
	case "application/x-www-form-urlencoded":
		return "Form"
	case "multipart/form-data":
		return "Multipart"
	case "text/plain":
		return "Text"
	case "application/octet-stream", "*/*", "application/*":
		return "Binary"
	}
	_, sub, _ := strings.Cut(mt, "/")
	return names.GoName(sub)
}

// responseHeaders collects the headers op's 2xx responses declare into a struct of
// typed fields, <Op>Headers, that a ResponseInfo fills. Content-Type is left out, as
// OpenAPI says; a header whose schema is not a scalar is read as a string.
func (b *builder) responseHeaders(op *model.Operation, kop *openapi3.Operation) {
	found := map[string]*openapi3.Header{}
	var order []string
	for r := range successResponses(kop) {
		for _, name := range source.SortedKeys(r.Headers) {
			h := r.Headers[name]
			key := strings.ToLower(name)
			if h == nil || h.Value == nil || key == "content-type" || found[key] != nil || !policy.ValidHeaderName(name) {
				continue
			}
			found[key] = h.Value
			order = append(order, name)
		}
	}
	if len(order) == 0 || !b.growAt(len(order), "the response headers of "+op.GoName, opPointer(op)) {
		return
	}
	set := &model.HeaderSet{}
	b.claimName(&set.GoName, "response headers of "+op.GoName, op.GoName+"Headers", op.GoName+"ResponseHeaders")
	fields := names.NewExportedNamer("From")
	for _, name := range order {
		h := found[strings.ToLower(name)]
		set.Fields = append(set.Fields, model.HeaderField{
			Name:   name,
			GoName: fields.Unique(names.GoName(name)),
			Type:   model.BuiltinType(headerType(h.Schema)),
			Doc:    h.Description,
		})
	}
	op.Headers = set
}

// headerType is the Go type a header's schema reads into.
func headerType(sr *openapi3.SchemaRef) model.Builtin {
	if sr == nil || sr.Value == nil || sr.Value.Type == nil {
		return model.String
	}
	s := sr.Value
	switch {
	case s.Type.Is("integer") && s.Format == "int32":
		return model.Int32
	case s.Type.Is("integer"):
		return model.Int64
	case s.Type.Is("number") && s.Format == "float":
		return model.Float32
	case s.Type.Is("number"):
		return model.Float64
	case s.Type.Is("boolean"):
		return model.Bool
	case s.Type.Is("string") && s.Format == "date-time":
		return model.Time
	}
	return model.String
}

// bodyKind sorts the media type of a 2xx response by how the client reads it.
type bodyKind int

const (
	bodyJSON   bodyKind = iota // decoded with encoding/json
	bodyText                   // read whole into a string
	bodyBinary                 // handed over unread, an io.ReadCloser
)

// responseBody is how a 2xx body of media type ct with the media object mt is read. A
// JSON media type whose schema is binary (a Swagger 2.0 `type: file`, which kin-openapi
// turns into a binary string under each `produces` type) is binary.
func responseBody(ct string, mt *openapi3.MediaType) bodyKind {
	switch {
	case isJSONStream(ct): // read by the stream method, as an event stream is
		return bodyBinary
	case classifyMedia(ct) == mediaJSON && !binarySchema(mt), rangeJSON(ct, mt):
		return bodyJSON
	case isTextMedia(ct):
		return bodyText
	}
	return bodyBinary
}

// rangeJSON reports a media range, "*/*" or "application/*", whose schema describes
// structured data (an object, an array, a number, a boolean, or a composition): the JSON
// body that springdoc and Swagger 2.0's `produces: ["*/*"]` declare so. A string schema
// (text or binary) or a free-form one leaves the body unread.
func rangeJSON(ct string, mt *openapi3.MediaType) bool {
	if m := mediaType(ct); m != "*/*" && m != "application/*" {
		return false
	}
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return false
	}
	s := mt.Schema.Value
	if s.Type != nil && len(*s.Type) > 0 {
		return !s.Type.Includes("string")
	}
	return len(s.Properties) > 0 || len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) > 0 || s.Items != nil
}

// binarySchema reports a media type whose schema is a string of format binary.
func binarySchema(mt *openapi3.MediaType) bool {
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return false
	}
	s := mt.Schema.Value
	return s.Type != nil && s.Type.Is("string") && s.Format == "binary"
}

// isTextMedia reports a media type whose body is text a method returns as a string:
// text/* but the event stream, XML, YAML, newline-delimited JSON, CSV, JavaScript,
// GraphQL, SQL, SDP and form-encoded data.
func isTextMedia(ct string) bool {
	mt := mediaType(ct)
	if strings.HasPrefix(mt, "text/") {
		return mt != "text/event-stream"
	}
	if isJSONStream(ct) {
		return false
	}
	if strings.HasSuffix(mt, "+xml") || strings.HasSuffix(mt, "+yaml") {
		return true
	}
	switch mt {
	case "application/xml", "application/yaml", "application/x-yaml",
		"application/csv", "application/javascript", "application/ecmascript",
		"application/graphql", "application/sql", "application/sdp",
		"application/x-www-form-urlencoded":
		return true
	}
	return false
}

// successMedia picks the media type a method reads from the content of a 2xx response:
// JSON first, then the others by name, the event stream (which the stream method reads)
// last. Media types that are not valid header values are left out; pickMedia reports them.
func successMedia(content openapi3.Content) (string, *openapi3.MediaType, bodyKind) {
	best, kind := "", bodyKind(-1)
	for _, ct := range source.SortedKeys(content) {
		mt := content[ct]
		if mt == nil || !validHeaderValue(ct) {
			continue
		}
		k := responseBody(ct, mt)
		switch {
		case kind < 0, k == bodyJSON && kind != bodyJSON, isStream(best) && !isStream(ct) && kind != bodyJSON:
			best, kind = ct, k
		}
	}
	if kind < 0 {
		return "", nil, bodyBinary
	}
	return best, content[best], kind
}

// successResponses yields the 2xx responses of kop, in the order of their statuses.
func successResponses(kop *openapi3.Operation) iter.Seq[*openapi3.Response] {
	return func(yield func(*openapi3.Response) bool) {
		if kop.Responses == nil {
			return
		}
		all := kop.Responses.Map()
		for _, code := range source.SortedKeys(all) {
			if rr := all[code]; strings.HasPrefix(code, "2") && rr != nil && rr.Value != nil && !yield(rr.Value) {
				return
			}
		}
	}
}

// successTypes lists the media types op's 2xx responses declare, each once, in the order
// of their statuses and names; the event stream and types that are not valid header
// values are left out.
func successTypes(kop *openapi3.Operation) (types []string, media map[string]*openapi3.MediaType) {
	media = map[string]*openapi3.MediaType{}
	for r := range successResponses(kop) {
		for _, ct := range source.SortedKeys(r.Content) {
			mt := r.Content[ct]
			if mt == nil || isStream(ct) || !validHeaderValue(ct) || media[ct] != nil {
				continue
			}
			types = append(types, ct)
			media[ct] = mt
		}
	}
	return types, media
}

// textOnly reports whether the bodies of op's 2xx responses that are not JSON are all
// text: then the method returns them as a string, and otherwise hands them over unread.
func textOnly(kop *openapi3.Operation) bool {
	types, media := successTypes(kop)
	text := false
	for _, ct := range types {
		switch responseBody(ct, media[ct]) {
		case bodyText:
			text = true
		case bodyBinary:
			return false
		}
	}
	return text
}

// resultMedia sets what op's method can take: its Accept header lists, in the order the
// 2xx responses declare them, the JSON media types when it decodes JSON and the others
// when it reads text or hands the body over unread; its text responses take any of the
// text types. When the responses offer JSON and text, and no binary type, a second
// method, <Op>Text, returns the text form.
func (b *builder) resultMedia(op *model.Operation, kop *openapi3.Operation) {
	if op.Result == nil {
		return
	}
	types, media := successTypes(kop)
	var text []string
	binary := false
	for _, ct := range types {
		switch responseBody(ct, media[ct]) {
		case bodyText:
			text = append(text, ct)
		case bodyBinary:
			binary = true
		}
	}
	hasJSON, hasOther := false, false
	for _, r := range op.Result.Responses {
		if r.JSON {
			hasJSON = true
			continue
		}
		hasOther = true
		if r.Text {
			r.Media = text
		}
	}
	sameJSON := jsonAlike(kop)
	var accept []string
	for _, ct := range types {
		if isJSON := responseBody(ct, media[ct]) == bodyJSON; isJSON && hasJSON && sameJSON[ct] || !isJSON && hasOther {
			accept = append(accept, ct)
		}
	}
	if len(accept) > 0 {
		op.Result.Accept = strings.Join(accept, ", ")
	}
	op.Result.StrictJSON = hasJSON && slices.ContainsFunc(text, func(ct string) bool { return mediaType(ct) == "text/plain" })
	if hasJSON && !hasOther && len(text) > 0 && !binary {
		b.textVariant(op, text)
	}
}

// jsonAlike returns the JSON media types of op's 2xx responses that decode into the type
// of the JSON media type their response picks: in each response that declares one, its
// schema is the picked one's. A vendor type with a schema of its own (GitHub's
// application/vnd.github.v3.star+json beside application/json) is left out, so that it is
// not decoded into the wrong type.
func jsonAlike(kop *openapi3.Operation) map[string]bool {
	ok := map[string]bool{}
	refused := map[string]bool{}
	for r := range successResponses(kop) {
		_, picked, kind := successMedia(r.Content)
		if kind != bodyJSON {
			continue
		}
		for ct, mt := range r.Content {
			if mt == nil || responseBody(ct, mt) != bodyJSON {
				continue
			}
			if sameSchema(mt.Schema, picked.Schema) {
				ok[ct] = true
			} else {
				refused[ct] = true
			}
		}
	}
	for ct := range refused {
		delete(ok, ct)
	}
	return ok
}

// sameSchema reports whether two schemas are written the same: the same reference, or
// the same JSON.
func sameSchema(a, b *openapi3.SchemaRef) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	if a.Ref != "" || b.Ref != "" {
		return a.Ref == b.Ref
	}
	if a.Value == b.Value {
		return true
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// textVariant adds to op the method <Op>Text, which sends op's request with an Accept
// header of the text types and returns the body as a string.
func (b *builder) textVariant(op *model.Operation, text []string) {
	v := *op
	v.Variants, v.Stream, v.Headers = nil, nil, nil
	v.GoName = b.methods.UniqueFor(op.GoName+"Text", "text response of "+op.GoName)
	str := model.BuiltinType(model.String)
	v.Result = &model.Result{
		Type:      str,
		Accept:    strings.Join(text, ", "),
		Responses: []*model.Response{{Status: op.Result.Responses[0].Status, Type: str, Text: true, Media: text}},
	}
	op.Variants = append(op.Variants, &v)
}

// unusedMedia warns about what op's responses declare that the client does not turn into
// code: a 2xx content type that no method of op reads, and links.
func (b *builder) unusedMedia(op *model.Operation, kop *openapi3.Operation) {
	if kop.Responses == nil {
		return
	}
	read := map[string]bool{}
	for _, o := range op.Methods() {
		if o.Result != nil {
			for _, ct := range strings.Split(o.Result.Accept, ", ") {
				read[ct] = true
			}
		}
	}
	all := kop.Responses.Map()
	for _, code := range source.SortedKeys(all) {
		rr := all[code]
		if rr == nil || rr.Value == nil {
			continue
		}
		if len(rr.Value.Links) > 0 {
			b.warnOp(op, rr.Value.Origin, "response %s: links are not turned into code", code)
		}
		if !strings.HasPrefix(code, "2") || op.Result == nil {
			continue
		}
		for _, ct := range source.SortedKeys(rr.Value.Content) {
			if read[ct] || isStream(ct) || !validHeaderValue(ct) {
				continue
			}
			b.warnOp(op, rr.Value.Origin, "response %s: content type %q is not read; the method asks for %q", code, ct, op.Result.Accept)
		}
	}
}
