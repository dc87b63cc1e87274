package build

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// webhooks builds what the application receives: each of the document's webhooks (3.1)
// and each operation's callbacks whose request has a JSON body becomes a model.Webhook,
// with its payload type (named <Webhook>Payload, or <Op><Callback>Payload, when the schema
// is not a component), its signature and id source (x-webhook-signature, x-webhook-id),
// and how the receiver tells it from the others (see route). A request without a JSON
// body gets nothing, which -v says, located.
func (b *builder) webhooks(api *model.API, ops []*model.Operation) {
	doc := b.spec.Doc
	docLevel := policy.ReadWebhook(b.webhookLevel(model.FromDocument, doc.Extensions, "#", ""), &b.errs)
	var hooks []*model.Webhook
	for _, name := range source.SortedKeys(doc.Webhooks) {
		item := doc.Webhooks[name]
		if item == nil {
			continue
		}
		h := hook{name: name, base: names.GoName(name), what: "webhook " + strconv.Quote(name),
			pointer: "#/webhooks/" + source.EscapePointer(name), path: "/" + name}
		hooks = append(hooks, b.receive(item, h, docLevel)...)
	}
	for _, op := range ops {
		kop := doc.Paths.Value(op.Path).GetOperation(op.Method)
		for _, cname := range source.SortedKeys(kop.Callbacks) {
			cb := kop.Callbacks[cname]
			if cb == nil || cb.Value == nil {
				continue
			}
			for _, expr := range source.SortedKeys(cb.Value.Map()) {
				item := cb.Value.Value(expr)
				if item == nil {
					continue
				}
				h := hook{name: cname, callback: cmp.Or(op.OperationID, op.GoName) + " " + expr,
					base: op.GoName + names.GoName(cname), what: "callback " + strconv.Quote(cname) + " of " + op.GoName,
					pointer: opPointer(op) + "/callbacks/" + source.EscapePointer(cname) + "/" + source.EscapePointer(expr),
					path:    literalSuffix(expr)}
				hooks = append(hooks, b.receive(item, h, docLevel)...)
			}
		}
	}
	route(hooks)
	api.Webhooks = hooks
	// The last of the warnings building adds: keep them in file order with the loader's.
	b.spec.Warnings.Sort()
}

// hook is what webhooks knows of one webhook or callback before its operations are read.
type hook struct {
	name, callback string // model.Webhook's Name and Callback
	base           string // the Go name its names start with, e.g. "BatchCancelled"
	what           string // for messages, e.g. `webhook "batch_cancelled"`
	pointer        string // of its path item
	path           string // the end of the request's path that tells it apart, "" for none
}

// receive builds the webhooks of one path item, one per operation with a JSON body.
func (b *builder) receive(item *openapi3.PathItem, h hook, docLevel policy.WebhookSettings) []*model.Webhook {
	itemLevel := policy.ReadWebhook(b.webhookLevel(model.FromPath, item.Extensions, h.pointer, h.what), &b.errs)
	methods := load.Methods(item)
	var hooks []*model.Webhook
	for _, m := range methods {
		kop := item.GetOperation(m.Method)
		if kop == nil {
			continue
		}
		base := h.base
		if len(methods) > 1 {
			base += names.GoName(strings.ToLower(m.Method))
		}
		ptr := h.pointer + m.Pointer
		payload := b.payload(kop, base, h.what)
		if payload == nil {
			b.spec.Warnings.Add(&source.Error{Pos: b.webhookPos(ptr), Op: h.what,
				Msg: "its request has no JSON body: no receiver is generated for it, receiving it is up to the application"})
			continue
		}
		sig, id := policy.ResolveWebhook(docLevel, itemLevel,
			policy.ReadWebhook(b.webhookLevel(model.FromOperation, kop.Extensions, ptr, h.what), &b.errs))
		doc := kop.Description
		if doc == "" {
			doc = kop.Summary
		}
		hooks = append(hooks, &model.Webhook{
			Name: h.name, Callback: h.callback, Method: m.Method, Pointer: ptr, Doc: doc,
			GoName: base, Payload: payload, Path: h.path, Signature: sig, ID: id,
			VersionMember: versionMember(payload),
		})
	}
	return hooks
}

// payload builds the type of the JSON request body of a webhook's or callback's
// operation; nil when it has none.
func (b *builder) payload(kop *openapi3.Operation, base, what string) *model.Type {
	if kop.RequestBody == nil || kop.RequestBody.Value == nil {
		return nil
	}
	for _, ct := range source.SortedKeys(kop.RequestBody.Value.Content) {
		mt := kop.RequestBody.Value.Content[ct]
		if mt == nil || mt.Schema == nil || !IsJSONMedia(ct) {
			continue
		}
		name := base + "Payload"
		return b.typeOf(mt.Schema, at("payload of "+what, name, name+"Body"))
	}
	return nil
}

// webhookLevel describes one object whose webhook extensions policy reads.
func (b *builder) webhookLevel(src model.Source, ext map[string]any, pointer, what string) policy.WebhookLevel {
	return policy.WebhookLevel{Source: src, Ext: ext, Pointer: pointer, Name: what, Locate: b.webhookPos}
}

// webhookPos locates the element a JSON pointer names: every finding about webhooks is
// placed through it.
func (b *builder) webhookPos(pointer string) source.Pos {
	return b.spec.Files.PosOfPointer(pointer)
}

// literalSuffix is the text of a callback's URL expression after its last runtime
// expression, e.g. "/data" of "{$request.query.callbackUrl}/data": the end of the path
// the API calls, which tells the callback apart. "" when the expression ends in one.
func literalSuffix(expr string) string {
	if i := strings.LastIndexByte(expr, '}'); i >= 0 {
		expr = expr[i+1:]
	}
	expr, _, _ = strings.Cut(expr, "?")
	if strings.ContainsAny(expr, "{}") {
		return ""
	}
	return expr
}

// routeMembers are the payload members tried first to tell webhooks apart, in order:
// Standard Webhooks', OpenAI's and Stripe's type, then names other APIs use.
var routeMembers = []string{"type", "event", "event_type", "eventType"}

// route decides how the receiver tells the webhooks apart: the 3.1 webhooks, which the
// API sends to one URL, by a member of the payload that each webhook's schema fixes to a
// value of its own (OpenAI's and Stripe's "type"); the others, and callbacks, whose URL
// the client gives, by the end of the request's path (a 3.1 webhook's name, a callback's
// URL after its expression) where those differ. A webhook alone needs neither.
func route(hooks []*model.Webhook) {
	if len(hooks) < 2 {
		for _, h := range hooks {
			h.Path = ""
		}
		return
	}
	var webhooks []*model.Webhook
	for _, h := range hooks {
		if h.Callback == "" {
			webhooks = append(webhooks, h)
		}
	}
	if m := routeMember(webhooks); m != "" {
		for _, h := range webhooks {
			h.Member, h.Event, h.Path = m, fixedMember(h.Payload, m), ""
		}
	}
	count := map[string]int{}
	for _, h := range hooks {
		count[h.Path]++
	}
	for _, h := range hooks {
		if count[h.Path] > 1 {
			h.Path = ""
		}
	}
}

// routeMember returns a member that every webhook's payload fixes to a distinct string;
// "" when there is none.
func routeMember(hooks []*model.Webhook) string {
	if len(hooks) < 2 {
		return ""
	}
	d := structDecl(hooks[0].Payload)
	if d == nil {
		return ""
	}
	var candidates []string
	for _, f := range d.Fields {
		candidates = append(candidates, f.Name)
	}
	slices.SortStableFunc(candidates, func(a, b string) int { return rank(a) - rank(b) })
	for _, m := range candidates {
		seen := map[string]bool{}
		ok := true
		for _, h := range hooks {
			v := fixedMember(h.Payload, m)
			if v == "" || seen[v] {
				ok = false
				break
			}
			seen[v] = true
		}
		if ok {
			return m
		}
	}
	return ""
}

// rank orders the members routeMember tries: routeMembers first, in order.
func rank(m string) int {
	if i := slices.Index(routeMembers, m); i >= 0 {
		return i
	}
	return len(routeMembers)
}

// fixedMember returns the string the payload's schema fixes its member m to (a const, or
// the one value of a required enum); "" when it fixes none.
func fixedMember(t *model.Type, m string) string {
	d := structDecl(t)
	if d == nil {
		return ""
	}
	for _, f := range d.Fields {
		if f.Name != m {
			continue
		}
		v := f.Const
		if v == nil {
			v = f.OneValue
		}
		s, _ := v.(string)
		return s
	}
	return ""
}

// versionMember returns the payload's member that names the API version it was written
// for, Stripe's api_version; "" when it has none.
func versionMember(t *model.Type) string {
	d := structDecl(t)
	if d == nil {
		return ""
	}
	for _, f := range d.Fields {
		if f.Name == "api_version" && isString(f.Type) {
			return f.Name
		}
	}
	return ""
}

// nameWebhooks names each webhook's method of WebhookHandler (On<Webhook>), its function
// (<Webhook>Handler) and its variable (webhook<Webhook>), once every type has its name;
// and the variables of their signatures, one per literal, in the order of the webhooks.
func (b *builder) nameWebhooks(hooks []*model.Webhook) {
	iface := names.NewExportedNamer()
	sigVars := map[string]string{}
	for _, h := range hooks {
		if h.Signature != nil {
			key := h.Signature.Key()
			if sigVars[key] == "" {
				sigVars[key] = b.pkg.UniqueFor("webhookSignature", "signature of webhook "+strconv.Quote(h.Name))
			}
			h.SignatureVar = sigVars[key]
		}
		what := "webhook " + strconv.Quote(h.Name)
		h.HandlerMethod = iface.UniqueFor("On"+h.GoName, what)
		h.HandlerFunc = b.pkg.UniqueFor(h.GoName+"Handler", "handler of "+what)
		h.RouteVar = b.pkg.UniqueFor("webhook"+h.GoName, "route of "+what)
	}
}
