package model

import (
	"fmt"
	"strconv"
	"time"
)

// Webhook is one request the API sends to the application: a 3.1 webhook, or a callback of
// one of its operations. The generated receiver calls its method of WebhookHandler.
type Webhook struct {
	// Name is the webhook's key in the spec, e.g. "batch_cancelled", or the callback's,
	// e.g. "onData".
	Name string
	// Callback names, for a callback, the operation that declares it and the expression
	// of the URL, e.g. "createSubscription {$request.query.callbackUrl}/data"; "" for a
	// webhook.
	Callback string
	// Method is the request's method, e.g. "POST".
	Method string
	// Pointer is where its operation is, e.g. "#/webhooks/batch_cancelled/post".
	Pointer string
	Doc     string

	// GoName names it in Go, e.g. "BatchCancelled"; HandlerMethod is its method of
	// WebhookHandler ("OnBatchCancelled"), HandlerFunc the function that receives it
	// alone ("BatchCancelledHandler"), RouteVar the variable that describes it to the
	// runtime ("webhookBatchCancelled").
	GoName, HandlerMethod, HandlerFunc, RouteVar string
	// Payload is the type the request body decodes into.
	Payload *Type

	// Member and Event recognise its deliveries by the payload's Member (e.g. "type")
	// being Event (e.g. "batch.cancelled"); Path, when Member is "", by the end of the
	// request's path (e.g. "/batch_cancelled"). All three are "" when the receiver has no
	// other webhook, or the webhook cannot be told apart from the others: HandlerFunc
	// still receives it.
	Member, Event, Path string
	// Signature is how the sender signs it; nil when the spec says nothing, or false.
	// SignatureVar is the variable that holds it, shared by the webhooks signed alike, e.g.
	// "webhookSignature".
	Signature    *WebhookSignature
	SignatureVar string
	// ID is where a delivery's id is, by which the receiver recognises repeats.
	ID WebhookID
	// VersionMember is the payload's member that holds the API version it was written for,
	// e.g. "api_version"; "" when it has none.
	VersionMember string
}

// WebhookSignature is what x-webhook-signature says.
type WebhookSignature struct {
	Scheme    string        // "standard-webhooks", "stripe", "github-sha256" or "hmac"
	Tolerance time.Duration // 0 for the runtime's default (5m), or for a scheme that signs no time

	// The hmac scheme's description.
	Header    string // e.g. "X-Signature"
	Prefix    string // e.g. "sha256="
	Encoding  string // "hex" or "base64"
	Signed    []WebhookPart
	Delimiter string
	Timestamp string // the header with the time in Unix seconds, "" for none

	// From is the level that set it: FromDocument, FromPath (the webhook's path item) or
	// FromOperation; At is where, e.g. "api.yaml:3:1", or an overlay's place.
	From Source
	At   string
}

// WebhookPart is one part of what an hmac scheme signs: the body, a header or text.
type WebhookPart struct {
	Body   bool
	Header string
	Text   string
}

// WebhookID is where a delivery's id is: x-webhook-id, or the scheme's own.
type WebhookID struct {
	In   string // "header", "body" (a member of the payload), or "" for none
	Name string // e.g. "webhook-id" or "id"
	// TTL is how long a processed delivery is remembered: the sender's retry horizon.
	TTL time.Duration
	// From says where it comes from: "x-webhook-id", or the scheme's name for its default;
	// At is where x-webhook-id is written, "" for a default.
	From string
	At   string
}

// Text spells the id source as plan and diff show it: "header webhook-id", "body id", or
// "none".
func (id WebhookID) Text() string {
	if id.In == "" {
		return "none"
	}
	return id.In + " " + id.Name
}

// Key is the literal s stands for, as a key: the webhooks of one key share a variable.
func (s *WebhookSignature) Key() string {
	return fmt.Sprint(s.Scheme, s.Tolerance, s.Header, s.Prefix, s.Encoding, s.Signed, strconv.Quote(s.Delimiter), s.Timestamp)
}

// SchemeText spells a signature as plan and diff show it: its scheme, "none" for nil.
func (s *WebhookSignature) SchemeText() string {
	if s == nil {
		return "none"
	}
	return s.Scheme
}
