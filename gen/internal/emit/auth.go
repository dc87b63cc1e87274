package emit

import (
	"strconv"

	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/model"
)

// securityOptions renders the options of each security scheme:
//
//	func WithBearerAuth(token string) Option { return clientOption{wire.WithCredential("bearerAuth", wire.Bearer(token))} }
func (e *emitter) securityOptions() []jen.Code {
	var out []jen.Code
	for _, s := range e.api.SecuritySchemes {
		key := jen.Lit(s.Key)
		fnParam := jen.Id("fn").Func().Params(jen.Id("ctx").Qual(contextPath, "Context")).Params(jen.String(), jen.Error())
		var plain, withFn string
		var params []jen.Code
		var cred, fnCred jen.Code
		switch s.Kind {
		case "apiKey":
			plain = s.Option + " authenticates the operations that accept the " + strconv.Quote(s.Key) + " scheme with key, sent in the " + s.In + " " + strconv.Quote(s.Name) + "."
			params = []jen.Code{jen.Id("key").String()}
			cred = jen.Qual(wirePath, "APIKey").Call(jen.Lit(s.In), jen.Lit(s.Name), jen.Id("key"))
			withFn = s.FuncOption + " is " + s.Option + " with a key that fn returns, called once per call, for keys that change."
			fnCred = jen.Qual(wirePath, "APIKeyFunc").Call(jen.Lit(s.In), jen.Lit(s.Name), jen.Id("fn"))
		case "bearer":
			plain = s.Option + " authenticates the operations that accept the " + strconv.Quote(s.Key) + " scheme with \"Authorization: Bearer token\"."
			params = []jen.Code{jen.Id("token").String()}
			cred = jen.Qual(wirePath, "Bearer").Call(jen.Id("token"))
			withFn = s.FuncOption + " is " + s.Option + " with a token that fn returns, called once per call, for tokens that change."
			fnCred = jen.Qual(wirePath, "BearerFunc").Call(jen.Id("fn"))
		case "basic":
			plain = s.Option + " authenticates the operations that accept the " + strconv.Quote(s.Key) + " scheme with HTTP basic authentication."
			params = []jen.Code{jen.List(jen.Id("user"), jen.Id("password")).String()}
			cred = jen.Qual(wirePath, "Basic").Call(jen.Id("user"), jen.Id("password"))
		default: // oauth2, openIdConnect
			plain = s.Option + " authenticates the operations that accept the " + strconv.Quote(s.Key) + " scheme (" + s.Kind + ") with the access token fn returns, called once per call; fn obtains and refreshes the token."
			params = []jen.Code{fnParam}
			cred = jen.Qual(wirePath, "BearerFunc").Call(jen.Id("fn"))
		}
		var d doc
		d.para(plain)
		d.para(s.Doc)
		d.para("Credentials are never logged, never appear in errors and never follow a redirect to another host.")
		out = append(out, d.code().Func().Id(s.Option).Params(params...).Id("Option").Block(
			jen.Return(jen.Id("clientOption").Values(jen.Qual(wirePath, "WithCredential").Call(key, cred))),
		).Line())
		if s.FuncOption != "" {
			var fd doc
			fd.para(withFn)
			out = append(out, fd.code().Func().Id(s.FuncOption).Params(fnParam).Id("Option").Block(
				jen.Return(jen.Id("clientOption").Values(jen.Qual(wirePath, "WithCredential").Call(key, fnCred))),
			).Line())
		}
		out = append(out, oauthOptions(s)...)
	}
	if hasTokenSource(e.api) {
		out = append(out, tokenTypes()...)
	}
	return out
}

// requestHooks renders the statements that follow wire.NewRequest in a method: the
// operation's security requirement and its own server.
func (e *emitter) requestHooks(op *model.Operation) []jen.Code {
	var out []jen.Code
	if len(op.Security) > 0 {
		alts := make([]jen.Code, len(op.Security))
		for i, alt := range op.Security {
			keys := make([]jen.Code, len(alt))
			for j, k := range alt {
				keys[j] = jen.Lit(k)
			}
			alts[i] = jen.Index().String().Values(keys...)
		}
		out = append(out, jen.Id("r").Dot("Security").Call(alts...))
	}
	if op.Server != "" {
		out = append(out, jen.Id("r").Dot("Server").Call(jen.Lit(op.Server)))
	}
	return out
}
