package retrytest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrygen/retrygen/runtime/webhook"
)

// SignWebhook returns the headers a sender of scheme adds to a delivery of body with the
// id and timestamp, signed with secret, for tests of a webhook receiver:
//
//   - webhook.StandardWebhooks: webhook-id, webhook-timestamp and webhook-signature, a
//     "v1," HMAC-SHA256 for a whsec_ secret, a "v1a," ed25519 signature for a whsk_
//     secret key (base64 of its 64 bytes, as ed25519.PrivateKey holds them);
//   - webhook.Stripe: Stripe-Signature "t=...,v1=..." (id is not sent);
//   - webhook.GitHubSHA256: X-Hub-Signature-256 and X-GitHub-Delivery (the timestamp is
//     not sent).
//
// For webhook.HMAC, whose headers the spec describes, use SignWebhookWith. It panics on a
// malformed secret, as a test's mistake.
func SignWebhook(scheme webhook.Scheme, secret, id string, timestamp time.Time, body []byte) http.Header {
	if scheme == webhook.HMAC {
		panic("retrytest.SignWebhook: the hmac scheme's headers are the spec's: use SignWebhookWith")
	}
	return SignWebhookWith(webhook.Signature{Scheme: scheme}, secret, id, timestamp, body)
}

// SignWebhookWith is SignWebhook for any Signature, the HMAC scheme's included: it sets
// the signature's Timestamp header to the time in Unix seconds, and its Header to Prefix
// and the signature. A signed part naming another header is signed as empty.
func SignWebhookWith(sig webhook.Signature, secret, id string, timestamp time.Time, body []byte) http.Header {
	ts := strconv.FormatInt(timestamp.Unix(), 10)
	h := http.Header{}
	switch sig.Scheme {
	case webhook.StandardWebhooks:
		content := []byte(id + "." + ts + "." + string(body))
		var signature string
		if key, ok := strings.CutPrefix(secret, "whsk_"); ok {
			priv := mustBase64(key)
			if len(priv) != ed25519.PrivateKeySize {
				panic("retrytest.SignWebhook: a whsk_ key must be 64 bytes in base64")
			}
			signature = "v1a," + base64.StdEncoding.EncodeToString(ed25519.Sign(ed25519.PrivateKey(priv), content))
		} else {
			signature = "v1," + base64.StdEncoding.EncodeToString(mac(mustBase64(strings.TrimPrefix(secret, "whsec_")), content))
		}
		h.Set("Webhook-Id", id)
		h.Set("Webhook-Timestamp", ts)
		h.Set("Webhook-Signature", signature)
	case webhook.Stripe:
		h.Set("Stripe-Signature", "t="+ts+",v1="+hex.EncodeToString(mac([]byte(secret), []byte(ts+"."+string(body)))))
	case webhook.GitHubSHA256:
		h.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac([]byte(secret), body)))
		h.Set("X-GitHub-Delivery", id)
	case webhook.HMAC:
		if sig.Timestamp != "" {
			h.Set(sig.Timestamp, ts)
		}
		var content bytes.Buffer
		signed := sig.Signed
		if len(signed) == 0 {
			signed = []webhook.Part{{Body: true}}
		}
		for i, p := range signed {
			if i > 0 {
				content.WriteString(sig.Delimiter)
			}
			switch {
			case p.Body:
				content.Write(body)
			case p.Header != "":
				content.WriteString(h.Get(p.Header))
			default:
				content.WriteString(p.Text)
			}
		}
		m := mac([]byte(secret), content.Bytes())
		enc := hex.EncodeToString(m)
		if sig.Encoding == webhook.Base64 {
			enc = base64.StdEncoding.EncodeToString(m)
		}
		h.Set(sig.Header, sig.Prefix+enc)
	default:
		panic(fmt.Sprintf("retrytest.SignWebhook: unknown scheme %q", sig.Scheme))
	}
	return h
}

func mac(key, content []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(content)
	return m.Sum(nil)
}

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic("retrytest.SignWebhook: the secret is not base64 after its prefix")
	}
	return b
}

// Redeliver sends a delivery to a receiver as a sender that retries does: twice at once,
// as when the sender's timeout fired while the first was still being handled, then once
// more after later, as its retry schedule would. It returns the three answers in that
// order (the two at once in the order they were sent). Inside a testing/synctest bubble
// later passes in virtual time. The request's body is read once and sent each time.
func Redeliver(h http.Handler, r *http.Request, later time.Duration) []*http.Response {
	var body []byte
	if r.Body != nil {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(r.Body)
		r.Body.Close()
		body = buf.Bytes()
	}
	send := func() *http.Response {
		req := r.Clone(r.Context())
		req.Body = readCloser{bytes.NewReader(body)}
		req.ContentLength = int64(len(body))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Result()
	}
	answers := make([]*http.Response, 3)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() { answers[i] = send() })
	}
	wg.Wait()
	time.Sleep(later)
	answers[2] = send()
	return answers
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }
