package build

import (
	"mime"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// isEventStream reports a text/event-stream media type.
func isEventStream(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(ct))
	}
	return mt == "text/event-stream"
}

// stream sets op.Stream when a 2xx response offers text/event-stream. The event's data
// is the media type's itemSchema (3.2), else its schema; a schema that describes the
// whole event (an object with a data property and nothing but id, event and retry
// beside it, as Speakeasy writes them) gives the data property. When the operation's
// success responses offer nothing else, its method returns the stream; otherwise the
// stream gets a method of its own, <Op>Stream.
func (b *builder) stream(op *model.Operation, kop *openapi3.Operation) {
	if kop.Responses == nil {
		return
	}
	all := kop.Responses.Map()
	var (
		ct     string
		mt     *openapi3.MediaType
		others bool
	)
	for _, code := range source.SortedKeys(all) {
		rr := all[code]
		if !strings.HasPrefix(code, "2") || rr == nil || rr.Value == nil {
			continue
		}
		for _, c := range source.SortedKeys(rr.Value.Content) {
			switch {
			case !isEventStream(c):
				others = true
			case mt == nil && rr.Value.Content[c] != nil:
				ct, mt = c, rr.Value.Content[c]
			}
		}
	}
	if mt == nil {
		return
	}
	s := &model.Stream{Accept: ct, Sentinel: "[DONE]", Only: !others}
	if v, ok := mt.Extensions["x-speakeasy-sse-sentinel"].(string); ok && v != "" {
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
		s.Type = b.typeOf(schema, site{op.GoName + "Event", "event of " + op.GoName})
	}
	s.Text = s.Type.Kind == model.KindBuiltin && s.Type.Builtin == model.String
	op.Stream = s
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
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(ct))
	}
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
	if kop.Responses == nil {
		return
	}
	all := kop.Responses.Map()
	found := map[string]*openapi3.Header{}
	var order []string
	for _, code := range source.SortedKeys(all) {
		rr := all[code]
		if !strings.HasPrefix(code, "2") || rr == nil || rr.Value == nil {
			continue
		}
		for _, name := range source.SortedKeys(rr.Value.Headers) {
			h := rr.Value.Headers[name]
			key := strings.ToLower(name)
			if h == nil || h.Value == nil || key == "content-type" || found[key] != nil || !policy.ValidHeaderName(name) {
				continue
			}
			found[key] = h.Value
			order = append(order, name)
		}
	}
	if len(order) == 0 {
		return
	}
	set := &model.HeaderSet{GoName: b.pkg.UniqueFor(op.GoName+"Headers", "response headers of "+op.GoName)}
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

// unusedMedia warns about what op's responses declare that the client does not turn into
// code: a 2xx content type that neither the method nor the stream reads, and links.
func (b *builder) unusedMedia(op *model.Operation, kop *openapi3.Operation) {
	if kop.Responses == nil {
		return
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
		if !strings.HasPrefix(code, "2") || len(rr.Value.Content) < 2 {
			continue
		}
		valid := true
		for ct := range rr.Value.Content {
			valid = valid && validHeaderValue(ct)
		}
		if !valid {
			continue // requestBody and responses report it
		}
		picked, _, kind := b.pickMedia(op, rr.Value.Content)
		for _, ct := range source.SortedKeys(rr.Value.Content) {
			if ct == picked || isEventStream(ct) || kind != mediaJSON && classifyMedia(ct) != mediaJSON {
				continue // a body handed over unread takes any of them
			}
			b.warnOp(op, rr.Value.Origin, "response %s: content type %q is not read; the method asks for %q", code, ct, picked)
		}
	}
}

// rawAccept widens the Accept header of a method that hands the body over unread (an
// io.ReadCloser): it can take every content type its 2xx responses declare but JSON and
// the event stream, not only the one picked, e.g. "audio/mpeg, audio/wav".
func (b *builder) rawAccept(op *model.Operation, kop *openapi3.Operation) {
	if op.Result == nil || op.Result.Multi != nil || !op.Result.Streams() || kop.Responses == nil {
		return
	}
	var accept []string
	all := kop.Responses.Map()
	for _, code := range source.SortedKeys(all) {
		rr := all[code]
		if !strings.HasPrefix(code, "2") || rr == nil || rr.Value == nil {
			continue
		}
		for _, ct := range source.SortedKeys(rr.Value.Content) {
			if classifyMedia(ct) == mediaJSON || isEventStream(ct) || !validHeaderValue(ct) || slices.Contains(accept, ct) {
				continue
			}
			accept = append(accept, ct)
		}
	}
	if len(accept) > 0 {
		op.Result.Accept = strings.Join(accept, ", ")
	}
}
