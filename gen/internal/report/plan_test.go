package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/retrygen/retrygen/gen/internal/build"
	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/model"
)

// planDir holds specs with golden plan output: NAME.yaml with NAME.txt (table), NAME.md
// (Markdown) and NAME.json.
const planDir = "../../../testdata/plan"

var update = flag.Bool("update", false, "rewrite the golden files")

// loadAPI loads and builds the spec at path.
func loadAPI(t *testing.T, path string) *model.API {
	t.Helper()
	s, err := load.Load(path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api, err := build.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return api
}

func TestPlanGolden(t *testing.T) {
	specs, _ := filepath.Glob(filepath.Join(planDir, "*.yaml"))
	if len(specs) == 0 {
		t.Fatal("no specs in " + planDir)
	}
	for _, spec := range specs {
		base := strings.TrimSuffix(spec, ".yaml")
		t.Run(filepath.Base(base), func(t *testing.T) {
			api := loadAPI(t, spec)
			path := filepath.Base(spec) // as the user would name it from that folder
			for ext, write := range map[string]func(*bytes.Buffer) error{
				".txt":      func(b *bytes.Buffer) error { return WriteTable(b, path, api, false) },
				".wide.txt": func(b *bytes.Buffer) error { return WriteTable(b, path, api, true) },
				".md":       func(b *bytes.Buffer) error { return WriteMarkdown(b, path, api) },
				".json":     func(b *bytes.Buffer) error { return WriteJSON(b, api) },
			} {
				var buf bytes.Buffer
				if err := write(&buf); err != nil {
					t.Fatal(err)
				}
				golden(t, base+ext, buf.Bytes())
			}
		})
	}
}

// golden compares got with the file at path, or rewrites the file with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", filepath.Base(path), diff)
	}
}

// TestPlanJSONKeys checks the JSON contract: exactly these keys, with these types.
func TestPlanJSONKeys(t *testing.T) {
	api := loadAPI(t, filepath.Join(planDir, "shop.yaml"))
	var buf bytes.Buffer
	if err := WriteJSON(&buf, api); err != nil {
		t.Fatal(err)
	}
	var entries []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &entries); err != nil {
		t.Fatal(err)
	}
	want := []string{"attemptTimeout", "attempts", "connectionErrors", "goMethod", "idempotencyKey", "idempotencyKeyIn", "initialDelay", "jitter", "maxAttempts",
		"maxDelay", "maxElapsed", "maxRetryAfter", "method", "multiplier", "operationId", "overlays", "pagination", "path", "reason", "retry",
		"retryAfter", "serverSignals", "sources", "statusCodes"}
	for _, e := range entries {
		var keys []string
		for k := range e {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if diff := cmp.Diff(want, keys); diff != "" {
			t.Fatalf("keys differ (-want +got):\n%s", diff)
		}
		for _, k := range []string{"initialDelay", "maxDelay", "attemptTimeout", "maxElapsed", "maxRetryAfter"} {
			if _, ok := e[k].(string); !ok {
				t.Errorf("%s is %T, want a duration string", k, e[k])
			}
		}
		if _, ok := e["statusCodes"].([]any); !ok {
			t.Errorf("statusCodes is %T", e["statusCodes"])
		}
		// attempts is what a call the server answers makes: 1 when it is not retried.
		want := e["maxAttempts"]
		if e["retry"] == false {
			want = 1.0
		}
		if e["attempts"] != want {
			t.Errorf("%s: attempts %v, retry %v, maxAttempts %v", e["operationId"], e["attempts"], e["retry"], e["maxAttempts"])
		}
		for field, src := range e["sources"].(map[string]any) {
			if !slices.Contains([]any{"default", "document", "path", "operation"}, src) {
				t.Errorf("sources[%s] = %v", field, src)
			}
		}
	}
}

func TestPlanEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, &model.API{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(buf.String()); got != "[]" {
		t.Errorf("no operations: got %s, want []", got)
	}
}

func TestCellEscaping(t *testing.T) {
	for _, tt := range []struct{ in, term, md string }{
		{"plain /pets/{id}", "plain /pets/{id}", "plain /pets/{id}"},
		{"a|b", "a|b", `a\|b`},
		{"tab\there\nnew", `tab\there\nnew`, `tab\\there\\nnew`},
		{"\x1b[31mred", `\x1b[31mred`, `\\x1b\[31mred`},
		{"bidi\u202eevil", `bidi\u202eevil`, `bidi\\u202eevil`},
		{"<script>&", "<script>&", "&lt;script&gt;&amp;"},
		{"ping @octocat", "ping @octocat", "ping @&#8203;octocat"},
		{"see #1 at https://evil.example and www.evil.example", "see #1 at https://evil.example and www.evil.example",
			`see \#&#8203;1 at https:&#8203;//evil.example and www&#8203;.evil.example`},
		{"*bold* _it_ `code` [l](u)", "*bold* _it_ `code` [l](u)", "\\*bold\\* \\_it\\_ \\`code\\` \\[l\\](u)"},
		{"bad\xffutf8", "bad\uFFFDutf8", "bad\uFFFDutf8"},
	} {
		if got := termCell(tt.in); got != tt.term {
			t.Errorf("termCell(%q) = %q, want %q", tt.in, got, tt.term)
		}
		if got := markdownCell(tt.in); got != tt.md {
			t.Errorf("markdownCell(%q) = %q, want %q", tt.in, got, tt.md)
		}
	}
}

// The default table fits 100 columns, on the plan goldens and the petstore.
func TestPlanTableWidth(t *testing.T) {
	specs, _ := filepath.Glob(filepath.Join(planDir, "*.yaml"))
	specs = append(specs, filepath.Join("..", "..", "..", "examples", "petstore", "petstore.yaml"))
	for _, spec := range specs {
		var buf bytes.Buffer
		if err := WriteTable(&buf, filepath.Base(spec), loadAPI(t, spec), false); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(buf.String(), "\n") {
			if n := utf8.RuneCountInString(line); n > 100 {
				t.Errorf("%s: a line of %d columns:\n%s", filepath.Base(spec), n, line)
			}
		}
	}
}

// Every policy field is shown in exactly one column of the wide table.
func TestPlanColumnsCoverEveryField(t *testing.T) {
	count := map[string]int{}
	for _, c := range columns {
		for _, f := range c.fields {
			count[f]++
		}
	}
	want := []string{policy.KeyField}
	for _, f := range policy.Fields {
		want = append(want, f.Name)
	}
	for _, f := range want {
		if count[f] != 1 {
			t.Errorf("field %s is in %d columns, want 1", f, count[f])
		}
	}
	if len(count) != len(want) {
		t.Errorf("columns show %d fields, the policy has %d", len(count), len(want))
	}
}

func TestStatusList(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{[]string{"408", "429", "500", "502", "503", "504"}, "408,429,500,502-504"},
		{[]string{"500", "501"}, "500,501"},
		{[]string{"5XX", "429"}, "5XX,429"},
		{nil, "none"},
	} {
		if got := statusList(tt.in); got != tt.want {
			t.Errorf("statusList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
