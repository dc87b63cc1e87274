package load

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// findings flattens what Validate returned into sorted, distinct messages.
func findings(errs ...error) []string {
	var out []string
	for _, err := range errs {
		if me, ok := err.(openapi3.MultiError); ok {
			for _, e := range me {
				out = append(out, e.Error())
			}
		} else if err != nil {
			out = append(out, err.Error())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var (
	validateOpts = []openapi3.ValidationOption{openapi3.EnableMultiError(), openapi3.DisableExamplesValidation()}
	loadOpts     = []openapi3.ValidationOption{openapi3.EnableMultiError(), openapi3.DisableExamplesValidation(),
		openapi3.DisableSchemaDefaultsValidation(), openapi3.DisableSchemaPatternValidation()}
)

// sameAsValidate checks that validateOnce finds, message for message, what one
// doc.Validate finds, and that it leaves the document as it was. It returns how many
// findings there were.
func sameAsValidate(t *testing.T, name string, doc *openapi3.T, opts []openapi3.ValidationOption) int {
	t.Helper()
	before, err := doc.MarshalJSON()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	whole := findings(doc.Validate(context.Background(), opts...))
	got := findings(validateOnce(doc, opts...)...)
	if !slices.Equal(got, whole) {
		t.Errorf("%s: validateOnce found\n\t%s\none Validate\n\t%s", name, strings.Join(got, "\n\t"), strings.Join(whole, "\n\t"))
	}
	after, err := doc.MarshalJSON()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if string(before) != string(after) {
		t.Errorf("%s: validateOnce changed the document", name)
	}
	return len(whole)
}

// The component schemas' errors reach the operations that use them, however they are
// reached: directly, through inline schemas, combinators, parameters, headers,
// callbacks, component responses and cycles.
const componentErrorsSpec = `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /a/{x}:
    parameters: [{name: x, in: path, required: true, schema: {type: string}}]
    get:
      parameters:
        - {name: q, in: query, schema: {$ref: '#/components/schemas/Bad'}}
        - {$ref: '#/components/parameters/P'}
      responses:
        "200":
          description: ok
          headers: {X-H: {schema: {$ref: '#/components/schemas/Cycle1'}}}
          content:
            application/json:
              schema:
                type: object
                properties:
                  good: {$ref: '#/components/schemas/Good'}
                  bad: {$ref: '#/components/schemas/Bad'}
        default: {$ref: '#/components/responses/R'}
      callbacks:
        cb:
          '{$request.body#/url}':
            post:
              requestBody: {content: {application/json: {schema: {allOf: [{$ref: '#/components/schemas/Good'}, {$ref: '#/components/schemas/Deep'}]}}}}
              responses: {"200": {description: ok}}
  /a/{y}:
    get:
      responses: {"200": {description: ok, content: {application/json: {schema: {oneOf: [{$ref: '#/components/schemas/Alias'}]}}}}}
  /b:
    post:
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Cycle2'}}}}
      responses: {"200": {description: ok, content: {application/json: {schema: {type: array}}}}}
  /c/{missing}:
    get:
      responses: {"200": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Good'}}}}}
components:
  parameters:
    P: {name: p, in: query, schema: {$ref: '#/components/schemas/Deep'}}
  responses:
    R: {description: r, content: {application/json: {schema: {$ref: '#/components/schemas/Items'}}}}
  schemas:
    Good: {type: object, properties: {n: {type: integer}, self: {$ref: '#/components/schemas/Good'}}}
    Bad: {type: strin}
    Alias: {$ref: '#/components/schemas/Bad'}
    Deep: {type: object, properties: {a: {type: object, properties: {b: {anyOf: [{type: string}, {$ref: '#/components/schemas/Items'}]}}}}}
    Items: {type: array}
    Cycle1: {type: object, properties: {next: {$ref: '#/components/schemas/Cycle2'}}}
    Cycle2: {type: object, required: [a, a], properties: {back: {$ref: '#/components/schemas/Cycle1'}}}
    "bad name": {type: object, properties: {x: {$ref: '#/components/schemas/Bad'}}}
`

// validateOnce must find exactly what one Validate over the whole document finds, on
// documents built to have component errors everywhere, on the error corpora and on every
// shared spec.
func TestValidateOnceFindsWhatValidateFinds(t *testing.T) {
	for _, version := range []string{"3.0.3", "3.1.0"} {
		text := strings.Replace(componentErrorsSpec, "3.0.3", version, 1)
		doc, err := openapi3.NewLoader().LoadFromData([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if n := sameAsValidate(t, version, doc, validateOpts); n < 10 {
			t.Errorf("%s: only %d findings: the spec should have errors in many places", version, n)
		}
	}

	specs, _ := corpus.Find() // when absent, its pattern matches nothing
	var files []string
	for _, pattern := range []string{
		"../../../testdata/errors/*.*", "../../../testdata/hostile/malformed/*",
		"../../../testdata/hostile/*.yaml", "../../../testdata/golden/*/*.*", filepath.Join(specs, "*.*"),
	} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	tried := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".err") || strings.HasSuffix(f, ".md") || strings.HasSuffix(f, ".go") || strings.HasSuffix(f, ".txt") {
			continue
		}
		if fi, err := os.Stat(f); err == nil && fi.Size() > 1<<20 && os.Getenv(longtest.Env) != "1" {
			continue // the large public specs: with the slow suites
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		loader := openapi3.NewLoader()
		loader.IncludeOrigin = true
		doc, err := loader.LoadFromData(data)
		if err != nil || doc == nil {
			continue // not an OpenAPI 3 document that loads
		}
		tried++
		sameAsValidate(t, f, doc, loadOpts)
	}
	if tried < 50 {
		t.Errorf("only %d documents compared: the corpora are missing", tried)
	}
}

// ringSpec is a document whose n component schemas form one cycle of $refs, Ring0 to
// Ring1 and so on back to Ring0; the schemas of bad declare a required name twice.
func ringSpec(n int, bad ...int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /r:\n    get:\n")
	b.WriteString("      responses: {\"200\": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Ring0'}}}}}\n")
	b.WriteString("components:\n  schemas:\n")
	for i := range n {
		required := ""
		if slices.Contains(bad, i) {
			required = ", required: [a, a]"
		}
		fmt.Fprintf(&b, "    Ring%d: {type: object%s, properties: {a: {type: string}, n: {$ref: '#/components/schemas/Ring%d'}}}\n", i, required, (i+1)%n)
	}
	return b.String()
}

// Components that lead to each other are found to be valid by validating each once, and
// an invalid group of them reports what one Validate does.
func TestValidateOnceCycles(t *testing.T) {
	for _, tc := range []struct {
		name string
		bad  []int
	}{{"valid", nil}, {"one invalid", []int{17}}, {"two invalid", []int{3, 30}}} {
		doc, err := openapi3.NewLoader().LoadFromData([]byte(ringSpec(40, tc.bad...)))
		if err != nil {
			t.Fatal(err)
		}
		n := sameAsValidate(t, tc.name, doc, validateOpts)
		if tc.bad != nil && n < 40 {
			t.Errorf("%s: %d findings, want one for each of the 40 components", tc.name, n)
		}
	}
}

// Validating a cycle of component schemas walks each schema of it a bounded number of
// times, valid or not: the work, counted in allocations, doubles when the cycle does. In
// an invalid cycle too large to be validated from each member, each member reports only
// what is found in it.
func TestValidateOnceCyclesLinear(t *testing.T) {
	allocs := func(n int, bad ...int) (float64, []error) {
		doc, err := openapi3.NewLoader().LoadFromData([]byte(ringSpec(n, bad...)))
		if err != nil {
			t.Fatal(err)
		}
		var found []error
		return testing.AllocsPerRun(1, func() { found = validateOnce(doc, loadOpts...) }), found
	}
	const n = 800 // 800 members times 2,400 schemas: past maxGroupWalk
	for _, bad := range [][]int{nil, {n / 2}} {
		small, _ := allocs(n, bad...)
		large, found := allocs(2*n, bad...)
		t.Logf("bad %v: %.0f allocations for %d components, %.0f for %d", bad, small, n, large, 2*n)
		if large > 3*small {
			t.Errorf("bad %v: %.0f allocations for %d components, %.0f for %d: more than linear", bad, small, n, large, 2*n)
		}
		var want []string
		if bad != nil {
			want = []string{fmt.Sprintf(`invalid components: schema "Ring%d": duplicate field "a" in required`, bad[0])}
		}
		if got := findings(found...); !slices.Equal(got, want) {
			t.Errorf("bad %v: found %q, want %q", bad, got, want)
		}
	}
}
