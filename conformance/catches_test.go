package conformance

import (
	"github.com/retrygen/retrygen/internal/longtest"
	"regexp"
	"testing"
)

// TestSuiteCatchesBrokenClients runs the suite on copies of the petstore client, each
// broken in one way, and checks that it reports the broken operation with the cause
// that fits. The unbroken client passes every operation (TestConformance and
// REPORT.md), so each failure here comes from the change.
func TestSuiteCatchesBrokenClients(t *testing.T) {
	longtest.NoRace(t)
	t.Parallel()
	mutations := []struct {
		name     string
		old, new string // a regular expression, replaced wherever it matches, and its replacement
		op       string // the operation that must fail
		cause    string
	}{
		{
			name: "query parameter of the wrong type",
			old:  `r\.QueryParam\("limit", wire\.QueryForm, params\.Limit\)`,
			new:  `r.QueryParam("limit", wire.QueryForm, "many")`,
			op:   "GET /pets", cause: "the validator refuses a parameter",
		},
		{
			name: "wrong path",
			old:  `r\.Path\("/pets/search"\)`,
			new:  `r.Path("/pets/serch")`,
			op:   "POST /pets/search", cause: "the request goes to another operation or none",
		},
		{
			name: "body without its required properties",
			old:  `(?s)(func \(c \*Client\) CreatePet\(.*?)r\.JSONBody\("application/json", body\)`,
			new:  `${1}r.JSONBody("application/json", struct{}{})`,
			op:   "POST /pets", cause: "the validator refuses the request body",
		},
		{
			name: "result type that does not fit the response",
			old:  `(?m)^(\tID\s+)int64(\s)`,
			new:  `${1}bool$2`,
			op:   "GET /pets/{petId}", cause: "a 2xx response does not decode",
		},
		{
			name: "error model dropped",
			old:  `(?s)(func \(c \*Client\) DeletePet\(.*?)wire\.Model\[Problem\]`,
			new:  `${1}func(int) any { return nil }`,
			op:   "DELETE /pets/{petId}", cause: "an error status does not reach the caller as the typed error",
		},
	}
	var runs []*specRun
	for i, m := range mutations {
		f := specFile{Name: m.name, Path: "../examples/petstore/petstore.yaml", Pkg: "broken" + string(rune('a'+i))}
		r := prepare(f)
		if r.Fail != "" {
			t.Fatalf("%s: %s", m.name, r.Fail)
		}
		re := regexp.MustCompile(m.old)
		if !re.Match(r.src) {
			t.Fatalf("%s: the generated petstore client no longer holds %s: update the mutation", m.name, m.old)
		}
		r.src = re.ReplaceAll(r.src, []byte(m.new))
		runs = append(runs, r)
	}
	records := buildAndRun(t, runs)
	for i, r := range runs {
		m := mutations[i]
		r.judge(records[r.File.Pkg])
		if r.Fail != "" {
			t.Errorf("%s: %s", m.name, r.Fail)
			continue
		}
		found := false
		for _, o := range r.Ops {
			if o.Key != m.op {
				continue
			}
			found = true
			if len(o.Failures) == 0 {
				t.Errorf("%s: %s passes", m.name, m.op)
				continue
			}
			if got := causeOf(r.firstFailure(o)); got != m.cause {
				t.Errorf("%s: %s fails with %q (cause %q), want cause %q", m.name, m.op, r.firstFailure(o), got, m.cause)
			}
		}
		if !found {
			t.Errorf("%s: the petstore spec has no operation %s", m.name, m.op)
		}
	}
}
