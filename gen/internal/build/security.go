package build

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// securitySchemes builds components.securitySchemes into the options that configure
// them: With<S> for every scheme, With<S>Func for apiKey and bearer. A scheme the client
// cannot send (http with another scheme, mutualTLS) is a warning.
func (b *builder) securitySchemes() []*model.SecurityScheme {
	doc := b.spec.Doc
	if doc.Components == nil {
		return nil
	}
	var out []*model.SecurityScheme
	for _, key := range source.SortedKeys(doc.Components.SecuritySchemes) {
		ref := doc.Components.SecuritySchemes[key]
		if ref == nil || ref.Value == nil {
			continue
		}
		s := ref.Value
		m := &model.SecurityScheme{Key: key, Doc: s.Description}
		switch strings.ToLower(s.Type) {
		case "apikey":
			in := strings.ToLower(s.In)
			if in != "header" && in != "query" && in != "cookie" || s.Name == "" {
				b.warn(s.Origin, "#/components/securitySchemes/"+source.EscapePointer(key),
					"security scheme %q: apiKey needs in (header, query or cookie) and a name; no option is generated", key)
				continue
			}
			if in != "query" && !policy.ValidHeaderName(s.Name) {
				pos := b.spec.Files.PosOf(s.Origin)
				if !pos.IsValid() {
					pos = b.spec.Files.PosOfPointer("#/components/securitySchemes/" + source.EscapePointer(key))
				}
				b.errs.Add(&source.Error{Pos: pos, Msg: fmt.Sprintf("security scheme %q: %s name %q is not a valid name (RFC 9110 token)", key, in, s.Name),
					Fix: "use letters, digits and !#$%&'*+-.^_`|~ only"})
				continue
			}
			m.Kind, m.In, m.Name = "apiKey", in, s.Name
		case "http":
			switch strings.ToLower(s.Scheme) {
			case "bearer":
				m.Kind = "bearer"
			case "basic":
				m.Kind = "basic"
			default:
				b.warn(s.Origin, "#/components/securitySchemes/"+source.EscapePointer(key),
					"security scheme %q: http scheme %q is not supported; no option is generated (use WithRequestEditor)", key, s.Scheme)
				continue
			}
		case "oauth2":
			m.Kind = "oauth2"
		case "openidconnect":
			m.Kind = "openIdConnect"
		default:
			b.warn(s.Origin, "#/components/securitySchemes/"+source.EscapePointer(key),
				"security scheme %q: type %q is not supported; no option is generated (configure it with WithHTTPClient or WithRequestEditor)", key, s.Type)
			continue
		}
		what := "security scheme " + strconv.Quote(key)
		m.Option = b.pkg.UniqueFor("With"+names.GoName(key), what)
		if m.Kind == "apiKey" || m.Kind == "bearer" {
			m.FuncOption = b.pkg.UniqueFor(m.Option+"Func", what)
		}
		if m.Kind == "oauth2" || m.Kind == "openIdConnect" {
			b.oauthOptions(m, s, what)
		}
		out = append(out, m)
	}
	return out
}

// security sets op's security requirement: the operation's own, else the document's.
// `security: []` sends none. A requirement that names a scheme without an option is left
// out, with a warning.
func (b *builder) security(op *model.Operation, kop *openapi3.Operation, known map[string]bool) {
	reqs := b.spec.Doc.Security
	if kop.Security != nil {
		reqs = *kop.Security
	}
	var alts [][]string
	for _, req := range reqs {
		keys := source.SortedKeys(req)
		usable := true
		for _, k := range keys {
			if !known[k] {
				usable = false
				b.warnOp(op, kop.Origin, "security requirement names scheme %q, which has no option; that alternative is never sent", k)
			}
		}
		if usable {
			alts = append(alts, keys)
		}
	}
	// An operation whose only alternative is anonymous sends nothing either way.
	if len(alts) == 0 || len(alts) == 1 && len(alts[0]) == 0 {
		return
	}
	op.Security = alts
}

// warn records a finding that does not stop generation, at origin or else at pointer.
func (b *builder) warn(origin *openapi3.Origin, pointer, format string, args ...any) {
	pos := b.spec.Files.PosOf(origin)
	if !pos.IsValid() {
		pos = b.spec.Files.PosOfPointer(pointer)
	}
	b.spec.Warnings.Add(&source.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// warnOp records a finding about op that does not stop generation.
func (b *builder) warnOp(op *model.Operation, origin *openapi3.Origin, format string, args ...any) {
	b.spec.Warnings.Add(b.located(op, origin, format, args...))
}

// client builds the parts of the client that do not belong to one operation: the
// security schemes' options and the server constants.
func (b *builder) client(api *model.API) {
	api.SecuritySchemes = b.securitySchemes()
	b.schemes = map[string]bool{}
	for _, s := range api.SecuritySchemes {
		b.schemes[s.Key] = true
	}
	api.ServerConsts = b.serverConsts()
}

// clientParts builds what an operation needs besides its parameters, body and results:
// its credentials, its own server and its event stream.
func (b *builder) clientParts(op *model.Operation, item *openapi3.PathItem, kop *openapi3.Operation) {
	b.security(op, kop, b.schemes)
	b.operationServer(op, item, kop)
	b.stream(op, kop)
	b.streamIdle(op, item, kop)
	b.bodyVariants(op, kop)
	b.resultMedia(op, kop)
	b.accumulate(op, kop)
	b.responseHeaders(op, kop)
	b.unusedMedia(op, kop)
}
