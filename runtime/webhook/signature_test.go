package webhook_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/retrygen/retrygen/runtime/retrytest"
	"github.com/retrygen/retrygen/runtime/webhook"
)

// Standard Webhooks' published vector (libraries/go/webhook_test.go, TestWebhookSign, and
// the same values in its other libraries' tests).
const (
	swSecret  = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	swID      = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	swTime    = 1614265330
	swPayload = `{"test": 2432232314}`
	swSig     = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

var swAt = time.Unix(swTime, 0)

func swHeader(sig string) http.Header {
	h := http.Header{}
	h.Set("webhook-id", swID)
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", sig)
	return h
}

func verifier(t *testing.T, sig webhook.Signature, secrets ...string) *webhook.Verifier {
	t.Helper()
	v, err := webhook.NewVerifier(sig, secrets...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

var standard = webhook.Signature{Scheme: webhook.StandardWebhooks}

// The published vector verifies, and SignWebhook signs it byte for byte; the cases of
// the reference libraries' tests are refused or accepted as they are there.
func TestStandardWebhooksVectors(t *testing.T) {
	if got := retrytest.SignWebhook(webhook.StandardWebhooks, swSecret, swID, swAt, []byte(swPayload)).Get("webhook-signature"); got != swSig {
		t.Errorf("SignWebhook = %q, want the published %q", got, swSig)
	}
	v := verifier(t, standard, swSecret)
	bare := verifier(t, standard, strings.TrimPrefix(swSecret, "whsec_"))
	for _, tc := range []struct {
		name   string
		header http.Header
		at     time.Time
		want   error
	}{
		{"published", swHeader(swSig), swAt, nil},
		{"invalid signature", swHeader("v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="), swAt, webhook.ErrBadSignature},
		{"partial signature", swHeader("v1,"), swAt, webhook.ErrBadSignature},
		{"one bit off", swHeader("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="), swAt, webhook.ErrBadSignature},
		{"multi signature", swHeader("v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= " + swSig), swAt, nil},
		{"no version tag", swHeader(strings.TrimPrefix(swSig, "v1,")), swAt, webhook.ErrBadSignature},
		{"other version tag", swHeader("v2," + strings.TrimPrefix(swSig, "v1,")), swAt, webhook.ErrBadSignature},
		{"missing signature", func() http.Header { h := swHeader(swSig); h.Del("webhook-signature"); return h }(), swAt, webhook.ErrNotSigned},
		{"missing id", func() http.Header { h := swHeader(swSig); h.Del("webhook-id"); return h }(), swAt, webhook.ErrBadSignature},
		{"missing timestamp", func() http.Header { h := swHeader(swSig); h.Del("webhook-timestamp"); return h }(), swAt, webhook.ErrBadSignature},
		{"timestamp not a number", func() http.Header { h := swHeader(swSig); h.Set("webhook-timestamp", "hello"); return h }(), swAt, webhook.ErrBadSignature},
		{"5 minutes old", swHeader(swSig), swAt.Add(5 * time.Minute), nil},
		{"5 minutes 1 second old", swHeader(swSig), swAt.Add(5*time.Minute + time.Second), webhook.ErrTooOld},
		{"5 minutes 1 second ahead", swHeader(swSig), swAt.Add(-5*time.Minute - time.Second), webhook.ErrTooNew},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Verify(tc.header, []byte(swPayload), tc.at)
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Errorf("Verify: %v, want %v", err, tc.want)
			}
			if tc.want == nil {
				if err := bare.Verify(tc.header, []byte(swPayload), tc.at); err != nil {
					t.Errorf("with the secret given without whsec_: %v", err)
				}
			}
		})
	}
	if err := v.Verify(swHeader(swSig), []byte(swPayload+" "), swAt); !errors.Is(err, webhook.ErrBadSignature) {
		t.Errorf("a body one byte longer: %v", err)
	}
}

// An ed25519 signature (v1a) verifies with the sender's whpk_ public key, and not with
// another's; the receiver refuses a whsk_ signing key.
func TestStandardWebhooksEd25519(t *testing.T) {
	pub, priv := keyPair(1)
	otherPub, _ := keyPair(2)
	h := retrytest.SignWebhook(webhook.StandardWebhooks, "whsk_"+base64.StdEncoding.EncodeToString(priv), swID, swAt, []byte(swPayload))
	if sig := h.Get("webhook-signature"); !strings.HasPrefix(sig, "v1a,") {
		t.Fatalf("signature %q, want v1a", sig)
	}
	if err := verifier(t, standard, "whpk_"+base64.StdEncoding.EncodeToString(pub)).Verify(h, []byte(swPayload), swAt); err != nil {
		t.Errorf("v1a with the public key: %v", err)
	}
	if err := verifier(t, standard, "whpk_"+base64.StdEncoding.EncodeToString(otherPub), swSecret).Verify(h, []byte(swPayload), swAt); !errors.Is(err, webhook.ErrBadSignature) {
		t.Errorf("v1a with another key: %v", err)
	}
	if _, err := webhook.NewVerifier(standard, "whsk_"+base64.StdEncoding.EncodeToString(priv)); err == nil || strings.Contains(err.Error(), base64.StdEncoding.EncodeToString(priv)) {
		t.Errorf("a whsk_ key: %v, want an error that does not quote it", err)
	}
}

func keyPair(seed byte) (ed25519.PublicKey, ed25519.PrivateKey) {
	priv := ed25519.NewKeyFromSeed([]byte(strings.Repeat(string(rune('a'+seed)), ed25519.SeedSize)))
	return priv.Public().(ed25519.PublicKey), priv
}

// During a rotation the sender signs with both secrets; the receiver given both accepts a
// delivery signed by either.
func TestRotatedSecrets(t *testing.T) {
	const old, next = "whsec_b2xkIHNlY3JldCBvZiAyNCBieXRlcyEh", "whsec_bmV3IHNlY3JldCBvZiAyNCBieXRlcyEh"
	v := verifier(t, standard, next, old)
	for _, s := range []string{old, next} {
		h := retrytest.SignWebhook(webhook.StandardWebhooks, s, "msg_1", swAt, []byte("{}"))
		if err := v.Verify(h, []byte("{}"), swAt); err != nil {
			t.Errorf("signed by one of the two: %v", err)
		}
	}
	h := retrytest.SignWebhook(webhook.StandardWebhooks, swSecret, "msg_1", swAt, []byte("{}"))
	if err := v.Verify(h, []byte("{}"), swAt); !errors.Is(err, webhook.ErrBadSignature) {
		t.Errorf("signed by a third: %v", err)
	}
}

// Stripe's scheme: several v1 signatures (one per secret while rolling), a v0 never
// accepted, the timestamp checked both ways.
func TestStripe(t *testing.T) {
	const secret = "whsec_test_secret"
	body := []byte(`{"id": "evt_1", "object": "event"}`)
	sig := webhook.Signature{Scheme: webhook.Stripe}
	v := verifier(t, sig, secret)
	good := retrytest.SignWebhook(webhook.Stripe, secret, "", swAt, body).Get("Stripe-Signature")
	v1 := good[strings.Index(good, "v1=")+3:]
	for _, tc := range []struct {
		name, header string
		at           time.Time
		want         error
	}{
		{"signed", good, swAt, nil},
		{"with others", "t=1614265330,v1=" + strings.Repeat("0", 64) + ",v0=" + v1 + ",v1=" + v1, swAt, nil},
		{"v0 only", "t=1614265330,v0=" + v1, swAt, webhook.ErrBadSignature},
		{"no timestamp", "v1=" + v1, swAt, webhook.ErrBadSignature},
		{"two timestamps", "t=1614265330,t=1614265331,v1=" + v1, swAt, webhook.ErrBadSignature},
		{"none", "", swAt, webhook.ErrNotSigned},
		{"6 minutes old", good, swAt.Add(6 * time.Minute), webhook.ErrTooOld},
		{"6 minutes ahead", good, swAt.Add(-6 * time.Minute), webhook.ErrTooNew},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set("Stripe-Signature", tc.header)
		}
		if err := v.Verify(h, body, tc.at); !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// GitHub's published example (docs.github.com, "Validating webhook deliveries"): the
// secret "It's a Secret to Everybody" signs "Hello, World!" as sha256=757107ea....
func TestGitHubVector(t *testing.T) {
	v := verifier(t, webhook.Signature{Scheme: webhook.GitHubSHA256}, "It's a Secret to Everybody")
	h := http.Header{"X-Hub-Signature-256": {"sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"}}
	if err := v.Verify(h, []byte("Hello, World!"), time.Time{}); err != nil {
		t.Errorf("the published example: %v", err)
	}
	if err := v.Verify(h, []byte("Hello, World?"), time.Time{}); !errors.Is(err, webhook.ErrBadSignature) {
		t.Errorf("another body: %v", err)
	}
	h.Set("X-Hub-Signature-256", "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
	if err := v.Verify(h, []byte("Hello, World!"), time.Time{}); !errors.Is(err, webhook.ErrBadSignature) {
		t.Errorf("without sha256=: %v", err)
	}
}

// An hmac scheme as Slack's: v0= and hex, over "v0:<timestamp>:<body>", the timestamp
// checked.
func TestHMACScheme(t *testing.T) {
	sig := webhook.Signature{
		Scheme: webhook.HMAC, Header: "X-Slack-Signature", Prefix: "v0=", Encoding: webhook.Hex,
		Signed:    []webhook.Part{{Text: "v0"}, {Header: "X-Slack-Request-Timestamp"}, {Body: true}},
		Delimiter: ":", Timestamp: "X-Slack-Request-Timestamp",
	}
	v := verifier(t, sig, "8f742231b10e8888abcd99yyyzzz85a5")
	body := []byte("token=xyz&team_id=T1")
	h := retrytest.SignWebhookWith(sig, "8f742231b10e8888abcd99yyyzzz85a5", "", swAt, body)
	if err := v.Verify(h, body, swAt); err != nil {
		t.Errorf("signed: %v", err)
	}
	if err := v.Verify(h, body, swAt.Add(time.Hour)); !errors.Is(err, webhook.ErrTooOld) {
		t.Errorf("an hour later: %v", err)
	}
	h.Set("X-Slack-Request-Timestamp", "1614265331")
	if err := v.Verify(h, body, swAt); !errors.Is(err, webhook.ErrBadSignature) {
		t.Errorf("another timestamp than signed: %v", err)
	}
	b64 := sig
	b64.Encoding, b64.Prefix, b64.Timestamp, b64.Signed = webhook.Base64, "", "", nil
	h = retrytest.SignWebhookWith(b64, "k", "", swAt, body)
	if err := verifier(t, b64, "k").Verify(h, body, time.Time{}); err != nil {
		t.Errorf("base64 over the body: %v", err)
	}
}

// Secrets are checked when the verifier is made, and never quoted.
func TestSecretsRefused(t *testing.T) {
	for _, tc := range []struct {
		sig    webhook.Signature
		secret string
	}{
		{standard, ""},
		{standard, "whsec_not base64!"},
		{standard, "whpk_c2hvcnQ="},
		{webhook.Signature{Scheme: webhook.Stripe}, "whpk_c2hvcnQ="},
		{webhook.Signature{Scheme: "sha1"}, "s3cr3t-value"},
	} {
		_, err := webhook.NewVerifier(tc.sig, tc.secret)
		if err == nil {
			t.Errorf("%s %q accepted", tc.sig.Scheme, tc.secret)
		} else if tc.secret != "" && strings.Contains(err.Error(), strings.TrimPrefix(strings.TrimPrefix(tc.secret, "whsec_"), "whpk_")) {
			t.Errorf("the error quotes the secret: %v", err)
		}
	}
	if _, err := webhook.NewVerifier(standard); err == nil {
		t.Error("no secret accepted")
	}
}

// A header with thousands of signatures costs no more than maxSignatures checks: the
// valid one past them is not looked at.
func TestSignaturesBounded(t *testing.T) {
	v := verifier(t, standard, swSecret)
	many := strings.Repeat("v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= ", 5000) + swSig
	if err := v.Verify(swHeader(many), []byte(swPayload), swAt); !errors.Is(err, webhook.ErrBadSignature) {
		t.Errorf("a valid signature after 5000 others: %v, want it not looked at", err)
	}
}
