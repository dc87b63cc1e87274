// Package overlays holds OpenAPI Overlays to copy, for public specs that carry no retry
// or webhook extension: stripe-keys.yaml and openai-retries.yaml for retries,
// openai-webhooks.yaml, stripe-webhooks.yaml and github-webhooks.yaml for the signatures
// and ids of webhooks. These tests apply them to the corpus's copies of those specs, or
// to testdata/vendor-webhooks.yaml where the corpus's copy declares no webhooks.
package overlays

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrygen/retrygen/gen"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
	"github.com/retrygen/retrygen/internal/tempmod"
	"go.yaml.in/yaml/v4"
)

// load applies the overlay to the corpus spec, and fails on any warning the overlay
// causes (a target that selects nothing).
func load(t *testing.T, spec, overlay string) *gen.Spec {
	t.Helper()
	s, err := gen.Load(corpus.Path(t, spec), gen.LoadOptions{Overlays: []string{overlay}})
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

// Every POST of Stripe's API is retried with an Idempotency-Key, which the overlay set.
func TestStripeKeys(t *testing.T) {
	longtest.NoRace(t)
	s := load(t, "stripe.yaml", "stripe-keys.yaml")
	posts := 0
	for _, op := range s.API.Operations {
		if op.Method != "POST" {
			if op.Policy.IdempotencyKey != "" {
				t.Errorf("%s %s sends a key", op.Method, op.Path)
			}
			continue
		}
		posts++
		p := op.Policy
		if !p.Retry || p.IdempotencyKey != "Idempotency-Key" || p.Overlays["idempotencyKey"] != "stripe-keys.yaml:15:7" {
			t.Errorf("POST %s: retry %v, key %q set at %q", op.Path, p.Retry, p.IdempotencyKey, p.Overlays["idempotencyKey"])
		}
	}
	if posts < 200 {
		t.Errorf("%d POST operations, want Stripe's 222", posts)
	}
}

// openaiRetrySafe are the POST operations openai-retries.yaml declares idempotent.
var openaiRetrySafe = []string{
	"/embeddings", "/moderations", "/completions", "/audio/speech", "/audio/transcriptions",
	"/audio/translations", "/images/generations", "/images/edits", "/images/variations",
	"/responses/input_tokens", "/responses/input_tokens?beta=true", "/vector_stores/{vector_store_id}/search",
	"/fine_tuning/alpha/graders/run", "/fine_tuning/alpha/graders/validate",
	"/organization/certificates/activate", "/organization/certificates/deactivate",
	"/organization/projects/{project_id}/certificates/activate", "/organization/projects/{project_id}/certificates/deactivate",
}

// The OpenAI operations the overlay declares idempotent are retried, and only those of
// its POSTs; every target still selects an operation.
func TestOpenAIRetries(t *testing.T) {
	longtest.NoRace(t)
	s := load(t, "openai.yaml", "openai-retries.yaml")
	safe := map[string]bool{}
	for _, p := range openaiRetrySafe {
		safe[p] = true
	}
	for _, op := range s.API.Operations {
		if op.Method != "POST" {
			continue
		}
		p := op.Policy
		if p.Retry != safe[op.Path] {
			t.Errorf("POST %s: retry %v", op.Path, p.Retry)
		}
		if safe[op.Path] && !strings.HasPrefix(p.Overlays["idempotent"], "openai-retries.yaml:") {
			t.Errorf("POST %s: x-idempotent not located in the overlay: %q", op.Path, p.Overlays["idempotent"])
		}
		delete(safe, op.Path)
	}
	for p := range safe {
		t.Errorf("no POST %s in openai.yaml", p)
	}
}

// The Stripe client generated with the overlay sends one Idempotency-Key per call, the
// same on every attempt: a call answered 503, 503, then 200 reached the server three
// times with one key, and the next call with another.
func TestStripeClientSendsOneKeyPerCall(t *testing.T) {
	longtest.Heavy(t)
	s := load(t, "stripe.yaml", "stripe-keys.yaml")
	src, err := gen.Generate(s, gen.GenerateOptions{Package: "stripe", Command: "from stripe.yaml -overlay stripe-keys.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	dir := tempModule(t)
	write(t, filepath.Join(dir, "stripe", "client_gen.go"), string(src))
	write(t, filepath.Join(dir, "stripe", "keys_test.go"), `package stripe

import (
	"context"
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/retrygen/retrygen/runtime/retrytest"
)

func TestOneKeyPerCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `+"`"+`{"id": "cus_1", "object": "customer"}`+"`"+`)
		}), retrytest.Status(503), retrytest.Status(503))
		c := NewClient(WithBaseURL("https://api.stripe.test"), WithHTTPClient(tr.Client()), WithBearerAuth("sk_test"))
		for range 2 {
			if _, err := c.PostCustomers(context.Background(), &PostCustomersRequest{}); err != nil {
				t.Fatal(err)
			}
		}
		reqs := tr.Requests()
		if len(reqs) != 4 {
			t.Fatalf("%d requests, want 3 attempts of the first call and 1 of the second", len(reqs))
		}
		key := reqs[0].Header.Get("Idempotency-Key")
		for i, r := range reqs[:3] {
			if got := r.Header.Get("Idempotency-Key"); key == "" || got != key {
				t.Errorf("attempt %d sent Idempotency-Key %q, want %q on every attempt", i+1, got, key)
			}
		}
		if next := reqs[3].Header.Get("Idempotency-Key"); next == "" || next == key {
			t.Errorf("the next call sent %q, want a key of its own", next)
		}
	})
}
`)
	cmd := exec.Command("go", "test", "./stripe")
	cmd.Dir = dir
	cmd.Env = tempmod.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
}

// tempModule creates a module that builds against this repository, offline.
func tempModule(t *testing.T) string {
	t.Helper()
	return tempmod.New(t, filepath.Join("..", ".."), "retrygen.test/clients")
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The overlay docs/cli.md shows under "-overlay: a spec you do not own" is
// stripe-keys.yaml's actions, as they are in the file.
func TestCLIDocShowsStripeKeys(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)<!-- examples/overlays/stripe-keys.yaml -->\n```yaml\n(.*?)```").FindSubmatch(doc)
	if block == nil {
		t.Fatal("docs/cli.md has no block marked for examples/overlays/stripe-keys.yaml")
	}
	file, err := os.ReadFile("stripe-keys.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var shown, real struct {
		Overlay string
		Actions []struct {
			Target string
			Update map[string]any
		}
	}
	if err := yaml.Unmarshal(block[1], &shown); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(file, &real); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(real, shown); diff != "" {
		t.Errorf("the overlay of docs/cli.md differs from stripe-keys.yaml (-file +doc):\n%s", diff)
	}
}
