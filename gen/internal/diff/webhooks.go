package diff

import (
	"strings"

	"github.com/retrygen/retrygen/gen/model"
)

// Webhook is the area of what the receiver of the API's webhooks does: their methods of
// WebhookHandler, how their deliveries are signed and recognised.
const Webhook Area = "webhook"

// The elements of webhook changes.
const (
	ElemWebhook   = "webhook"          // Name is the WebhookHandler method; Old/New its signature
	ElemSignature = "webhookSignature" // Old and New are schemes
	ElemTolerance = "webhookTolerance" // Old and New are durations
	ElemID        = "webhookId"        // Old and New are id sources, "header webhook-id"
	ElemTTL       = "webhookTtl"       // Old and New are durations
)

// webhooks compares the webhooks of old and new, matched by name, callback and method. A
// removed or added signature scheme, a changed one, or a changed id source is breaking: a
// receiver that verified deliveries stops doing so, or one deployed without a secret
// stops starting, and a changed id source lets the repeats of deliveries processed
// before the change through, silent duplicates.
func (c *comparer) webhooks(old, new *model.API) {
	olds := map[string]*model.Webhook{}
	for _, h := range old.Webhooks {
		olds[webhookKey(h)] = h
	}
	seen := map[string]bool{}
	for _, n := range new.Webhooks {
		k := webhookKey(n)
		seen[k] = true
		o := olds[k]
		where := webhookName(n)
		if o == nil {
			c.add(Change{Area: Webhook, Level: Breaking, Operation: where, Element: ElemWebhook, Name: n.HandlerMethod,
				Change: Added, New: webhookSignature(n),
				Note: "a new method of WebhookHandler: a handler that embeds UnimplementedWebhookHandler keeps compiling"})
			continue
		}
		if os, ns := webhookSignature(o), webhookSignature(n); os != ns || o.HandlerMethod != n.HandlerMethod {
			c.add(Change{Area: Webhook, Level: Breaking, Operation: where, Element: ElemWebhook, Name: n.HandlerMethod,
				Change: Modified, Old: os, New: ns})
		}
		osch, nsch := o.Signature.SchemeText(), n.Signature.SchemeText()
		switch {
		case osch != nsch:
			ch := Change{Area: Webhook, Level: Breaking, Operation: where, Element: ElemSignature, Change: Modified, Old: osch, New: nsch}
			switch {
			case o.Signature == nil:
				ch.Change, ch.Note = Added, "NewWebhookReceiver now needs the secret (WithWebhookSecret)"
			case n.Signature == nil:
				ch.Change, ch.Note = Removed, "deliveries are no longer verified"
			default:
				ch.Note = "deliveries signed the old way are refused"
			}
			c.add(ch)
		case o.Signature != nil && o.Signature.Key() != n.Signature.Key():
			c.add(Change{Area: Webhook, Level: Changed, Operation: where, Element: ElemTolerance, Change: Modified,
				Old: o.Signature.Tolerance.String(), New: n.Signature.Tolerance.String()})
		}
		if o.ID.Text() != n.ID.Text() {
			c.add(Change{Area: Webhook, Level: Breaking, Operation: where, Element: ElemID, Change: Modified,
				Old: o.ID.Text(), New: n.ID.Text(),
				Note: "repeats of deliveries processed before are not recognised: silent duplicates"})
		} else if o.ID.TTL != n.ID.TTL {
			c.add(Change{Area: Webhook, Level: Changed, Operation: where, Element: ElemTTL, Change: Modified,
				Old: o.ID.TTL.String(), New: n.ID.TTL.String()})
		}
	}
	for _, o := range old.Webhooks {
		if !seen[webhookKey(o)] {
			c.add(Change{Area: Webhook, Level: Breaking, Operation: webhookName(o), Element: ElemWebhook, Name: o.HandlerMethod,
				Change: Removed, Old: webhookSignature(o)})
		}
	}
}

func webhookKey(h *model.Webhook) string {
	return strings.Join([]string{h.Name, h.Callback, h.Method}, "\x00")
}

// webhookName names a webhook where a change is: `webhook "batch_cancelled"`.
func webhookName(h *model.Webhook) string {
	if h.Callback != "" {
		return "callback " + h.Name + " of " + h.Callback
	}
	return "webhook " + h.Name
}

// webhookSignature is the Go signature of a webhook's method of WebhookHandler.
func webhookSignature(h *model.Webhook) string {
	return h.HandlerMethod + "(ctx context.Context, payload " + h.Payload.String() + ") error"
}
