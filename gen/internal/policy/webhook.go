package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/runtime"
)

// The extensions that say how a webhook's deliveries are signed and identified, read on
// the document, a webhook's path item and its operation (docs/design.md, "Webhooks").
const (
	ExtWebhookSignature = "x-webhook-signature"
	ExtWebhookID        = "x-webhook-id"
)

// The schemes of x-webhook-signature.
var webhookSchemes = []string{"standard-webhooks", "stripe", "github-sha256", "hmac"}

// The fields of x-webhook-signature: the first two for every scheme, the rest for hmac.
var signatureFields = []string{"scheme", "tolerance", "header", "prefix", "encoding", "signed", "delimiter", "timestamp"}

// maxWebhookTTL bounds x-webhook-id's ttl: no sender retries for longer than a month.
const maxWebhookTTL = 30 * 24 * time.Hour

// WebhookLevel is one place x-webhook-signature and x-webhook-id are read.
type WebhookLevel struct {
	Source model.Source   // FromDocument, FromPath (a webhook's path item) or FromOperation
	Ext    map[string]any // the object's extensions, decoded
	// Pointer is the object's JSON pointer, e.g. "#/webhooks/batch_cancelled/post".
	Pointer string
	// Name names the webhook in messages, e.g. `webhook "batch_cancelled"`; "" on the
	// document.
	Name string
	// Locate returns the position of the element a JSON pointer names.
	Locate func(pointer string) source.Pos
}

// WebhookSettings is what one level says of its webhooks, read once.
type WebhookSettings struct {
	sig    *model.WebhookSignature // nil with sigSet: x-webhook-signature: false
	sigSet bool
	id     model.WebhookID
	idSet  bool
}

// ReadWebhook reads the webhook extensions of one level, reporting every malformed value
// in errs, located by its JSON pointer.
func ReadWebhook(l WebhookLevel, errs *source.ErrorList) WebhookSettings {
	r := webhookReader{l: l, errs: errs}
	var s WebhookSettings
	if v, ok := l.Ext[ExtWebhookSignature]; ok {
		s.sig, s.sigSet = r.signature(v)
	}
	if v, ok := l.Ext[ExtWebhookID]; ok {
		s.id, s.idSet = r.id(v)
	}
	return s
}

// ResolveWebhook returns a webhook's signature and id source from its levels, least
// specific first: each is the most specific level's that sets it. Without x-webhook-id the
// scheme's own id is used: Standard Webhooks' webhook-id header, Stripe's event id, GitHub's
// X-GitHub-Delivery header.
func ResolveWebhook(levels ...WebhookSettings) (*model.WebhookSignature, model.WebhookID) {
	var sig *model.WebhookSignature
	var id model.WebhookID
	idSet := false
	for _, l := range levels {
		if l.sigSet {
			sig = l.sig
		}
		if l.idSet {
			id, idSet = l.id, true
		}
	}
	if !idSet && sig != nil {
		id = model.WebhookID{From: sig.Scheme + " default"}
		switch sig.Scheme {
		case "standard-webhooks":
			id.In, id.Name = "header", "webhook-id"
		case "stripe":
			id.In, id.Name = "body", "id"
		case "github-sha256":
			id.In, id.Name = "header", "X-GitHub-Delivery"
		default:
			id.From = ""
		}
	}
	if id.In != "" && id.TTL == 0 {
		id.TTL = runtime.DefaultDedupeTTL
	}
	return sig, id
}

// webhookReader reads the webhook extensions of one level.
type webhookReader struct {
	l    WebhookLevel
	errs *source.ErrorList
}

// fail reports a problem at the place inside the extension ext that path leads to.
func (r webhookReader) fail(ext string, path []string, fix, format string, args ...any) {
	ptr := r.pointer(ext, path...)
	r.errs.Add(&source.Error{Pos: r.l.Locate(ptr), Pointer: ptr, Op: r.l.Name, Msg: fmt.Sprintf(format, args...), Fix: fix})
}

// pointer is the JSON pointer of the place path leads to inside the extension ext.
func (r webhookReader) pointer(ext string, path ...string) string {
	ptr := r.l.Pointer + "/" + source.EscapePointer(ext)
	for _, p := range path {
		ptr += "/" + source.EscapePointer(p)
	}
	return ptr
}

// at is where the extension ext is written, as plan shows it.
func (r webhookReader) at(ext string) string { return r.l.Locate(r.pointer(ext)).String() }

const signatureFix = "write x-webhook-signature: standard-webhooks (or stripe, github-sha256), " +
	"{scheme: hmac, header: X-Signature, ...}, or false for none"

// signature reads x-webhook-signature: a scheme's name, a mapping of fields, or false.
func (r webhookReader) signature(v any) (*model.WebhookSignature, bool) {
	const ext = ExtWebhookSignature
	var m map[string]any
	switch v := v.(type) {
	case bool:
		if !v {
			return nil, true
		}
	case string:
		m = map[string]any{"scheme": v}
	case map[string]any:
		m = v
	}
	if m == nil {
		r.fail(ext, nil, signatureFix, "%s must be a scheme, a mapping or false, got %s", ext, source.Describe(v))
		return nil, false
	}
	ok := true
	for _, k := range source.SortedKeys(m) {
		if !slices.Contains(signatureFields, k) {
			fix := "the fields are " + strings.Join(signatureFields, ", ")
			if near := source.Closest(k, signatureFields); near != "" {
				fix = "did you mean " + near + "?"
			}
			r.fail(ext, []string{k}, fix, "unknown field %s.%s", ext, k)
			ok = false
		}
	}
	sig := &model.WebhookSignature{From: r.l.Source, At: r.at(ext)}
	sig.Scheme, _ = m["scheme"].(string)
	if !slices.Contains(webhookSchemes, sig.Scheme) {
		r.fail(ext, []string{"scheme"}, "use "+strings.Join(webhookSchemes, ", "),
			"%s.scheme must be %s, got %s", ext, strings.Join(webhookSchemes, ", "), source.Describe(m["scheme"]))
		return nil, false
	}
	hmac := sig.Scheme == "hmac"
	if !hmac {
		for _, k := range signatureFields[2:] {
			if _, has := m[k]; has {
				r.fail(ext, []string{k}, "remove it: the "+sig.Scheme+" scheme fixes its headers", "%s.%s is for the hmac scheme only", ext, k)
				ok = false
			}
		}
	}
	str := func(k string, header bool) string {
		v, has := m[k]
		if !has {
			return ""
		}
		s, isString := v.(string)
		switch {
		case !isString:
			r.fail(ext, []string{k}, "", "%s.%s must be a string, got %s", ext, k, source.Describe(v))
		case header && !ValidHeaderName(s):
			r.fail(ext, []string{k}, "write a header name such as X-Signature", "%s.%s must be a header name, got %q", ext, k, s)
		default:
			return s
		}
		ok = false
		return ""
	}
	if hmac {
		sig.Header, sig.Timestamp = str("header", true), str("timestamp", true)
		sig.Prefix, sig.Delimiter = str("prefix", false), str("delimiter", false)
		if _, has := m["header"]; !has {
			r.fail(ext, nil, "add header: the header that holds the signature", "%s with the hmac scheme must name its header", ext)
			ok = false
		}
		sig.Encoding = "hex"
		if e, has := m["encoding"]; has {
			if sig.Encoding, _ = e.(string); sig.Encoding != "hex" && sig.Encoding != "base64" {
				r.fail(ext, []string{"encoding"}, "use hex or base64", "%s.encoding must be hex or base64, got %s", ext, source.Describe(e))
				ok = false
			}
		}
		if parts, good := r.parts(m["signed"]); good {
			sig.Signed = parts
		} else {
			ok = false
		}
	}
	if t, has := m["tolerance"]; has {
		signsTime := sig.Scheme == "standard-webhooks" || sig.Scheme == "stripe" || sig.Timestamp != ""
		d, err := parseDuration(t)
		switch {
		case !signsTime:
			r.fail(ext, []string{"tolerance"}, "remove tolerance, or name the timestamp header (hmac)", "%s.tolerance: the %s scheme signs no timestamp", ext, sig.Scheme)
			ok = false
		case err != nil:
			r.fail(ext, []string{"tolerance"}, durationFix, "%s.tolerance %v", ext, err)
			ok = false
		case d < time.Second:
			r.fail(ext, []string{"tolerance"}, "a sender's clock and the receiver's differ by seconds: allow minutes, e.g. 5m", "%s.tolerance must be at least 1s, got %v", ext, d)
			ok = false
		default:
			sig.Tolerance = d
		}
	}
	if !ok {
		return nil, false
	}
	return sig, true
}

// parts reads the signed parts of an hmac scheme: body, {header: NAME} or {text: TEXT}.
func (r webhookReader) parts(v any) ([]model.WebhookPart, bool) {
	if v == nil {
		return nil, true
	}
	const fix = "list the parts signed, in order: body, {header: NAME}, {text: TEXT}"
	list, isList := v.([]any)
	if !isList || len(list) == 0 {
		r.fail(ExtWebhookSignature, []string{"signed"}, fix, "%s.signed must be a list of parts, got %s", ExtWebhookSignature, source.Describe(v))
		return nil, false
	}
	var parts []model.WebhookPart
	ok := true
	for i, item := range list {
		at := []string{"signed", strconv.Itoa(i)}
		if item == "body" {
			parts = append(parts, model.WebhookPart{Body: true})
			continue
		}
		m, isMap := item.(map[string]any)
		h, isHeader := m["header"].(string)
		t, isText := m["text"].(string)
		switch {
		case isMap && len(m) == 1 && isHeader && ValidHeaderName(h):
			parts = append(parts, model.WebhookPart{Header: h})
		case isMap && len(m) == 1 && isText:
			parts = append(parts, model.WebhookPart{Text: t})
		default:
			r.fail(ExtWebhookSignature, at, fix, "%s.signed item %d must be body, {header: NAME} or {text: TEXT}, got %s",
				ExtWebhookSignature, i+1, source.Describe(item))
			ok = false
		}
	}
	return parts, ok
}

const idFix = "write a header name such as webhook-id, {in: body, name: id} for a member of the payload, or false for none"

// id reads x-webhook-id: a header name, {in: header | body, name: NAME, ttl: DURATION}, or
// false.
func (r webhookReader) id(v any) (model.WebhookID, bool) {
	const ext = ExtWebhookID
	id := model.WebhookID{From: ext, At: r.at(ext)}
	switch v := v.(type) {
	case bool:
		if !v {
			return model.WebhookID{From: ext, At: id.At}, true
		}
	case string:
		if ValidHeaderName(v) {
			id.In, id.Name = "header", v
			return id, true
		}
		r.fail(ext, nil, idFix, "%s must be a header name, got %q", ext, v)
		return id, false
	case map[string]any:
		return r.idObject(v, id)
	}
	r.fail(ext, nil, idFix, "%s must be a header name, a mapping or false, got %s", ext, source.Describe(v))
	return id, false
}

func (r webhookReader) idObject(m map[string]any, id model.WebhookID) (model.WebhookID, bool) {
	const ext = ExtWebhookID
	ok := true
	for _, k := range source.SortedKeys(m) {
		if k != "in" && k != "name" && k != "ttl" {
			r.fail(ext, []string{k}, "the fields are in, name and ttl", "unknown field %s.%s", ext, k)
			ok = false
		}
	}
	name, _ := m["name"].(string)
	switch in, _ := m["in"].(string); in {
	case "header":
		if !ValidHeaderName(name) {
			r.fail(ext, []string{"name"}, idFix, "%s.name must be a header name, got %s", ext, source.Describe(m["name"]))
			ok = false
		}
		id.In, id.Name = in, name
	case "body":
		if strings.TrimSpace(name) == "" || len(name) > maxHeaderName {
			r.fail(ext, []string{"name"}, idFix, "%s.name must name a member of the payload, got %s", ext, source.Describe(m["name"]))
			ok = false
		}
		id.In, id.Name = in, name
	default:
		r.fail(ext, []string{"in"}, idFix, "%s.in must be header or body, got %s", ext, source.Describe(m["in"]))
		ok = false
	}
	if t, has := m["ttl"]; has {
		ts, _ := t.(string)
		d, err := time.ParseDuration(strings.TrimSpace(ts))
		if err != nil {
			err = fmt.Errorf("must be a Go duration such as \"76h\", got %s", source.Describe(t))
		} else if d < time.Minute || d > maxWebhookTTL {
			err = fmt.Errorf("must be from 1m to %v, got %v", maxWebhookTTL, d)
		}
		if err != nil {
			r.fail(ext, []string{"ttl"}, "the sender's retry horizon: Standard Webhooks' and Stripe's is about 3 days, 76h", "%s.ttl %v", ext, err)
			ok = false
		}
		id.TTL = d
	}
	return id, ok
}
