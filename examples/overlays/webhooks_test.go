package overlays

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrygen/retrygen/gen"
	"github.com/retrygen/retrygen/internal/longtest"
	"github.com/retrygen/retrygen/internal/tempmod"
)

// Each of OpenAI's 16 webhooks is signed as Standard Webhooks says, its id the webhook-id
// header, remembered 76 hours, all set by the overlay; the receiver tells them apart by
// the payload's type.
func TestOpenAIWebhooks(t *testing.T) {
	s := load(t, "openai.yaml", "openai-webhooks.yaml")
	hooks := s.API.Webhooks
	if len(hooks) != 16 {
		t.Fatalf("%d webhooks, want openai.yaml's 16", len(hooks))
	}
	events := map[string]bool{}
	for _, h := range hooks {
		sig := h.Signature
		if sig == nil || sig.Scheme != "standard-webhooks" || sig.Tolerance != 5*time.Minute || !strings.HasPrefix(sig.At, "openai-webhooks.yaml:") {
			t.Errorf("%s: signature %+v", h.Name, sig)
		}
		if h.ID.Text() != "header webhook-id" || h.ID.TTL != 76*time.Hour || !strings.HasPrefix(h.ID.At, "openai-webhooks.yaml:") {
			t.Errorf("%s: id %+v", h.Name, h.ID)
		}
		if h.Member != "type" || h.Event == "" || events[h.Event] {
			t.Errorf("%s: routed by %q = %q", h.Name, h.Member, h.Event)
		}
		events[h.Event] = true
	}
}

// The OpenAI client generated with the overlay receives a delivery signed as OpenAI signs
// it, decoded into its payload type, once however it is repeated (sequentially and at
// once, under the race detector), and refuses every tampered or stale copy without
// calling the handler; a handler whose call through the client gave up for load answers
// 503 with the Retry-After the API sent.
func TestOpenAIWebhookReceiver(t *testing.T) {
	longtest.Only(t)
	s := load(t, "openai.yaml", "openai-webhooks.yaml")
	files, err := gen.GenerateFiles(s, gen.GenerateOptions{Package: "openai", Command: "from openai.yaml -overlay openai-webhooks.yaml"}, gen.SplitAbove)
	if err != nil {
		t.Fatal(err)
	}
	dir := tempModule(t)
	for _, f := range files {
		write(t, filepath.Join(dir, "openai", gen.PartName("client_gen.go", f.Part)), string(f.Source))
	}
	write(t, filepath.Join(dir, "openai", "webhooks_test.go"), openaiReceiverTest)
	cmd := exec.Command("go", "test", "-race", "-count=1", "./openai")
	cmd.Dir = dir
	cmd.Env = tempmod.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
}

const openaiReceiverTest = `package openai

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime/retrytest"
)

// The secret as OpenAI's dashboard shows it, and a second one during a rotation.
const (
	secret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	rotatedTo = "whsec_bmV3IHNlY3JldCBvZiAyNCBieXRlcyEh"
)

// The example of WebhookBatchCompleted in openai.yaml.
const body = ` + "`" + `{"id": "evt_abc123", "type": "batch.completed", "created_at": 1719168000, "data": {"id": "batch_abc123"}}` + "`" + `

// sign signs as OpenAI does: webhook-id, webhook-timestamp, and webhook-signature "v1,"
// and the base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed by the secret's bytes.
func sign(r *http.Request, secret, id string, at time.Time, body string) *http.Request {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	ts := strconv.FormatInt(at.Unix(), 10)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "." + body))
	r.Header.Set("webhook-id", id)
	r.Header.Set("webhook-timestamp", ts)
	r.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	return r
}

func delivery(secret string, at time.Time, body string) *http.Request {
	return sign(httptest.NewRequest("POST", "/webhooks/openai", strings.NewReader(body)), secret, "msg_1", at, body)
}

type handler struct {
	UnimplementedWebhookHandler
	calls   atomic.Int32
	got     atomic.Pointer[WebhookBatchCompleted]
	release chan struct{}
	client  *Client
}

func (h *handler) OnBatchCompleted(ctx context.Context, p WebhookBatchCompleted) error {
	h.calls.Add(1)
	h.got.Store(&p)
	if h.release != nil {
		<-h.release
	}
	if h.client != nil {
		_, err := h.client.RetrieveBatch(ctx, p.Data.ID)
		return err
	}
	return nil
}

func serve(h http.Handler, r *http.Request) *http.Response {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func receiver(t *testing.T, h WebhookHandler, secrets ...string) http.Handler {
	t.Helper()
	rc, err := NewWebhookReceiver(h, WithWebhookSecret(secrets...))
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

func TestAcceptedOnce(t *testing.T) {
	h := &handler{}
	rc := receiver(t, h, secret)
	for i := range 3 {
		if code := serve(rc, delivery(secret, time.Now(), body)).StatusCode; code != 200 {
			t.Fatalf("delivery %d: %d", i+1, code)
		}
	}
	if n := h.calls.Load(); n != 1 {
		t.Errorf("handler called %d times, want once", n)
	}
	if p := h.got.Load(); p == nil || p.Data.ID != "batch_abc123" || p.ID != "evt_abc123" || p.CreatedAt != 1719168000 {
		t.Errorf("payload %+v", p)
	}
}

func TestConcurrentRepeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &handler{release: make(chan struct{})}
		rc := receiver(t, h, secret)
		var answers []*http.Response
		done := make(chan struct{})
		go func() {
			answers = retrytest.Redeliver(rc, delivery(secret, time.Now(), body), time.Minute)
			close(done)
		}()
		synctest.Wait()
		close(h.release)
		<-done
		codes := []int{answers[0].StatusCode, answers[1].StatusCode, answers[2].StatusCode}
		if !(codes[0] == 200 && codes[1] == 409 || codes[0] == 409 && codes[1] == 200) || codes[2] != 200 {
			t.Errorf("answers %v, want 200 and 409 at once, then 200", codes)
		}
		if n := h.calls.Load(); n != 1 {
			t.Errorf("handler called %d times, want once", n)
		}
	})
}

func TestRefused(t *testing.T) {
	h := &handler{}
	rc := receiver(t, h, secret)
	untagged := delivery(secret, time.Now(), body)
	untagged.Header.Set("webhook-signature", strings.TrimPrefix(untagged.Header.Get("webhook-signature"), "v1,"))
	changed := delivery(secret, time.Now(), body)
	changed.Body = httptest.NewRequest("POST", "/", strings.NewReader(strings.Replace(body, "abc123", "abc124", 1))).Body
	unsigned := httptest.NewRequest("POST", "/webhooks/openai", strings.NewReader(body))
	for _, tc := range []struct {
		name string
		r    *http.Request
		code int
	}{
		{"wrong secret", delivery(rotatedTo, time.Now(), body), 400},
		{"no v1 tag", untagged, 400},
		{"6 minutes old", delivery(secret, time.Now().Add(-6*time.Minute), body), 400},
		{"6 minutes ahead", delivery(secret, time.Now().Add(6*time.Minute), body), 400},
		{"body changed by one byte", changed, 400},
		{"unsigned", unsigned, 401},
	} {
		if code := serve(rc, tc.r).StatusCode; code != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.code)
		}
	}
	if n := h.calls.Load(); n != 0 {
		t.Errorf("handler called %d times", n)
	}
	if !errors.Is(ErrWebhookTooOld, ErrWebhookTooOld) || ErrWebhookNotSigned == nil {
		t.Error("the errors are not re-exported")
	}
}

func TestRotatedSecrets(t *testing.T) {
	h := &handler{}
	rc := receiver(t, h, rotatedTo, secret)
	for i, s := range []string{secret, rotatedTo} {
		r := sign(httptest.NewRequest("POST", "/", strings.NewReader(body)), s, "msg_"+strconv.Itoa(i), time.Now(), body)
		if code := serve(rc, r).StatusCode; code != 200 {
			t.Errorf("signed by secret %d: %d", i+1, code)
		}
	}
	if n := h.calls.Load(); n != 2 {
		t.Errorf("handler called %d times, want 2", n)
	}
}

func TestDownstreamGaveUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := retrytest.NewTransport(nil, retrytest.RetryAfter(503, 20*time.Second), retrytest.RetryAfter(503, 20*time.Second),
			retrytest.RetryAfter(503, 20*time.Second), retrytest.RetryAfter(503, 20*time.Second))
		c := NewClient(WithBaseURL("https://api.openai.test/v1"), WithHTTPClient(api.Client()), WithAPIKeyAuth("sk-test"))
		rc := receiver(t, &handler{client: c}, secret)
		resp := serve(rc, delivery(secret, time.Now(), body))
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "20" {
			t.Errorf("%d Retry-After %q, want 503 and 20", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	})
}
`

// loadFile applies the overlay to a spec of this folder's testdata, and fails on any
// warning the overlay causes.
func loadFile(t *testing.T, spec, overlay string) *gen.Spec {
	t.Helper()
	s, err := gen.Load(filepath.Join("testdata", spec), gen.LoadOptions{Overlays: []string{overlay}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range s.Warnings {
		if w.Pos.File == overlay {
			t.Errorf("warning: %v", w)
		}
	}
	return s
}

// stripe-webhooks.yaml and github-webhooks.yaml sign every webhook as their sender does
// and name its id, set in the overlay; Stripe's events carry their API version.
func TestVendorWebhookOverlays(t *testing.T) {
	for _, tc := range []struct{ overlay, scheme, id, version string }{
		{"stripe-webhooks.yaml", "stripe", "body id", "api_version"},
		{"github-webhooks.yaml", "github-sha256", "header X-GitHub-Delivery", "api_version"},
	} {
		s := loadFile(t, "vendor-webhooks.yaml", tc.overlay)
		if len(s.API.Webhooks) != 2 {
			t.Fatalf("%s: %d webhooks", tc.overlay, len(s.API.Webhooks))
		}
		for _, h := range s.API.Webhooks {
			if h.Signature.SchemeText() != tc.scheme || !strings.HasPrefix(h.Signature.At, tc.overlay+":") {
				t.Errorf("%s: %s signed %+v", tc.overlay, h.Name, h.Signature)
			}
			if h.ID.Text() != tc.id || h.ID.TTL != 76*time.Hour || !strings.HasPrefix(h.ID.At, tc.overlay+":") {
				t.Errorf("%s: %s id %+v", tc.overlay, h.Name, h.ID)
			}
			if h.VersionMember != tc.version || h.Member != "type" {
				t.Errorf("%s: %s version member %q, routed by %q", tc.overlay, h.Name, h.VersionMember, h.Member)
			}
		}
	}
	// Stripe's own description has no webhooks; the overlay applies to it all the same.
	if s := load(t, "stripe.yaml", "stripe-webhooks.yaml"); len(s.API.Webhooks) != 0 {
		t.Errorf("stripe.yaml: %d webhooks", len(s.API.Webhooks))
	}
}
