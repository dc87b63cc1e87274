package build

import (
	"mime"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/names"
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
	for _, code := range load.SortedKeys(all) {
		rr := all[code]
		if !strings.HasPrefix(code, "2") || rr == nil || rr.Value == nil {
			continue
		}
		for _, c := range load.SortedKeys(rr.Value.Content) {
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
	for _, ct := range load.SortedKeys(rb.Content) {
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
