package conformance

import (
	"slices"
	"strings"
)

// exclusion covers failures that come from a limit of the validator, not from the
// client: an operation whose every failure is covered counts as excluded, with the
// reason, instead of failing. Each entry must cover at least one failure of a run that
// checks its spec (for Spec "*", of a RETRYGEN_LONG=1 run); one that covers nothing
// fails the suite, so the list cannot outlive what it excuses.
type exclusion struct {
	Spec     string // the spec as the report names it, or "*" for any
	Op       string // e.g. "GET /pets", or "*" for any
	Contains string // a piece of the failure message it covers
	Reason   string
	matched  int
}

// exclusions are the validator's limits met in the corpus.
var exclusions = []*exclusion{
	{
		Spec: "testdata/golden/hostile/spec.yaml", Op: `GET /pet/{petId}/x"+os.Exit(1)+"`, Contains: "the router finds no operation",
		Reason: routerLiteral,
	},
	{
		Spec: "testdata/golden/hostile/spec.yaml", Op: "GET /q/'+str(exec(1))+'/`{id}`", Contains: "the router finds no operation",
		Reason: routerLiteral,
	},
	{
		Spec: "testdata/golden/requests/spec.yaml", Op: "POST /beta?mode=compact", Contains: "the router finds no operation",
		Reason: routerQueryKey,
	},
}

const (
	routerLiteral = "kin-openapi's router compares the template's literal text with the request's escaped path, " +
		"so a template holding characters a URL must escape (a quote, a backquote) matches no request"
	routerQueryKey = "the path key holds a query string; kin-openapi's router matches the whole key against the " +
		"request's path, which never holds one, so it finds no operation for any request"
)

func (e *exclusion) covers(r *specRun, o *opRun, msg string) bool {
	return (e.Spec == "*" || e.Spec == r.File.Name) && (e.Op == "*" || e.Op == o.Key) && strings.Contains(msg, e.Contains)
}

// applyExclusions marks the operations whose failures the list covers, and returns the
// entries that should have covered something in this run and did not.
func applyExclusions(runs []*specRun) []*exclusion {
	for _, e := range exclusions {
		e.matched = 0
	}
	ran := map[string]bool{}
	for _, r := range runs {
		ran[r.File.Name] = true
		for _, o := range r.Ops {
			o.Excluded = nil
			if len(o.Failures) == 0 {
				continue
			}
			var first *exclusion
			all := true
			for _, msg := range o.Failures {
				i := slices.IndexFunc(exclusions, func(e *exclusion) bool { return e.covers(r, o, msg) })
				if i < 0 {
					all = false
					continue
				}
				exclusions[i].matched++
				if first == nil {
					first = exclusions[i]
				}
			}
			if all {
				o.Excluded = first
			}
		}
	}
	var unmatched []*exclusion
	for _, e := range exclusions {
		if e.matched > 0 {
			continue
		}
		if e.Spec == "*" && long() || ran[e.Spec] {
			unmatched = append(unmatched, e)
		}
	}
	return unmatched
}
