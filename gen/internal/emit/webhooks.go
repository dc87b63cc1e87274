package emit

import (
	"slices"
	"strconv"

	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/model"
)

// webhookItems are the declarations of a client whose spec has webhooks: the surface
// (WebhookHandler, UnimplementedWebhookHandler, NewWebhookReceiver, the options, the
// re-exported answers and errors), then each webhook's function and variable, and the
// variables of the signatures. None for a spec without webhooks, whose client stays as it
// was.
func (e *emitter) webhookItems() []item {
	hooks := e.api.Webhooks
	if len(hooks) == 0 {
		return nil
	}
	var items []item
	add := func(key string, build func() *jen.Statement) {
		items = append(items, item{key, func() jen.Code { return build().Line() }})
	}
	add("", func() *jen.Statement { return webhookHandler(e.api) })
	add("", func() *jen.Statement { return unimplementedHandler(hooks) })
	add("", func() *jen.Statement { return newWebhookReceiver(hooks) })
	for _, c := range webhookSurface() {
		items = append(items, item{"", func() jen.Code { return c }})
	}
	for _, h := range hooks {
		add(h.GoName, func() *jen.Statement { return webhookFunc(h) })
		add(h.GoName, func() *jen.Statement { return webhookRoute(h, e.api.Version) })
	}
	var sigs []string
	for _, h := range hooks {
		if h.Signature != nil && !slices.Contains(sigs, h.SignatureVar) {
			sigs = append(sigs, h.SignatureVar)
			add("", func() *jen.Statement { return webhookSignature(h) })
		}
	}
	return items
}

// payloadParams are a handler's parameters: (ctx context.Context, payload P).
func payloadParams(h *model.Webhook) []jen.Code {
	return []jen.Code{jen.Id("ctx").Qual(contextPath, "Context"), jen.Id("payload").Add(typ(h.Payload))}
}

// what names the webhook in doc comments: `webhook "batch_cancelled"`, or
// `callback "onData" of createSubscription {$request.query.callbackUrl}/data`.
func what(h *model.Webhook) string {
	if h.Callback != "" {
		return "callback " + strconv.Quote(h.Name) + " of " + h.Callback
	}
	return "webhook " + strconv.Quote(h.Name)
}

// webhookHandler renders the interface with a method per webhook.
//
//	type WebhookHandler interface {
//		OnBatchCancelled(ctx context.Context, payload WebhookBatchCancelled) error
//	}
func webhookHandler(api *model.API) *jen.Statement {
	title := oneLine(api.Title)
	if title == "" {
		title = "the API"
	}
	var d doc
	d.para("WebhookHandler receives the webhooks of " + title + ": NewWebhookReceiver calls its method for each delivery, once however often the sender repeats it, after checking its signature. A method returns nil once the delivery is processed; WebhookRetryAfter or WebhookGone to have it sent later or no more; any other error to have the sender try again. Embed UnimplementedWebhookHandler to implement only some.")
	return d.code().Type().Id("WebhookHandler").InterfaceFunc(func(g *jen.Group) {
		for _, h := range api.Webhooks {
			var md doc
			md.para(h.HandlerMethod + " receives " + what(h) + " (" + h.Method + ").")
			md.para(h.Doc)
			g.Add(md.code()).Id(h.HandlerMethod).Params(payloadParams(h)...).Error()
		}
	})
}

// unimplementedHandler renders the struct whose methods answer ErrWebhookNotHandled.
func unimplementedHandler(hooks []*model.Webhook) *jen.Statement {
	var d doc
	d.para("UnimplementedWebhookHandler answers every webhook with ErrWebhookNotHandled, which the receiver acknowledges (200) without processing: embed it in a WebhookHandler to implement only the webhooks the application needs, and to keep compiling when the API adds one.")
	s := d.code().Type().Id("UnimplementedWebhookHandler").Struct().Line()
	for _, h := range hooks {
		s.Line().Add(method(h.HandlerMethod+" acknowledges "+what(h)+" without processing it.",
			jen.Id("UnimplementedWebhookHandler"), h.HandlerMethod,
			[]jen.Code{jen.Qual(contextPath, "Context"), typ(h.Payload)}, []jen.Code{jen.Error()},
			jen.Return(jen.Id("ErrWebhookNotHandled"))))
	}
	return s
}

// newWebhookReceiver renders NewWebhookReceiver, which hands each webhook's route and
// method to the runtime.
func newWebhookReceiver(hooks []*model.Webhook) *jen.Statement {
	var d doc
	d.para("NewWebhookReceiver returns the http.Handler that receives every webhook of the API for h: it checks each delivery's signature over the body as received, tells the webhooks apart, decodes the payload leniently (what the client does not know stays in WebhookDeliveryFrom's Body), processes each delivery once however often the sender repeats it, and answers so that the sender retries, waits or stops as it should.")
	signed := slices.ContainsFunc(hooks, func(h *model.Webhook) bool { return h.Signature != nil })
	if signed {
		d.para("The spec signs them: give the secret with WithWebhookSecret; the error says when there is none.")
	}
	return d.code().Func().Id("NewWebhookReceiver").Params(jen.Id("h").Id("WebhookHandler"), jen.Id("opts").Op("...").Id("WebhookOption")).
		Params(jen.Qual(httpPath, "Handler"), jen.Error()).Block(
		jen.Return(jen.Qual(webhookPath, "NewReceiver").Call(
			jen.Index().Qual(webhookPath, "Route").ValuesFunc(func(g *jen.Group) {
				for _, h := range hooks {
					g.Line().Qual(webhookPath, "Handle").Call(jen.Id(h.RouteVar), jen.Id("h").Dot(h.HandlerMethod))
				}
				g.Line()
			}),
			jen.Id("opts").Op("..."),
		)),
	)
}

// webhookFunc renders <Webhook>Handler, the receiver of one webhook alone.
func webhookFunc(h *model.Webhook) *jen.Statement {
	var d doc
	d.para(h.HandlerFunc + " returns the http.Handler that receives " + what(h) + " alone, for f: NewWebhookReceiver's checks and answers, for an application that mounts each webhook on a route of its own.")
	return d.code().Func().Id(h.HandlerFunc).Params(
		jen.Id("f").Func().Params(payloadParams(h)...).Error(), jen.Id("opts").Op("...").Id("WebhookOption"),
	).Params(jen.Qual(httpPath, "Handler"), jen.Error()).Block(
		jen.Return(jen.Qual(webhookPath, "NewReceiver").Call(
			jen.Index().Qual(webhookPath, "Route").Values(jen.Qual(webhookPath, "Handle").Call(jen.Id(h.RouteVar), jen.Id("f"))),
			jen.Id("opts").Op("..."),
		)),
	)
}

// webhookRoute renders the variable that describes one webhook to the runtime.
//
//	var webhookBatchCancelled = webhook.Route{Name: "batch_cancelled", Method: "POST", ...}
func webhookRoute(h *model.Webhook, version string) *jen.Statement {
	fields := jen.Dict{
		jen.Id("Name"):   jen.Lit(h.Name),
		jen.Id("Method"): jen.Lit(h.Method),
	}
	if h.Member != "" {
		fields[jen.Id("Member")], fields[jen.Id("Event")] = jen.Lit(h.Member), jen.Lit(h.Event)
	}
	if h.Path != "" {
		fields[jen.Id("Path")] = jen.Lit(h.Path)
	}
	if h.Signature != nil {
		fields[jen.Id("Signature")] = jen.Op("&").Id(h.SignatureVar)
	}
	switch h.ID.In {
	case "header":
		fields[jen.Id("ID")] = jen.Qual(webhookPath, "ID").Values(jen.Dict{jen.Id("Header"): jen.Lit(h.ID.Name)})
	case "body":
		fields[jen.Id("ID")] = jen.Qual(webhookPath, "ID").Values(jen.Dict{jen.Id("Member"): jen.Lit(h.ID.Name)})
	}
	if h.ID.TTL > 0 {
		fields[jen.Id("TTL")] = duration(h.ID.TTL)
	}
	if h.VersionMember != "" {
		fields[jen.Id("VersionMember")], fields[jen.Id("APIVersion")] = jen.Lit(h.VersionMember), jen.Lit(version)
	}
	var d doc
	d.para(h.RouteVar + " describes " + what(h) + " to the receiver.")
	return d.code().Var().Id(h.RouteVar).Op("=").Qual(webhookPath, "Route").Values(fields)
}

// webhookSignature renders the variable of one x-webhook-signature literal.
func webhookSignature(h *model.Webhook) *jen.Statement {
	s := h.Signature
	fields := jen.Dict{jen.Id("Scheme"): jen.Qual(webhookPath, schemeConst(s.Scheme))}
	if s.Tolerance > 0 {
		fields[jen.Id("Tolerance")] = duration(s.Tolerance)
	}
	if s.Scheme == "hmac" {
		fields[jen.Id("Header")] = jen.Lit(s.Header)
		if s.Prefix != "" {
			fields[jen.Id("Prefix")] = jen.Lit(s.Prefix)
		}
		fields[jen.Id("Encoding")] = jen.Qual(webhookPath, map[string]string{"hex": "Hex", "base64": "Base64"}[s.Encoding])
		if len(s.Signed) > 0 {
			fields[jen.Id("Signed")] = jen.Index().Qual(webhookPath, "Part").ValuesFunc(func(g *jen.Group) {
				for _, p := range s.Signed {
					switch {
					case p.Body:
						g.Values(jen.Dict{jen.Id("Body"): jen.True()})
					case p.Header != "":
						g.Values(jen.Dict{jen.Id("Header"): jen.Lit(p.Header)})
					default:
						g.Values(jen.Dict{jen.Id("Text"): jen.Lit(p.Text)})
					}
				}
			})
		}
		if s.Delimiter != "" {
			fields[jen.Id("Delimiter")] = jen.Lit(s.Delimiter)
		}
		if s.Timestamp != "" {
			fields[jen.Id("Timestamp")] = jen.Lit(s.Timestamp)
		}
	}
	var d doc
	d.para(h.SignatureVar + " is how the sender signs its deliveries (x-webhook-signature, " + s.Scheme + ").")
	return d.code().Var().Id(h.SignatureVar).Op("=").Qual(webhookPath, "Signature").Values(fields)
}

// schemeConst is runtime/webhook's constant of a scheme.
func schemeConst(scheme string) string {
	return map[string]string{
		"standard-webhooks": "StandardWebhooks", "stripe": "Stripe", "github-sha256": "GitHubSHA256", "hmac": "HMAC",
	}[scheme]
}

// webhookSurface renders the options of a receiver and the names a handler uses,
// re-exported from runtime/webhook and runtime.
func webhookSurface() []jen.Code {
	var out []jen.Code
	add := func(text string, c *jen.Statement) { out = append(out, declare(text, c)) }
	add("WebhookOption configures NewWebhookReceiver and the <Webhook>Handler functions.",
		jen.Type().Id("WebhookOption").Op("=").Qual(webhookPath, "Option"))
	option := func(name, text string, params []jen.Code, call *jen.Statement) {
		add(text, jen.Func().Id(name).Params(params...).Id("WebhookOption").Block(jen.Return(call)))
	}
	option("WithWebhookSecret", "WithWebhookSecret gives the secrets the sender signs with (Standard Webhooks' whsec_ or whpk_, Stripe's whsec_, GitHub's): a delivery signed by any of them is accepted, so that a secret is rotated by giving the new and the old until the sender signs with the new alone. Secrets never appear in errors or logs.",
		[]jen.Code{jen.Id("secrets").Op("...").String()}, jen.Qual(webhookPath, "WithSecret").Call(jen.Id("secrets").Op("...")))
	option("WithDedupeStore", "WithDedupeStore sets where the ids of processed deliveries are kept: by default in the receiver's memory (runtime.DefaultDedupeIDs ids at most); a receiver that runs in several processes needs a store they share.",
		[]jen.Code{jen.Id("s").Id("DedupeStore")}, jen.Qual(webhookPath, "WithDedupeStore").Call(jen.Id("s")))
	option("WithDedupeTTL", "WithDedupeTTL sets how long a processed delivery is remembered, instead of the spec's x-webhook-id ttl or runtime.DefaultDedupeTTL (the sender's retry horizon, about 3 days).",
		[]jen.Code{jen.Id("d").Qual(timePath, "Duration")}, jen.Qual(webhookPath, "WithDedupeTTL").Call(jen.Id("d")))
	option("WithWebhookLogger", "WithWebhookLogger has the receiver log what it refuses and how it answers, never a header, a body or a secret.",
		[]jen.Code{jen.Id("l").Op("*").Qual(slogPath, "Logger")}, jen.Qual(webhookPath, "WithLogger").Call(jen.Id("l")))
	option("WithWebhookMaxBody", "WithWebhookMaxBody caps the bytes of a delivery's body (1 MiB by default); a larger one is answered 413.",
		[]jen.Code{jen.Id("n").Int64()}, jen.Qual(webhookPath, "WithMaxBody").Call(jen.Id("n")))
	add("DedupeStore keeps the ids of processed deliveries: Reserve(ctx, id, ttl) (first bool, err error), Complete(ctx, id) error, Release(ctx, id) error. It is runtime.DedupeStore, whose documentation says what each returns.",
		jen.Type().Id("DedupeStore").Op("=").Qual(runtimePath, "DedupeStore"))
	add("WebhookDelivery describes the delivery a handler is called for: Webhook (its name in the spec), ID, Body (the payload as received, with what the client does not know) and Header.",
		jen.Type().Id("WebhookDelivery").Op("=").Qual(webhookPath, "Delivery"))
	add("WebhookDeliveryFrom returns the delivery a handler's context was made for.",
		jen.Func().Id("WebhookDeliveryFrom").Params(jen.Id("ctx").Qual(contextPath, "Context")).Params(jen.Id("WebhookDelivery"), jen.Bool()).Block(
			jen.Return(jen.Qual(webhookPath, "DeliveryFrom").Call(jen.Id("ctx")))))
	add("WebhookRetryAfter returns the error a handler returns to have the delivery sent again after d: the receiver answers 503 with Retry-After.",
		jen.Func().Id("WebhookRetryAfter").Params(jen.Id("d").Qual(timePath, "Duration")).Error().Block(
			jen.Return(jen.Qual(webhookPath, "RetryAfter").Call(jen.Id("d")))))
	add("WebhookGone returns the error a handler returns to stop the deliveries: the receiver answers 410 Gone, which Standard Webhooks' senders take as a request to disable the endpoint.",
		jen.Func().Id("WebhookGone").Params().Error().Block(jen.Return(jen.Qual(webhookPath, "Gone").Call())))
	add("Why a delivery was refused or not processed, for errors.Is: not signed (answered 401), a signature by no secret given, a timestamp too old or too new (400); a webhook the handler does not handle; a repeat of a delivery still in progress (409).",
		jen.Var().Defs(
			jen.Id("ErrWebhookNotSigned").Op("=").Qual(webhookPath, "ErrNotSigned"),
			jen.Id("ErrWebhookBadSignature").Op("=").Qual(webhookPath, "ErrBadSignature"),
			jen.Id("ErrWebhookTooOld").Op("=").Qual(webhookPath, "ErrTooOld"),
			jen.Id("ErrWebhookTooNew").Op("=").Qual(webhookPath, "ErrTooNew"),
			jen.Id("ErrWebhookNotHandled").Op("=").Qual(webhookPath, "ErrNotHandled"),
			jen.Id("ErrDeliveryInProgress").Op("=").Qual(runtimePath, "ErrDeliveryInProgress"),
		))
	return out
}
