package build

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// What users of SDKs write by hand elsewhere, built from the spec: OAuth 2 flows the
// client runs itself, stream idle timeouts, stream accumulators and the endpoint of
// Do.

// Extensions read here.
const (
	extStreamIdle       = "x-stream-idle-timeout"
	extStreamAccumulate = "x-stream-accumulate"
)

// sdkError records a problem with a value of the spec, located by its JSON pointer.
func (b *builder) sdkError(op *model.Operation, pointer, fix, format string, args ...any) {
	e := &source.Error{Pos: b.spec.Files.PosOfPointer(pointer), Msg: fmt.Sprintf(format, args...), Fix: fix}
	if op != nil {
		e.Op = source.OpName(op.Method, op.Path, op.OperationID)
	}
	b.errs.Add(e)
}

// oauthOptions gives m, an oauth2 or openIdConnect scheme, the options by which the
// client gets its tokens itself: from a token source, and for an oauth2 scheme with a
// tokenUrl, by its client credentials flow, by a refresh token, and from another token
// URL.
func (b *builder) oauthOptions(m *model.SecurityScheme, s *openapi3.SecurityScheme, what string) {
	m.TokenSourceOption = b.pkg.UniqueFor(m.Option+"TokenSource", what)
	if m.Kind != "oauth2" || s.Flows == nil {
		return
	}
	flow := func(f *openapi3.OAuthFlow) *model.OAuthFlow {
		if f == nil || f.TokenURL == "" {
			return nil
		}
		return &model.OAuthFlow{TokenURL: f.TokenURL, RefreshURL: f.RefreshURL, Scopes: source.SortedKeys(f.Scopes)}
	}
	m.ClientCredentials = flow(s.Flows.ClientCredentials)
	m.Refresh = flow(s.Flows.AuthorizationCode)
	if m.Refresh == nil {
		m.Refresh = flow(s.Flows.Password)
	}
	if m.ClientCredentials != nil {
		m.ClientCredentialsOption = b.pkg.UniqueFor(m.Option+"ClientCredentials", what)
	}
	if m.Refresh != nil {
		m.RefreshTokenOption = b.pkg.UniqueFor(m.Option+"RefreshToken", what)
	}
	if m.ClientCredentials != nil || m.Refresh != nil {
		m.TokenURLOption = b.pkg.UniqueFor(m.Option+"TokenURL", what)
	}
}

// streamIdle sets the idle timeout of op's stream from x-stream-idle-timeout on the
// operation, else its path item, else the document: a Go duration, at most 24h.
func (b *builder) streamIdle(op *model.Operation, item *openapi3.PathItem, kop *openapi3.Operation) {
	if op.Stream == nil {
		return
	}
	opPtr := "#/paths/" + source.EscapePointer(op.Path) + "/" + strings.ToLower(op.Method)
	for _, level := range []struct {
		ext     map[string]any
		pointer string
	}{
		{kop.Extensions, opPtr}, {item.Extensions, "#/paths/" + source.EscapePointer(op.Path)}, {b.spec.Doc.Extensions, "#"},
	} {
		v, ok := level.ext[extStreamIdle]
		if !ok {
			continue
		}
		s, _ := v.(string)
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 || d > 24*time.Hour {
			b.sdkError(op, level.pointer+"/"+extStreamIdle, `write a Go duration such as "2m" or "90s"`,
				"%s must be a positive duration of at most 24h, got %s", extStreamIdle, quoteValue(v))
			return
		}
		op.Stream.IdleTimeout = d
		return
	}
}

// quoteValue shows a spec value in a message, cut short.
func quoteValue(v any) string {
	s := fmt.Sprintf("%q", fmt.Sprint(v))
	if len(s) > 40 {
		s = s[:40] + `..."`
	}
	return s
}

// endpoint builds how Do and DoRaw call an endpoint the spec lacks: as an operation of
// the document would be, a GET and a POST for the two policies, with the document's
// security requirement. Its problems are the document's, reported with its operations.
func (b *builder) endpoint() *model.Endpoint {
	doc := b.spec.Doc
	var errs, warns source.ErrorList
	docSettings := policy.Read(level(b.spec, model.FromDocument, doc.Extensions, doc.Origin, "#"), "", &errs, &warns)
	e := &model.Endpoint{}
	for _, m := range []string{"GET", "POST"} {
		op := &model.Operation{Method: m, GoName: "Do"}
		op.Policy = policy.Resolve(policy.Operation{Method: m, Name: m + " (Do)"}, docSettings, policy.Settings{}, policy.Settings{}, &errs)
		if m == "GET" {
			e.Idempotent = op
		} else {
			e.NotIdempotent = op
		}
	}
	for _, req := range doc.Security {
		keys := source.SortedKeys(req)
		if !slices.ContainsFunc(keys, func(k string) bool { return !b.schemes[k] }) {
			e.Security = append(e.Security, keys)
		}
	}
	if len(e.Security) == 1 && len(e.Security[0]) == 0 {
		e.Security = nil
	}
	return e
}

// accumulate decides whether op's stream events are deltas of its JSON response, by
// x-stream-accumulate on the operation ("openai", "anthropic" or false), else by their
// shapes: chunks whose choices carry a delta where the response's carry a message
// (OpenAI's chat completions), or a union of message_start and content_block_delta events
// beside a response with content and a role (Anthropic's messages).
func (b *builder) accumulate(op *model.Operation, kop *openapi3.Operation) {
	if op.Stream == nil {
		return
	}
	result := listResultOf(op)
	ptr := "#/paths/" + source.EscapePointer(op.Path) + "/" + strings.ToLower(op.Method) + "/" + extStreamAccumulate
	shape := ""
	if v, ok := kop.Extensions[extStreamAccumulate]; ok {
		switch v {
		case false:
			return
		case "openai", "anthropic":
			shape = v.(string)
		default:
			b.sdkError(op, ptr, `write "openai", "anthropic" or false`,
				"%s must be openai (chat completion chunks), anthropic (message events) or false, got %s", extStreamAccumulate, quoteValue(v))
			return
		}
		if result == nil {
			b.sdkError(op, ptr, "remove it, or declare the JSON response the events add up to",
				"%s: the operation has no JSON response for its events to add up to", extStreamAccumulate)
			return
		}
	} else {
		switch {
		case result == nil:
			return
		case hasItemsWith(op.Stream.Type, "choices", "delta") && hasItemsWith(result, "choices", "message"):
			shape = "openai"
		case unionOf(op.Stream.Type, `"message_start"`, `"content_block_delta"`) && fieldOf(result, "content") != nil && fieldOf(result, "role") != nil:
			shape = "anthropic"
		default:
			return
		}
	}
	op.Stream.Accumulate = &model.Accumulate{Shape: shape, Result: result}
}

// listResultOf returns the type of op's one JSON response, decoded whole; nil when it has
// none, or several.
func listResultOf(op *model.Operation) *model.Type {
	r := op.Result
	if r == nil || r.Multi != nil || len(r.Responses) != 1 || !r.Responses[0].JSON || op.Stream.Only {
		return nil
	}
	if structOf(r.Type) == nil {
		return nil
	}
	return r.Type
}

// structOf returns the struct t is, through pointers and aliases; nil for any other.
func structOf(t *model.Type) *model.Decl {
	for range 16 {
		switch {
		case t == nil:
			return nil
		case t.Kind == model.KindPointer:
			t = t.Elem
		case t.Kind == model.KindNamed && t.Decl.Kind == model.AliasDecl:
			t = t.Decl.Underlying
		case t.Kind == model.KindNamed && t.Decl.Kind == model.StructDecl:
			return t.Decl
		default:
			return nil
		}
	}
	return nil
}

// fieldOf returns the field of the struct t whose wire name is name; nil when none.
func fieldOf(t *model.Type, name string) *model.Field {
	d := structOf(t)
	if d == nil {
		return nil
	}
	for _, f := range d.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// hasItemsWith reports whether the struct t has a list field list whose items are
// structs with a field member.
func hasItemsWith(t *model.Type, list, member string) bool {
	f := fieldOf(t, list)
	if f == nil {
		return false
	}
	items := f.Type
	for items != nil && (items.Kind == model.KindPointer || items.Kind == model.KindNamed && items.Decl.Kind == model.AliasDecl) {
		if items.Kind == model.KindPointer {
			items = items.Elem
		} else {
			items = items.Decl.Underlying
		}
	}
	return items != nil && items.Kind == model.KindSlice && fieldOf(items.Elem, member) != nil
}

// unionOf reports whether t is a discriminated union whose variants are selected by each
// of values (as JSON).
func unionOf(t *model.Type, values ...string) bool {
	for t != nil && t.Kind == model.KindPointer {
		t = t.Elem
	}
	if t == nil || t.Kind != model.KindNamed || t.Decl.Kind != model.UnionDecl || t.Decl.Discriminator == "" {
		return false
	}
	for _, want := range values {
		if !slices.ContainsFunc(t.Decl.Variants, func(v *model.Variant) bool { return slices.Contains(v.Values, want) }) {
			return false
		}
	}
	return true
}

// nameAccumulators names the stream types of the operations whose events accumulate,
// after the stream method: CreateChatCompletionStream.
func (b *builder) nameAccumulators(ops []*model.Operation) {
	for _, op := range ops {
		if op.Stream != nil && op.Stream.Accumulate != nil {
			op.Stream.Accumulate.GoName = b.pkg.UniqueFor(op.Stream.GoName, "accumulating event stream of "+op.GoName)
		}
	}
}
