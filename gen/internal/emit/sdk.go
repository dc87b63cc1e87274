package emit

import (
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/model"
)

// What users of SDKs write by hand elsewhere: OAuth 2 options that get the tokens, and
// the escape hatch Do, DoRaw and Path.

// oauthOptions renders the options by which an oauth2 or openIdConnect scheme gets its
// tokens itself:
//
//	func WithOAuth2ClientCredentials(clientID, clientSecret string, scopes ...string) Option {
//		return clientOption{wire.WithCredential("OAuth2", wire.ClientCredentials(wire.OAuth2{TokenURL: "...", ...}))}
//	}
func oauthOptions(s *model.SecurityScheme) []jen.Code {
	var out []jen.Code
	credential := func(cred jen.Code) jen.Code {
		return jen.Return(jen.Id("clientOption").Values(jen.Qual(wirePath, "WithCredential").Call(jen.Lit(s.Key), cred)))
	}
	option := func(d doc, name string, params []jen.Code, body jen.Code) {
		d.para("Credentials are never logged, never appear in errors and never follow a redirect to another host.")
		out = append(out, d.code().Func().Id(name).Params(params...).Id("Option").Block(body).Line())
	}
	config := func(f *model.OAuthFlow, extra jen.Dict) jen.Code {
		d := jen.Dict{jen.Id("TokenURL"): jen.Lit(f.TokenURL), jen.Id("ClientID"): jen.Id("clientID"), jen.Id("ClientSecret"): jen.Id("clientSecret")}
		if f.RefreshURL != "" {
			d[jen.Id("RefreshURL")] = jen.Lit(f.RefreshURL)
		}
		for k, v := range extra {
			d[k] = v
		}
		return jen.Qual(wirePath, "OAuth2").Values(d)
	}
	scheme := strconv.Quote(s.Key)
	if f := s.ClientCredentials; f != nil {
		var d doc
		d.para(s.ClientCredentialsOption + " authenticates the operations that accept the " + scheme + " scheme with access tokens of its client credentials flow, which the client gets from " + quoteDoc(f.TokenURL) + " with clientID and clientSecret: fetched when a call first needs one, kept until shortly before it expires, one fetch for concurrent calls, retried when the endpoint fails with a 429 or a 5xx. A 401 that says the token is invalid fetches a fresh one and repeats the attempt once. The token request asks for scopes, or the endpoint's default when there are none" + scopeList(f.Scopes) + ".")
		option(d, s.ClientCredentialsOption, []jen.Code{jen.List(jen.Id("clientID"), jen.Id("clientSecret")).String(), jen.Id("scopes").Op("...").String()},
			credential(jen.Qual(wirePath, "ClientCredentials").Call(config(f, jen.Dict{jen.Id("Scopes"): jen.Id("scopes")}))))
	}
	if f := s.Refresh; f != nil {
		where := quoteDoc(f.TokenURL)
		if f.RefreshURL != "" {
			where = quoteDoc(f.RefreshURL)
		}
		var d doc
		d.para(s.RefreshTokenOption + " authenticates the operations that accept the " + scheme + " scheme with access tokens that the client gets by exchanging refreshToken, which the caller got from the scheme's authorization flow, at " + where + " with clientID and clientSecret: kept until shortly before they expire, and a new refresh token the endpoint gives replaces the old one. A 401 that says the token is invalid gets a fresh one and repeats the attempt once.")
		option(d, s.RefreshTokenOption, []jen.Code{jen.List(jen.Id("clientID"), jen.Id("clientSecret"), jen.Id("refreshToken")).String()},
			credential(jen.Qual(wirePath, "RefreshToken").Call(config(f, jen.Dict{jen.Id("RefreshToken"): jen.Id("refreshToken")}))))
	}
	if s.TokenSourceOption != "" {
		var d doc
		d.para(s.TokenSourceOption + " authenticates the operations that accept the " + scheme + " scheme with the access tokens ts gives, asked for once per call: a golang.org/x/oauth2 TokenSource, through a type whose Token method converts its tokens (see OAuth2TokenSource). A 401 that says the token is invalid asks ts again, and repeats the attempt once when it gives another token.")
		option(d, s.TokenSourceOption, []jen.Code{jen.Id("ts").Id("OAuth2TokenSource")},
			credential(jen.Qual(wirePath, "TokenSource").Call(jen.Func().Params().Params(jen.Op("*").Qual(wirePath, "Token"), jen.Error()).Block(
				jen.List(jen.Id("t"), jen.Err()).Op(":=").Id("ts").Dot("Token").Call(),
				jen.Return(wireTwin("Token", jen.Id("t")), jen.Err()),
			))))
	}
	if s.TokenURLOption != "" {
		var d doc
		d.para(s.TokenURLOption + " makes the client get the tokens of the " + scheme + " scheme from tokenURL instead of the token and refresh URLs the spec gives.")
		out = append(out, d.code().Func().Id(s.TokenURLOption).Params(jen.Id("tokenURL").String()).Id("Option").Block(
			jen.Return(jen.Id("clientOption").Values(jen.Qual(wirePath, "WithTokenURL").Call(jen.Lit(s.Key), jen.Id("tokenURL"))))).Line())
	}
	return out
}

// scopeList says which scopes the spec lists, ", of those the spec lists: read,
// write"; "" for none.
func scopeList(scopes []string) string {
	if len(scopes) == 0 {
		return ""
	}
	const most = 12
	shown := scopes[:min(len(scopes), most)]
	quoted := make([]string, len(shown))
	for i, s := range shown {
		quoted[i] = quoteDoc(s)
	}
	more := ""
	if len(scopes) > most {
		more = " and " + strconv.Itoa(len(scopes)-most) + " more"
	}
	return " (the spec lists " + strings.Join(quoted, ", ") + more + ")"
}

// tokenTypes renders OAuth2Token, wire.Token's twin, and OAuth2TokenSource, for an API
// with an oauth2 or openIdConnect scheme. The names say OAuth2: Token is a common schema
// name (stripe.yaml's card tokens).
func tokenTypes() []jen.Code {
	return []jen.Code{
		declare("OAuth2Token is an OAuth 2 access token, with the fields of golang.org/x/oauth2's Token that a request needs.",
			jen.Type().Id("OAuth2Token").Struct(
				jen.Comment("AccessToken is sent as \"Authorization: <TokenType> <AccessToken>\".").Line().Id("AccessToken").String(),
				jen.Comment("TokenType is the token's type, Bearer when empty.").Line().Id("TokenType").String(),
				jen.Comment("RefreshToken gets the next access token, when the token endpoint gave one.").Line().Id("RefreshToken").String(),
				jen.Comment("Expiry is when the access token expires; zero when unknown.").Line().Id("Expiry").Qual(timePath, "Time"),
			)),
		declare("OAuth2TokenSource gives access tokens, as golang.org/x/oauth2's TokenSource does. An oauth2.TokenSource becomes one through a type of the caller's whose Token method calls it and copies AccessToken, TokenType (its Type()), RefreshToken and Expiry into an OAuth2Token.",
			jen.Type().Id("OAuth2TokenSource").Interface(jen.Id("Token").Params().Params(jen.Op("*").Id("OAuth2Token"), jen.Error()))),
	}
}

// hasTokenSource reports whether a scheme of api has a TokenSource option.
func hasTokenSource(api *model.API) bool {
	for _, s := range api.SecuritySchemes {
		if s.TokenSourceOption != "" {
			return true
		}
	}
	return false
}

// endpointSurface renders Do, DoRaw, Path and the endpoint they call with:
//
//	var endpoint = wire.Endpoint{Idempotent: &policyIdempotent, NotIdempotent: &policyNotIdempotent, ...}
//
//	func (c *Client) Do(ctx context.Context, method, path string, body, out any, opts ...CallOption) error {
//		return c.wire.DoJSON(ctx, &endpoint, method, path, body, out, callOptions(opts))
//	}
func endpointSurface(api *model.API) []jen.Code {
	fields := jen.Dict{}
	if e := api.Endpoint; e != nil {
		fields[jen.Id("Idempotent")] = jen.Op("&").Id(e.Idempotent.PolicyVar)
		fields[jen.Id("NotIdempotent")] = jen.Op("&").Id(e.NotIdempotent.PolicyVar)
		if len(e.Security) > 0 {
			alts := make([]jen.Code, len(e.Security))
			for i, alt := range e.Security {
				keys := make([]jen.Code, len(alt))
				for j, k := range alt {
					keys[j] = jen.Lit(k)
				}
				alts[i] = jen.Values(keys...)
			}
			fields[jen.Id("Security")] = jen.Index().Index().String().Values(alts...)
		}
	}
	recv := jen.Id("c").Op("*").Id("Client")
	ctx := jen.Id("ctx").Qual(contextPath, "Context")
	opts := jen.Id("opts").Op("...").Id("CallOption")
	var do, raw, path doc
	do.para("Do calls an endpoint that the spec lacks or describes wrongly, as the methods call theirs: under the client's base URL, with its credentials (the document's security requirement), retries, budget, breaker and errors (an *APIError). path is the path under the base URL, with a query if it has one: build it with Path, which escapes each value. body, when not nil, is sent as JSON, or as it is, application/octet-stream, when it is an io.Reader; a 2xx answer's JSON body is decoded into out, when not nil.")
	do.para("A GET, HEAD, OPTIONS, TRACE, PUT or DELETE is retried under the document's policy, as an operation with that method would be; a POST, PATCH or other method only when the call sends an idempotency key (WithIdempotencyKey) or is declared safe to repeat (WithIdempotent). A path that would leave the base URL (a host, a dot segment, an empty one, a backslash, a fragment, a placeholder Path did not fill) fails the call before anything is sent.")
	raw.para("DoRaw is Do that returns the 2xx response with its body unread, for the caller to read and close: for an answer that is not JSON, or its headers.")
	path.para("Path returns a path for Do and DoRaw: template with each {placeholder}, in order, replaced by the next of values, written as fmt.Sprint writes it and escaped as one path segment, as the methods escape their path parameters (\"../admin\" is sent as \"..%2Fadmin\"): Path(\"/repos/{owner}/{repo}/topics\", owner, repo). A placeholder without a value, a value without a placeholder, or an empty value leaves a path that Do refuses.")
	return []jen.Code{
		declare("endpoint is how Do and DoRaw call an endpoint the spec lacks: with the document's retry policies and security requirement.",
			jen.Var().Id("endpoint").Op("=").Qual(wirePath, "Endpoint").Values(fields)),
		do.code().Func().Params(recv.Clone()).Id("Do").Params(ctx.Clone(), jen.List(jen.Id("method"), jen.Id("path")).String(),
			jen.List(jen.Id("body"), jen.Id("out")).Any(), opts.Clone()).Error().Block(
			jen.Return(jen.Id("c").Dot("wire").Dot("DoJSON").Call(jen.Id("ctx"), jen.Op("&").Id("endpoint"), jen.Id("method"), jen.Id("path"),
				jen.Id("body"), jen.Id("out"), jen.Id("callOptions").Call(jen.Id("opts"))))).Line(),
		raw.code().Func().Params(recv.Clone()).Id("DoRaw").Params(ctx.Clone(), jen.List(jen.Id("method"), jen.Id("path")).String(),
			jen.Id("body").Any(), opts.Clone()).Params(jen.Op("*").Qual(httpPath, "Response"), jen.Error()).Block(
			jen.Return(jen.Id("c").Dot("wire").Dot("DoRaw").Call(jen.Id("ctx"), jen.Op("&").Id("endpoint"), jen.Id("method"), jen.Id("path"),
				jen.Id("body"), jen.Id("callOptions").Call(jen.Id("opts"))))).Line(),
		path.code().Func().Id("Path").Params(jen.Id("template").String(), jen.Id("values").Op("...").Any()).String().Block(
			jen.Return(jen.Qual(wirePath, "PathOf").Call(jen.Id("template"), jen.Id("values").Op("...")))).Line(),
	}
}

// accumulatingStream renders the stream type of an operation whose events add up to its
// JSON response, and its Accumulate method:
//
//	type CreateChatCompletionStream struct {
//		*EventStream[CreateChatCompletionStreamResponse]
//	}
//
//	func (s *CreateChatCompletionStream) Accumulate() (*CreateChatCompletionResponse, error) {
//		out := new(CreateChatCompletionResponse)
//		if err := s.s.Accumulate(out); err != nil {
//			return nil, err
//		}
//		return out, nil
//	}
func accumulatingStream(op *model.Operation) *jen.Statement {
	s, a := op.Stream, op.Stream.Accumulate
	var d doc
	d.para(a.GoName + " is the event stream the method " + s.GoName + " returns, whose events are deltas of " + op.GoName + "'s response: read them with Next and Current, as with any EventStream, and Accumulate adds them up to that response.")
	result := a.Result
	elem := result
	if result.Kind == model.KindPointer {
		elem = result.Elem
	}
	var ad doc
	ad.para("Accumulate reads the rest of the stream and returns the response its events add up to, the events Next already returned included: what " + op.GoName + " returns when asked for the whole response. It returns the stream's error when the stream did not end normally, and an error matching ErrBodyTooLarge when the events hold more than the client decodes of a response (WithMaxBodySize).")
	body := []jen.Code{
		jen.Id("out").Op(":=").New(typ(elem)),
		jen.If(jen.Err().Op(":=").Id("s").Dot("s").Dot("Accumulate").Call(jen.Id("out")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("out"), jen.Nil()),
	}
	if result.Kind != model.KindPointer {
		body = []jen.Code{
			jen.Var().Id("out").Add(typ(result)),
			jen.Err().Op(":=").Id("s").Dot("s").Dot("Accumulate").Call(jen.Op("&").Id("out")),
			jen.Return(jen.Id("out"), jen.Err()),
		}
	}
	return d.code().Type().Id(a.GoName).Struct(jen.Op("*").Id("EventStream").Types(typ(s.Type))).Line().Line().
		Add(ad.code()).Func().Params(jen.Id("s").Op("*").Id(a.GoName)).Id("Accumulate").Params().Params(typ(result), jen.Error()).Block(body...)
}
