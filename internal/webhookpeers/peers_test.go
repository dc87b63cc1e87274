// Package webhookpeers holds retrygen's webhook signatures to the SDKs that verify the
// same schemes: openai-go's Standard Webhooks check and stripe-go's Stripe-Signature check,
// over the same bytes, both ways. It is a module of its own, so that neither SDK is a
// dependency of retrygen; .ci/run runs it.
package webhookpeers

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/webhooks"
	"github.com/retrygen/retrygen/runtime/retrytest"
	"github.com/retrygen/retrygen/runtime/webhook"
	stripehook "github.com/stripe/stripe-go/v82/webhook"
)

const body = `{"id": "evt_abc123", "object": "event", "type": "batch.completed", "created_at": 1719168000, "data": {"id": "batch_abc123"}}`

var at = time.Unix(1719168000, 0)

// A delivery case: how a signed delivery is changed, and whether a receiver must accept it.
type change struct {
	name   string
	edit   func(h http.Header, body string) (http.Header, string)
	now    time.Time
	accept bool
}

var same = func(h http.Header, b string) (http.Header, string) { return h, b }

// Deliveries signed by retrytest.SignWebhook, as OpenAI signs them, are accepted and
// refused by openai-go's VerifySignature exactly as by retrygen's verifier, with one
// exception openai-go is known for: it accepts a signature without its "v1," tag, which
// retrygen refuses.
func TestStandardWebhooksAgainstOpenAIGo(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	ours, err := webhook.NewVerifier(webhook.Signature{Scheme: webhook.StandardWebhooks}, secret)
	if err != nil {
		t.Fatal(err)
	}
	theirs := webhooks.NewWebhookService(option.WithWebhookSecret(secret))
	for _, c := range []change{
		{"as signed", same, at, true},
		{"4 minutes later", same, at.Add(4 * time.Minute), true},
		{"6 minutes later", same, at.Add(6 * time.Minute), false},
		{"6 minutes earlier", same, at.Add(-6 * time.Minute), false},
		{"one byte changed", func(h http.Header, b string) (http.Header, string) {
			return h, strings.Replace(b, "abc123", "abc124", 1)
		}, at, false},
		{"another id", func(h http.Header, b string) (http.Header, string) { h.Set("webhook-id", "msg_2"); return h, b }, at, false},
		{"another timestamp", func(h http.Header, b string) (http.Header, string) {
			h.Set("webhook-timestamp", "1719168001")
			return h, b
		}, at, false},
		{"a second, wrong signature first", func(h http.Header, b string) (http.Header, string) {
			h.Set("webhook-signature", "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= "+h.Get("webhook-signature"))
			return h, b
		}, at, true},
		{"unsigned", func(h http.Header, b string) (http.Header, string) { h.Del("webhook-signature"); return h, b }, at, false},
	} {
		h, b := c.edit(retrytest.SignWebhook(webhook.StandardWebhooks, secret, "msg_1", at, []byte(body)), body)
		oursErr := ours.Verify(h, []byte(b), c.now)
		theirsErr := theirs.VerifySignatureWithToleranceAndTime([]byte(b), h, 5*time.Minute, c.now)
		if (oursErr == nil) != c.accept || (theirsErr == nil) != c.accept {
			t.Errorf("%s: retrygen %v, openai-go %v, want accepted %v", c.name, oursErr, theirsErr, c.accept)
		}
	}
	h := retrytest.SignWebhook(webhook.StandardWebhooks, secret, "msg_1", at, []byte(body))
	h.Set("webhook-signature", strings.TrimPrefix(h.Get("webhook-signature"), "v1,"))
	if err := ours.Verify(h, []byte(body), at); err == nil {
		t.Error("retrygen accepts a signature without its v1, tag")
	}
	if err := theirs.VerifySignatureWithToleranceAndTime([]byte(body), h, 5*time.Minute, at); err != nil {
		t.Logf("openai-go now refuses a signature without its v1, tag too: %v", err)
	}
}

// Stripe-Signature headers made by stripe-go are accepted by retrygen and those retrygen's
// retrytest makes by stripe-go; both refuse the same changes, but for a timestamp in the
// future, which stripe-go does not check and retrygen refuses. stripe-go reads the clock
// itself, so the deliveries are signed some time before now, in a synctest bubble whose
// clock is the same for both.
func TestStripeAgainstStripeGo(t *testing.T) {
	synctest.Test(t, testStripe)
}

func testStripe(t *testing.T) {
	const secret = "whsec_test_5Wf2EokDGmq5Ys2Ii6fXtNMfbX7TNv6b"
	ours, err := webhook.NewVerifier(webhook.Signature{Scheme: webhook.Stripe}, secret)
	if err != nil {
		t.Fatal(err)
	}
	signed := stripehook.GenerateTestSignedPayload(&stripehook.UnsignedPayload{Payload: []byte(body), Secret: secret, Timestamp: at})
	if err := ours.Verify(http.Header{"Stripe-Signature": {signed.Header}}, []byte(body), at.Add(time.Minute)); err != nil {
		t.Errorf("retrygen refuses stripe-go's signature: %v", err)
	}
	if got := retrytest.SignWebhook(webhook.Stripe, secret, "", at, []byte(body)).Get("Stripe-Signature"); got != signed.Header {
		t.Errorf("retrytest signs %q, stripe-go %q", got, signed.Header)
	}
	for _, c := range []struct {
		name   string
		ago    time.Duration
		edit   func(h http.Header, body string) (http.Header, string)
		accept bool
	}{
		{"as signed", 0, same, true},
		{"4 minutes ago", 4 * time.Minute, same, true},
		{"6 minutes ago", 6 * time.Minute, same, false},
		{"one byte changed", 0, func(h http.Header, b string) (http.Header, string) { return h, b + " " }, false},
		{"signed by another secret too", 0, func(h http.Header, b string) (http.Header, string) {
			other := retrytest.SignWebhook(webhook.Stripe, "whsec_other", "", time.Now(), []byte(b)).Get("Stripe-Signature")
			h.Set("Stripe-Signature", other+","+strings.Split(h.Get("Stripe-Signature"), ",")[1])
			return h, b
		}, true},
		{"v0 only", 0, func(h http.Header, b string) (http.Header, string) {
			h.Set("Stripe-Signature", strings.Replace(h.Get("Stripe-Signature"), "v1=", "v0=", 1))
			return h, b
		}, false},
	} {
		h, b := c.edit(retrytest.SignWebhook(webhook.Stripe, secret, "", time.Now().Add(-c.ago), []byte(body)), body)
		oursErr := ours.Verify(h, []byte(b), time.Now())
		theirsErr := stripehook.ValidatePayloadWithTolerance([]byte(b), h.Get("Stripe-Signature"), secret, 5*time.Minute)
		if (oursErr == nil) != c.accept || (theirsErr == nil) != c.accept {
			t.Errorf("%s: retrygen %v, stripe-go %v, want accepted %v", c.name, oursErr, theirsErr, c.accept)
		}
	}
	ahead := retrytest.SignWebhook(webhook.Stripe, secret, "", time.Now().Add(6*time.Minute), []byte(body))
	if err := ours.Verify(ahead, []byte(body), time.Now()); err == nil {
		t.Error("retrygen accepts a timestamp 6 minutes ahead")
	}
}
