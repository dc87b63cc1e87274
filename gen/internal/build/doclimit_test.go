package build

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// sharedDescriptions writes a spec of ops operations that share, by $ref, one parameter
// and one response with a header, each described in size bytes.
func sharedDescriptions(t *testing.T, ops, size int) string {
	t.Helper()
	words := strings.Repeat("word ", size/5)
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n")
	for i := range ops {
		fmt.Fprintf(&b, "  /a%d:\n    get:\n      operationId: get%d\n", i, i)
		b.WriteString("      parameters: [{$ref: \"#/components/parameters/P\"}]\n")
		b.WriteString("      responses:\n        \"200\": {$ref: \"#/components/responses/R\"}\n")
	}
	fmt.Fprintf(&b, "components:\n  parameters:\n    P: {name: q, in: query, description: \"P %s\", schema: {type: string}}\n", words)
	fmt.Fprintf(&b, "  responses:\n    R:\n      description: \"R %s\"\n", words)
	fmt.Fprintf(&b, "      headers: {X-A: {description: \"H %s\", schema: {type: string}}}\n", words)
	b.WriteString("      content: {application/json: {schema: {type: object, properties: {a: {type: string}}}}}\n")
	path := filepath.Join(t.TempDir(), "shared.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSharedDescriptionsStayInProportion: a description shared by $ref is copied into
// every operation that uses it; the copies together stay within docBudget of the spec,
// and the cut is said in a warning. 500 operations sharing three descriptions of 20 KB
// would copy 30 MB.
func TestSharedDescriptionsStayInProportion(t *testing.T) {
	path := sharedDescriptions(t, 500, 20_000)
	spec, err := load.Load(path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	total, longest := 0, 0
	for _, s := range docTexts(api) {
		total += len(*s)
		longest = max(longest, len(*s))
	}
	budget := docBudget(len(spec.Files.Root()))
	if total > budget {
		t.Errorf("the doc texts add up to %d bytes, over the budget of %d", total, budget)
	}
	if longest < minDocCut {
		t.Errorf("the longest doc text is %d bytes, under the least cut, %d", longest, minDocCut)
	}
	if !strings.Contains(spec.Warnings.Error(), "cut short") {
		t.Errorf("no warning says the docs were cut; warnings:\n%v", spec.Warnings)
	}
}

// TestDocsOfRealSpecsAreWhole: no public description comes near the budget, so that the
// docs of real clients are never cut. It loads six large specs: RETRYGEN_LONG=1 runs it.
func TestDocsOfRealSpecsAreWhole(t *testing.T) {
	longtest.Only(t)
	for _, name := range []string{"stripe.yaml", "github.json", "openai.yaml", "box.json", "squadcast-31.yaml", "openrouter-31.yaml"} {
		t.Run(name, func(t *testing.T) {
			spec, err := load.Load(corpus.Path(t, name), load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			api, err := Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, s := range docTexts(api) {
				total += len(*s)
				if strings.HasSuffix(*s, "…") && len(*s) > minDocCut/2 {
					t.Errorf("a doc text was cut: …%s", (*s)[max(0, len(*s)-80):])
					break
				}
			}
			budget := docBudget(len(spec.Files.Root()))
			t.Logf("%s: doc texts %d bytes, budget %d (%.0f%%)", name, total, budget, 100*float64(total)/float64(budget))
			if total > budget/2 {
				t.Errorf("the doc texts take %d bytes, more than half the budget (%d)", total, budget)
			}
		})
	}
}

func TestFitCut(t *testing.T) {
	for _, c := range []struct {
		lengths      []int
		budget, want int
	}{
		{[]int{10, 20, 30}, 60, 30},
		{[]int{10, 20, 30}, 1000, 30},
		{[]int{1000, 1000, 1000}, 1500, 500},
		{[]int{10, 1000, 1000}, 1010, 500},
		{[]int{1000, 1000, 1000}, 30, minDocCut},
	} {
		if got := fitCut(c.lengths, c.budget); got != c.want {
			t.Errorf("fitCut(%v, %d) = %d, want %d", c.lengths, c.budget, got, c.want)
		}
	}
}

func TestCutText(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"aaaa bbbb cccc dddd", 14, "aaaa bbbb…"},
		{"aaaaaaaaaaaaaaaaaaaa", 10, "aaaaaaa…"},
		{"ééééé", 8, "éé…"},
	} {
		if got := cutText(c.in, c.n); got != c.want || len(got) > c.n {
			t.Errorf("cutText(%q, %d) = %q, want %q (at most %d bytes)", c.in, c.n, got, c.want, c.n)
		}
	}
}
