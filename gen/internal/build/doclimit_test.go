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

// specOf returns a spec of OpenAPI version whose paths are n copies of path, each with
// its number for %[1]d, followed by rest (the components and other top-level keys).
func specOf(version string, n int, path, rest string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "openapi: %s\ninfo: {title: T, version: \"1\"}\npaths:\n", version)
	for i := range n {
		fmt.Fprintf(&b, path, i)
	}
	b.WriteString(rest)
	return b.String()
}

// sharedDescriptions writes a spec of ops operations that share, by $ref, one parameter
// and one response with a header, each described in size bytes.
func sharedDescriptions(t *testing.T, ops, size int) string {
	t.Helper()
	words := strings.Repeat("word ", size/5)
	return writeSpec(t, "shared.yaml", specOf("3.0.3", ops,
		"  /a%[1]d:\n    get:\n      operationId: get%[1]d\n      parameters: [{$ref: \"#/components/parameters/P\"}]\n      responses:\n        \"200\": {$ref: \"#/components/responses/R\"}\n",
		"components:\n  parameters:\n    P: {name: q, in: query, description: \"P "+words+"\", schema: {type: string}}\n"+
			"  responses:\n    R:\n      description: \"R "+words+"\"\n"+
			"      headers: {X-A: {description: \"H "+words+"\", schema: {type: string}}}\n"+
			"      content: {application/json: {schema: {type: object, properties: {a: {type: string}}}}}\n"))
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
	for _, s := range walkText(api).docs {
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
	longtest.Heavy(t)
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
			c := walkText(api)
			copied := copyBudget(len(spec.Files.Root()))
			t.Logf("%s: other texts %d bytes, budget %d (%.0f%%)", name, c.other, copied, 100*float64(c.other)/float64(copied))
			if c.other > copied/2 {
				t.Errorf("the other texts take %d bytes, more than half the budget (%d)", c.other, copied)
			}
			total := 0
			for _, s := range c.docs {
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

// writeSpec writes text to a spec file in a temporary folder.
func writeSpec(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCopiedTextIsBounded: what operations share by $ref is written into each of them; a
// spec that makes the client's names, URLs and values copy gigabytes is refused, naming
// the text copied most, before anything is emitted.
func TestCopiedTextIsBounded(t *testing.T) {
	// 300 operations are secured by one scheme, whose key is 20 KB.
	key := "k" + strings.Repeat("x", 20_000)
	text := specOf("3.0.3", 300, "  /a%d:\n    get:\n      responses: {\"204\": {description: ok}}\n",
		"security: [{"+key+": []}]\ncomponents:\n  securitySchemes:\n    "+key+": {type: apiKey, in: header, name: X-Key}\n")
	spec, err := load.Load(writeSpec(t, "key.yaml", text), load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(spec)
	want := "key.yaml: limit exceeded: the client would write "
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `the text "kxxxx`) || !strings.Contains(err.Error(), "(20001 bytes) is copied into 30") {
		t.Fatalf("Build = %v, want a refusal %q… naming the key and how many places copy it", err, want)
	}
	if len(err.Error()) > 2000 {
		t.Errorf("the refusal takes %d bytes; it should quote the text cut short", len(err.Error()))
	}
}

// TestParamsAndHeadersCountAsFields: an operation's parameters and response headers are
// fields of its structs, which MaxFields counts with those of the types: a path item of
// many parameters shared by many paths is refused at the operation that crosses it.
func TestParamsAndHeadersCountAsFields(t *testing.T) {
	defer func(n int) { maxFields = n }(maxFields)
	maxFields = 50
	params := specOf("3.1.0", 6, "  /a%d: {$ref: \"#/components/pathItems/I\"}\n",
		"components:\n  pathItems:\n    I:\n      get:\n        responses: {\"204\": {description: ok}}\n        parameters:\n")
	headers := specOf("3.0.3", 6, "  /a%d:\n    get:\n      responses: {\"200\": {$ref: \"#/components/responses/R\"}}\n",
		"components:\n  responses:\n    R:\n      description: ok\n      content: {text/plain: {schema: {type: string}}}\n      headers:\n")
	for i := range 10 {
		params += fmt.Sprintf("          - {name: p%d, in: query, schema: {type: string}}\n", i)
		headers += fmt.Sprintf("        X-H%d: {schema: {type: string}}\n", i)
	}
	for _, c := range []struct{ name, text, want string }{
		{"params.yaml", params, "params.yaml:9:3: #/paths/~1a5/get: limit exceeded: the client would have more than 50 struct fields (the count reaches 60 at the parameters of GetA5)"},
		{"headers.yaml", headers, "limit exceeded: the client would have more than 50 struct fields (the count reaches 60 at the response headers of GetA5)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec, err := load.Load(writeSpec(t, c.name, c.text), load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err = Build(spec); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Build = %v, want %q", err, c.want)
			}
		})
	}
}

// TestLongParameterNamesAreRefused: a path or query parameter's name is written by each
// operation that uses it, and is bounded as header names are.
func TestLongParameterNamesAreRefused(t *testing.T) {
	spec, err := load.Load(writeSpec(t, "long.yaml", "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /a:\n    get:\n      parameters: [{name: q"+
		strings.Repeat("x", 20_000)+", in: query, schema: {type: string}}]\n      responses: {\"204\": {description: ok}}\n"), load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "long.yaml:6:21: GET /a: query parameter name \"qxxx"
	if _, err = Build(spec); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "is 20001 bytes long, more than 16384") {
		t.Fatalf("Build = %v, want %q … is 20001 bytes long, more than 16384", err, want)
	}
}
