package gen_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/retrygen/retrygen/gen"
	"github.com/retrygen/retrygen/gen/internal/spectest"
)

// hooksSpec is a 3.1 spec with two webhooks whose payloads fix their type, and a callback,
// with the webhook extensions given by ext (YAML at the document's root).
func hooksSpec(ext string) string {
	return `openapi: 3.1.0
info: {title: Hooks, version: "2024-06-01"}
` + ext + `
paths:
  /subscriptions:
    post:
      operationId: subscribe
      callbacks:
        onData:
          '{$request.query.callbackUrl}/data':
            post:
              requestBody:
                content:
                  application/json:
                    schema: {type: object, properties: {at: {type: string}}}
              responses: {"200": {description: ok}}
      responses: {"201": {description: ok}}
webhooks:
  thing_created:
    post:
      description: A thing was created.
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [type, id]
              properties:
                type: {type: string, enum: [thing.created]}
                id: {type: string}
                api_version: {type: string}
      responses: {"200": {description: ok}}
  thing_deleted:
    post:
      x-webhook-id: {in: body, name: id, ttl: 48h}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [type]
              properties:
                type: {type: string, const: thing.deleted}
                id: {type: string}
      responses: {"200": {description: ok}}
  form_only:
    post:
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema: {type: object}
      responses: {"200": {description: ok}}
`
}

const stdSig = "x-webhook-signature: standard-webhooks\n"

func loadHooks(t *testing.T, ext string) *gen.Spec {
	t.Helper()
	s, err := gen.Load(spectest.Write(t, "hooks.yaml", hooksSpec(ext)), gen.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The webhooks with a JSON body become webhooks of the model, told apart by their type,
// signed as the document says, identified by the scheme's header or by x-webhook-id; the
// one without a JSON body is a located warning.
func TestWebhooksBuilt(t *testing.T) {
	s := loadHooks(t, stdSig)
	var got []string
	for _, h := range s.API.Webhooks {
		got = append(got, strings.Join([]string{h.Name, h.HandlerMethod, h.HandlerFunc, h.Signature.SchemeText(),
			h.ID.Text(), h.ID.TTL.String(), h.Member + "=" + h.Event, h.Path, h.VersionMember}, " "))
	}
	want := []string{
		"thing_created OnThingCreated ThingCreatedHandler standard-webhooks header webhook-id 76h0m0s type=thing.created  api_version",
		"thing_deleted OnThingDeleted ThingDeletedHandler standard-webhooks body id 48h0m0s type=thing.deleted  ",
	}
	if strings.Join(got[:2], "\n") != strings.Join(want, "\n") || len(got) != 3 {
		t.Errorf("webhooks:\n%s\nwant first\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	cb := s.API.Webhooks[2]
	if cb.Name != "onData" || cb.Callback != "subscribe {$request.query.callbackUrl}/data" || cb.HandlerMethod != "OnSubscribeOnData" {
		t.Errorf("callback %+v", cb)
	}
	found := false
	for _, w := range s.Warnings {
		if strings.Contains(w.Error(), `webhook "form_only"`) && strings.Contains(w.Error(), "no JSON body") && w.Pos.Line > 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("no located warning for the form webhook: %v", s.Warnings)
	}
}

// Without a member that tells them apart, webhooks are told apart by their path.
func TestWebhooksRoutedByPath(t *testing.T) {
	text := strings.ReplaceAll(hooksSpec(""), "enum: [thing.created]", "")
	text = strings.ReplaceAll(text, "const: thing.deleted", "")
	s, err := gen.Load(spectest.Write(t, "hooks.yaml", text), gen.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, h := range s.API.Webhooks {
		paths = append(paths, h.Member+h.Path)
	}
	if got := strings.Join(paths, ","); got != "/thing_created,/thing_deleted,/data" || s.API.Webhooks[2].Member != "" {
		t.Errorf("routes %s", got)
	}
}

// Each malformed webhook extension is one located error naming the field.
func TestWebhookExtensionErrors(t *testing.T) {
	for _, tc := range []struct{ ext, want string }{
		{"x-webhook-signature: sha1", "x-webhook-signature.scheme must be standard-webhooks, stripe, github-sha256, hmac"},
		{"x-webhook-signature: {scheme: stripe, tolerance: fast}", "x-webhook-signature.tolerance must be a Go duration"},
		{"x-webhook-signature: {scheme: github-sha256, tolerance: 5m}", "the github-sha256 scheme signs no timestamp"},
		{"x-webhook-signature: {scheme: stripe, header: X-Sig}", "x-webhook-signature.header is for the hmac scheme only"},
		{"x-webhook-signature: {scheme: hmac}", "with the hmac scheme must name its header"},
		{"x-webhook-signature: {scheme: hmac, header: X-Sig, encoding: hexa}", "x-webhook-signature.encoding must be hex or base64"},
		{"x-webhook-signature: {scheme: hmac, header: X-Sig, signed: [body, {cookie: a}]}", "x-webhook-signature.signed item 2 must be body"},
		{"x-webhook-signature: {scheme: stripe, tolerence: 5m}", "did you mean tolerance?"},
		{"x-webhook-id: 'not a header'", `x-webhook-id must be a header name, got "not a header"`},
		{"x-webhook-id: {in: query, name: id}", "x-webhook-id.in must be header or body"},
		{"x-webhook-id: {in: body, name: id, ttl: 90d}", "x-webhook-id.ttl must be a Go duration"},
		{"x-webhook-id: {in: body, name: id, ttl: 1000h}", "x-webhook-id.ttl must be from 1m to 720h0m0s"},
	} {
		_, err := gen.Load(spectest.Write(t, "hooks.yaml", hooksSpec(tc.ext)), gen.LoadOptions{})
		var list gen.ErrorList
		if !errors.As(err, &list) || len(list) != 1 {
			t.Errorf("%s: %v, want one error", tc.ext, err)
			continue
		}
		if e := list[0]; !strings.Contains(e.Error(), tc.want) || e.Pos.Line != 3 {
			t.Errorf("%s:\n%v\nwant %q at line 3", tc.ext, e, tc.want)
		}
	}
}

// An hmac scheme is read whole, and a webhook's x-webhook-signature: false turns the
// document's off for it.
func TestWebhookHMACAndOff(t *testing.T) {
	ext := "x-webhook-signature: {scheme: hmac, header: X-Slack-Signature, prefix: 'v0=', signed: [{text: v0}, {header: X-Slack-Request-Timestamp}, body], delimiter: ':', timestamp: X-Slack-Request-Timestamp, tolerance: 10m}"
	text := strings.Replace(hooksSpec(ext), "      x-webhook-id: {in: body, name: id, ttl: 48h}\n", "      x-webhook-signature: false\n", 1)
	s, err := gen.Load(spectest.Write(t, "hooks.yaml", text), gen.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sig := s.API.Webhooks[0].Signature
	if sig == nil || sig.Header != "X-Slack-Signature" || sig.Prefix != "v0=" || sig.Encoding != "hex" || len(sig.Signed) != 3 ||
		sig.Signed[1].Header != "X-Slack-Request-Timestamp" || sig.Delimiter != ":" || sig.Tolerance != 10*time.Minute {
		t.Errorf("signature %+v", sig)
	}
	if s.API.Webhooks[1].Signature != nil {
		t.Errorf("x-webhook-signature: false left %+v", s.API.Webhooks[1].Signature)
	}
}

// plan lists each webhook with its scheme, id source, TTL and route.
func TestPlanListsWebhooks(t *testing.T) {
	s := loadHooks(t, stdSig)
	var buf bytes.Buffer
	if err := gen.Plan(&buf, s, gen.PlanOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Webhooks (3)",
		"thing_created                                          POST    standard-webhooks  header webhook-id  76h  type=thing.created",
		"thing_deleted                                          POST    standard-webhooks  body id            48h  type=thing.deleted",
		"onData of subscribe {$request.query.callbackUrl}/data  POST    standard-webhooks  header webhook-id  76h  path …/data",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	if err := gen.Plan(&buf, s, gen.PlanOptions{Format: "json"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"webhook": "thing_deleted"`) || !strings.Contains(buf.String(), `"ttl": "48h0m0s"`) {
		t.Errorf("plan -json:\n%s", buf.String())
	}
}

// diff calls a removed signature scheme and a changed id source breaking.
func TestDiffWebhooks(t *testing.T) {
	old := loadHooks(t, stdSig)
	for _, tc := range []struct {
		name, ext string
		want      []string
	}{
		{"scheme removed", "", []string{"signature scheme removed: standard-webhooks (deliveries are no longer verified)", "webhook thing_created, webhook thing_deleted"}},
		{"id changed", stdSig + "x-webhook-id: svix-id\n", []string{"delivery id changed (repeats of deliveries processed before are not recognised", "new: header svix-id", "webhook thing_created, callback onData"}},
	} {
		var buf bytes.Buffer
		f, err := gen.Diff(&buf, old, loadHooks(t, tc.ext), gen.DiffOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if f.Breaking == 0 {
			t.Errorf("%s: nothing breaking:\n%s", tc.name, buf.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s: diff lacks %q:\n%s", tc.name, w, buf.String())
			}
		}
	}
	var buf bytes.Buffer
	if f, _ := gen.Diff(&buf, old, loadHooks(t, stdSig), gen.DiffOptions{}); f != (gen.Findings{}) {
		t.Errorf("the same spec: %+v\n%s", f, buf.String())
	}
}
