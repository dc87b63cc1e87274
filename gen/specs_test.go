package gen

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
	"go.yaml.in/yaml/v4"
)

// TestSharedSpecs loads and plans every spec of the corpus and fails on any that retrygen
// cannot handle.
func TestSharedSpecs(t *testing.T) {
	dir := corpus.Dir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	var specs []string
	for _, f := range files {
		if ext := filepath.Ext(f); ext == ".yaml" || ext == ".yml" || ext == ".json" {
			specs = append(specs, f)
		}
	}
	if len(specs) == 0 {
		t.Fatalf("no specs in %s", dir)
	}
	for _, f := range specs {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, filepath.Ext(name)), func(t *testing.T) {
			if fileSize(t, f) > 1<<20 {
				longtest.Heavy(t)
			}
			s, err := Load(f, LoadOptions{})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			ops := s.API.Operations
			wantOps := countOperations(t, f)
			if len(ops) != wantOps {
				t.Errorf("got %d operations, the document has %d", len(ops), wantOps)
			}
			for _, op := range ops {
				p := op.Policy
				if p.MaxAttempts < 1 || p.Reason == "" || len(p.Sources) != len(policy.Fields)+1 {
					t.Errorf("%s %s: incomplete policy %+v", op.Method, op.Path, p)
				}
				if p.Retry != (p.Idempotent && p.MaxAttempts > 1) {
					t.Errorf("%s %s: Retry %v disagrees with Idempotent %v, MaxAttempts %d", op.Method, op.Path, p.Retry, p.Idempotent, p.MaxAttempts)
				}
			}
			var buf bytes.Buffer
			if err := Plan(&buf, s, PlanOptions{Format: "json"}); err != nil {
				t.Fatal(err)
			}
			var decoded []map[string]any
			err = json.Unmarshal(buf.Bytes(), &decoded)
			if err != nil || len(decoded) != len(ops)+len(s.API.Webhooks) {
				t.Fatalf("plan JSON: %v, %d entries for %d operations and %d webhooks", err, len(decoded), len(ops), len(s.API.Webhooks))
			}
			buf.Reset()
			if err := Plan(&buf, s, PlanOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(buf.String(), "\n"); len(ops) > 0 && got < len(ops) {
				t.Errorf("table has %d lines for %d operations", got, len(ops))
			}
		})
	}
}

func fileSize(t *testing.T, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// countOperations counts the operations of the spec file at path independently of the
// generator: the method keys of its path items.
func countOperations(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, item := range doc.Paths {
		for key, v := range item {
			switch key {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace", "query":
				n++
			case "additionalOperations":
				if m, ok := v.(map[string]any); ok {
					n += len(m)
				}
			}
		}
	}
	return n
}

// BenchmarkPlan measures `retrygen plan -json` on the largest public specs: loading,
// validation, policy derivation and rendering.
func BenchmarkPlan(b *testing.B) {
	for _, name := range []string{"stripe.yaml", "github.json"} {
		path := corpus.Path(b, name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, err := Load(path, LoadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if err := Plan(io.Discard, s, PlanOptions{Format: "json"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
