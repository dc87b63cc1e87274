package webhook

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Scheme is how a sender signs its deliveries, as x-webhook-signature's scheme names it.
type Scheme string

const (
	// StandardWebhooks is the Standard Webhooks scheme (standardwebhooks.com), which OpenAI
	// and Svix send: the headers webhook-id, webhook-timestamp and webhook-signature, the
	// latter a list of "v1,<base64 HMAC-SHA256>" and "v1a,<base64 ed25519>" signatures of
	// "<id>.<timestamp>.<body>". A whsec_ secret is an HMAC key in base64, a whpk_ one an
	// ed25519 public key.
	StandardWebhooks Scheme = "standard-webhooks"
	// Stripe is Stripe's scheme: a Stripe-Signature header "t=<timestamp>,v1=<hex>,...",
	// each v1 an HMAC-SHA256 of "<timestamp>.<body>" keyed by the whole whsec_ secret.
	Stripe Scheme = "stripe"
	// GitHubSHA256 is GitHub's scheme: an X-Hub-Signature-256 header "sha256=<hex>", an
	// HMAC-SHA256 of the body. It signs no timestamp.
	GitHubSHA256 Scheme = "github-sha256"
	// HMAC is an HMAC-SHA256 of parts of the request that Signature describes.
	HMAC Scheme = "hmac"
)

// Encoding is how an HMAC scheme writes its signature: Hex or Base64.
type Encoding string

const (
	Hex    Encoding = "hex"
	Base64 Encoding = "base64"
)

// DefaultTolerance is how far a signed timestamp may be from the receiver's clock, either
// way, unless the spec says otherwise: Standard Webhooks', Stripe's and openai-go's.
const DefaultTolerance = 5 * time.Minute

// Signature describes a sender's signatures: what x-webhook-signature says, as generated
// code declares it.
type Signature struct {
	Scheme Scheme
	// Tolerance bounds the distance of the signed timestamp from now, either way;
	// 0 means DefaultTolerance. GitHubSHA256, and HMAC without Timestamp, sign none.
	Tolerance time.Duration

	// The rest describes an HMAC scheme.

	// Header holds the signature, e.g. "X-Signature"; several of its lines are several
	// signatures.
	Header string
	// Prefix is written before the signature in the header, e.g. "sha256=", and required.
	Prefix string
	// Encoding is how the signature is written: Hex (the default) or Base64.
	Encoding Encoding
	// Signed are the parts of the request signed, in order, joined by Delimiter; none
	// means the body alone.
	Signed    []Part
	Delimiter string
	// Timestamp is the header holding the time of sending in Unix seconds, checked
	// against Tolerance; "" when the scheme sends none.
	Timestamp string
}

// Part is one part of what an HMAC scheme signs: the body, a header's value or fixed text.
type Part struct {
	Body   bool
	Header string
	Text   string
}

// The ways a delivery's signature fails. Verify and the receiver wrap them with what was
// wrong, never with a signature or a secret.
var (
	// ErrNotSigned: the delivery carries no signature. The receiver answers 401.
	ErrNotSigned = errors.New("webhook delivery not signed")
	// ErrBadSignature: no signature matches any of the secrets, or the signature header
	// is malformed. The receiver answers 400.
	ErrBadSignature = errors.New("webhook signature does not match")
	// ErrTooOld: the signed timestamp is older than the tolerance allows, a replay
	// perhaps. The receiver answers 400.
	ErrTooOld = errors.New("webhook timestamp too old")
	// ErrTooNew: the signed timestamp is further in the future than the tolerance allows.
	// The receiver answers 400.
	ErrTooNew = errors.New("webhook timestamp too new")
)

// maxSignatures bounds the signatures of one delivery that are checked: a sender rotating
// its secret sends two or three; an ed25519 check costs about 50µs.
const maxSignatures = 16

// A Verifier checks the signatures of deliveries against a list of secrets, any of which
// may have signed them: during a rotation the sender signs with the new secret and the
// old, and the receiver accepts both.
type Verifier struct {
	sig  Signature
	keys [][]byte            // HMAC keys
	pubs []ed25519.PublicKey // Standard Webhooks' v1a keys
}

// NewVerifier returns a Verifier of sig's signatures by any of secrets. For
// StandardWebhooks a secret is whsec_ and base64 (an HMAC key; the prefix may be left
// out) or whpk_ and base64 (an ed25519 public key); for the others its bytes are the HMAC
// key, Stripe's whsec_ prefix included. Errors never quote a secret.
func NewVerifier(sig Signature, secrets ...string) (*Verifier, error) {
	switch sig.Scheme {
	case StandardWebhooks, Stripe, GitHubSHA256:
	case HMAC:
		if sig.Header == "" {
			return nil, errors.New("webhook: the hmac scheme names no signature header")
		}
	default:
		return nil, fmt.Errorf("webhook: unknown signature scheme %q", sig.Scheme)
	}
	if len(secrets) == 0 {
		return nil, fmt.Errorf("webhook: %s signatures need a secret: give it with WithSecret", sig.Scheme)
	}
	v := &Verifier{sig: sig}
	for i, s := range secrets {
		if err := v.addSecret(s); err != nil {
			return nil, fmt.Errorf("webhook: secret %d of %d: %w", i+1, len(secrets), err)
		}
	}
	return v, nil
}

// addSecret reads one secret.
func (v *Verifier) addSecret(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return errors.New("empty")
	}
	if v.sig.Scheme != StandardWebhooks {
		if strings.HasPrefix(s, "whpk_") || strings.HasPrefix(s, "whsk_") {
			return fmt.Errorf("an ed25519 key, which only the %s scheme takes", StandardWebhooks)
		}
		v.keys = append(v.keys, []byte(s))
		return nil
	}
	switch {
	case strings.HasPrefix(s, "whsk_"):
		return errors.New("a whsk_ signing key: give the receiver the sender's whpk_ public key")
	case strings.HasPrefix(s, "whpk_"):
		key, err := base64.StdEncoding.DecodeString(s[len("whpk_"):])
		if err != nil || len(key) != ed25519.PublicKeySize {
			return fmt.Errorf("a whpk_ key must be %d bytes in base64", ed25519.PublicKeySize)
		}
		v.pubs = append(v.pubs, ed25519.PublicKey(key))
	default:
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if err != nil || len(key) == 0 {
			return errors.New("a whsec_ secret must be base64 after its prefix")
		}
		v.keys = append(v.keys, key)
	}
	return nil
}

// Verify checks the signature of a delivery, its header h and its body as received, at
// the time now: nil when one of its signatures is by one of the secrets and the signed
// timestamp is within the tolerance; else an error that wraps ErrNotSigned,
// ErrBadSignature, ErrTooOld or ErrTooNew. Every comparison takes constant time.
func (v *Verifier) Verify(h http.Header, body []byte, now time.Time) error {
	var ts string
	var err error
	switch v.sig.Scheme {
	case StandardWebhooks:
		ts, err = v.standard(h, body)
	case Stripe:
		ts, err = v.stripe(h, body)
	case GitHubSHA256:
		err = v.github(h, body)
	default:
		ts, err = v.hmac(h, body)
	}
	if err != nil || !v.signsTime() {
		return err
	}
	return v.checkTime(ts, now)
}

// signsTime reports whether the scheme signs a timestamp.
func (v *Verifier) signsTime() bool {
	return v.sig.Scheme == StandardWebhooks || v.sig.Scheme == Stripe || v.sig.Scheme == HMAC && v.sig.Timestamp != ""
}

// checkTime checks the signed timestamp ts, in Unix seconds, against now.
func (v *Verifier) checkTime(ts string, now time.Time) error {
	secs, ok := unixSeconds(ts)
	if !ok {
		return fmt.Errorf("%w: the timestamp is not in Unix seconds", ErrBadSignature)
	}
	tol := v.sig.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	at := time.Unix(secs, 0)
	switch {
	case now.Sub(at) > tol:
		return fmt.Errorf("%w: signed %v before now, more than the %v allowed", ErrTooOld, now.Sub(at).Truncate(time.Second), tol)
	case at.Sub(now) > tol:
		return fmt.Errorf("%w: signed %v after now, more than the %v allowed", ErrTooNew, at.Sub(now).Truncate(time.Second), tol)
	}
	return nil
}

// unixSeconds reads a timestamp of decimal digits, at most 12 of them (the year 33658).
func unixSeconds(s string) (int64, bool) {
	if s == "" || len(s) > 12 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// standard checks Standard Webhooks' signatures and returns the signed timestamp.
func (v *Verifier) standard(h http.Header, body []byte) (string, error) {
	list := strings.Join(h.Values("Webhook-Signature"), " ")
	if strings.TrimSpace(list) == "" {
		return "", fmt.Errorf("%w: no webhook-signature header", ErrNotSigned)
	}
	id, ts := h.Get("Webhook-Id"), h.Get("Webhook-Timestamp")
	if id == "" || ts == "" {
		return "", fmt.Errorf("%w: a signature needs the webhook-id and webhook-timestamp headers", ErrBadSignature)
	}
	if strings.Contains(id, ".") || strings.Contains(ts, ".") {
		return "", fmt.Errorf("%w: webhook-id and webhook-timestamp may not hold a full stop", ErrBadSignature)
	}
	parts := [][]byte{[]byte(id), []byte("."), []byte(ts), []byte("."), body}
	macs := v.macs(parts...)
	var signed []byte
	for i, entry := range strings.Fields(list) {
		if i == maxSignatures {
			break
		}
		version, sig, ok := strings.Cut(entry, ",")
		if !ok {
			continue // no version tag: never accepted
		}
		switch version {
		case "v1":
			if matchesAny(macs, decodeBase64(sig)) {
				return ts, nil
			}
		case "v1a":
			raw := decodeBase64(sig)
			if len(raw) != ed25519.SignatureSize {
				continue
			}
			if signed == nil {
				signed = joinParts(parts)
			}
			for _, pub := range v.pubs {
				if ed25519.Verify(pub, signed, raw) {
					return ts, nil
				}
			}
		}
	}
	return "", fmt.Errorf("%w: no v1 or v1a signature is by a secret given", ErrBadSignature)
}

// stripe checks Stripe's signatures and returns the signed timestamp.
func (v *Verifier) stripe(h http.Header, body []byte) (string, error) {
	header := h.Get("Stripe-Signature")
	if strings.TrimSpace(header) == "" {
		return "", fmt.Errorf("%w: no Stripe-Signature header", ErrNotSigned)
	}
	var ts string
	var sigs []string
	for _, pair := range strings.Split(header, ",") {
		k, val, _ := strings.Cut(strings.TrimSpace(pair), "=")
		switch k {
		case "t":
			if ts != "" {
				return "", fmt.Errorf("%w: Stripe-Signature has two timestamps", ErrBadSignature)
			}
			ts = val
		case "v1":
			sigs = append(sigs, val)
		}
	}
	if ts == "" || len(sigs) == 0 {
		return "", fmt.Errorf("%w: Stripe-Signature needs a t= timestamp and a v1= signature", ErrBadSignature)
	}
	macs := v.macs([]byte(ts), []byte("."), body)
	for i, s := range sigs {
		if i == maxSignatures {
			break
		}
		if matchesAny(macs, decodeHex(s)) {
			return ts, nil
		}
	}
	return "", fmt.Errorf("%w: no v1 signature is by a secret given", ErrBadSignature)
}

// github checks GitHub's X-Hub-Signature-256.
func (v *Verifier) github(h http.Header, body []byte) error {
	header := h.Get("X-Hub-Signature-256")
	if strings.TrimSpace(header) == "" {
		return fmt.Errorf("%w: no X-Hub-Signature-256 header", ErrNotSigned)
	}
	sig, ok := strings.CutPrefix(strings.TrimSpace(header), "sha256=")
	if !ok {
		return fmt.Errorf("%w: X-Hub-Signature-256 must start with sha256=", ErrBadSignature)
	}
	if !matchesAny(v.macs(body), decodeHex(sig)) {
		return fmt.Errorf("%w: the sha256 signature is by no secret given", ErrBadSignature)
	}
	return nil
}

// hmac checks the signatures of an HMAC scheme and returns the signed timestamp, "" when
// the scheme has none.
func (v *Verifier) hmac(h http.Header, body []byte) (string, error) {
	s := v.sig
	values := h.Values(s.Header)
	if len(values) == 0 || strings.TrimSpace(values[0]) == "" {
		return "", fmt.Errorf("%w: no %s header", ErrNotSigned, s.Header)
	}
	var ts string
	if s.Timestamp != "" {
		if ts = h.Get(s.Timestamp); ts == "" {
			return "", fmt.Errorf("%w: no %s header", ErrBadSignature, s.Timestamp)
		}
	}
	signed := s.Signed
	if len(signed) == 0 {
		signed = []Part{{Body: true}}
	}
	var parts [][]byte
	for i, p := range signed {
		if i > 0 && s.Delimiter != "" {
			parts = append(parts, []byte(s.Delimiter))
		}
		switch {
		case p.Body:
			parts = append(parts, body)
		case p.Header != "":
			parts = append(parts, []byte(h.Get(p.Header)))
		default:
			parts = append(parts, []byte(p.Text))
		}
	}
	macs := v.macs(parts...)
	for i, value := range values {
		if i == maxSignatures {
			break
		}
		sig, ok := strings.CutPrefix(strings.TrimSpace(value), s.Prefix)
		if !ok {
			continue
		}
		raw := decodeHex(sig)
		if s.Encoding == Base64 {
			raw = decodeBase64(sig)
		}
		if matchesAny(macs, raw) {
			return ts, nil
		}
	}
	return "", fmt.Errorf("%w: no %s signature is by a secret given", ErrBadSignature, s.Header)
}

// macs returns the HMAC-SHA256 of the parts under each key.
func (v *Verifier) macs(parts ...[]byte) [][]byte {
	macs := make([][]byte, len(v.keys))
	for i, key := range v.keys {
		var m hash.Hash = hmac.New(sha256.New, key)
		for _, p := range parts {
			m.Write(p)
		}
		macs[i] = m.Sum(nil)
	}
	return macs
}

// matchesAny reports, in time that depends only on the number of macs, whether sig is one
// of them.
func matchesAny(macs [][]byte, sig []byte) bool {
	found := 0
	for _, m := range macs {
		if hmac.Equal(m, sig) {
			found = 1
		}
	}
	return found == 1
}

func joinParts(parts [][]byte) []byte {
	var n int
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// decodeBase64 decodes a signature in standard base64; nil when it is not.
func decodeBase64(s string) []byte {
	if len(s) > 128 {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

// decodeHex decodes a signature in hex, either case; nil when it is not.
func decodeHex(s string) []byte {
	if len(s) > 128 {
		return nil
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}
