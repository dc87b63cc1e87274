package conformance

import (
	"regexp"
	"slices"
	"strings"
)

// exclusion covers failures that come from a limit of the validator, not from the
// client: an operation whose every failure is covered counts as excluded, with the
// reason, instead of failing. Each entry must cover at least one failure of a run that
// checks its spec (for Spec "*", of a RETRYGEN_LONG=1 run); one that covers nothing
// fails the suite, so the list cannot outlive what it excuses.
type exclusion struct {
	Spec    string // the spec as the report names it, or "*" for any
	Op      string // e.g. "GET /pets"; "*" for any, "*?beta=true" for any that ends so
	Match   string // a regular expression that finds the failure messages it covers
	Reason  string
	matched int
	re      *regexp.Regexp
}

func init() {
	for _, e := range exclusions {
		e.re = regexp.MustCompile(e.Match)
	}
}

// A multipart part of type application/sdp, which the client sends as the spec's encoding
// says: kin-openapi has no decoder for that media type.
const (
	sdpMatch  = `unsupported content type "application/sdp"`
	sdpReason = "a multipart part whose encoding is application/sdp: kin-openapi's request decoder has no decoder for that media type"
)

// exclusions are the validator's limits met in the corpus.
var exclusions = []*exclusion{
	{
		Spec: "testdata/golden/hostile/spec.yaml", Op: `GET /pet/{petId}/x"+os.Exit(1)+"`, Match: `the router finds no operation`,
		Reason: routerLiteral,
	},
	{
		Spec: "testdata/golden/hostile/spec.yaml", Op: "GET /q/'+str(exec(1))+'/`{id}`", Match: `the router finds no operation`,
		Reason: routerLiteral,
	},
	{
		Spec: "testdata/golden/requests/spec.yaml", Op: "POST /beta?mode=compact", Match: `the router finds no operation`,
		Reason: routerQueryKey,
	},
	{
		Spec: "testdata/golden/semantics/spec.yaml", Op: "*", Match: `missing property '(id|password)'`,
		Reason: "kin-openapi's JSON Schema 2020 validator (OpenAPI 3.1) requires a required readOnly property in a request and a required writeOnly one in a response, which OpenAPI says it must not; no sample passes it",
	},
	{Spec: "specs/openai.yaml", Op: "POST /realtime/calls", Match: sdpMatch, Reason: sdpReason},
	{Spec: "specs/history/openai-2026-08-10.yaml", Op: "POST /realtime/calls", Match: sdpMatch, Reason: sdpReason},
	{Spec: "specs/openai.yaml", Op: "*?beta=true", Match: `is routed to`, Reason: routerQueryKey},
	{Spec: "specs/history/openai-2026-08-10.yaml", Op: "*?beta=true", Match: `is routed to`, Reason: routerQueryKey},
	{
		Spec: "specs/stripe.yaml", Op: "*", Match: `in query has an error: invalid serialization method: style="deepObject", explode=true`,
		Reason: "an array parameter in deepObject style (expand[]=...), which OpenAPI defines for objects only: kin-openapi refuses to decode it",
	},
	{
		Spec: "specs/stripe.yaml", Op: "*", Match: `failed to decode request body: unsupported schema of request body's property`,
		Reason: "kin-openapi's form-urlencoded decoder cannot read a property that is an array of objects or a union",
	},
	{
		Spec: "specs/stripe.yaml", Op: "*",
		Match:  `request body has an error: doesn't match schema: Error at "/(enabled_events|features|permissions|supported_currencies|values)": property "\w+" is missing`,
		Reason: "a required array property in deepObject style (name[0]=v; OpenAPI defines deepObject for objects only): kin-openapi's form decoder does not read it, and finds it missing",
	},
	{Spec: "specs/openai.yaml", Op: "*", Match: multipartUnionMatch, Reason: multipartUnion},
	{Spec: "specs/history/openai-2026-08-10.yaml", Op: "*", Match: multipartUnionMatch, Reason: multipartUnion},
	{
		Spec: "specs/squadcast-31.yaml", Op: "POST /v3/escalation-policies/{escalationPolicyID}", Match: `request body has an error: doesn't match schema .*: value must be an object`,
		Reason: "the body is text/plain with an object schema: kin-openapi reads a text/plain body as a string, so no body validates",
	},
	{
		Spec: "specs/squadcast-31.yaml", Op: "*", Match: `parameter "authorization" in header has an error: value is required but missing`,
		Reason: "OpenAPI says a header parameter named Authorization is ignored, and the generator leaves it out; kin-openapi still requires it",
	},
	{
		Spec: "specs/superset.json", Op: "GET /api/v1/database/{pk}/select_star/{table_name}/", Match: `parameter "schema_name" in path has an error: value is required but missing`,
		Reason: "the spec declares a path parameter its template does not use; the generator ignores it, kin-openapi requires it",
	},
	{
		Spec: "specs/dub.json", Op: "POST /partners", Match: `error parsing regexp: invalid or unsupported Perl syntax`,
		Reason: "the body schema's pattern uses a lookahead, which Go's regexp, and so kin-openapi, cannot compile: no value validates",
	},
}

const (
	multipartUnionMatch = `request body has an error: doesn't match schema #/components/schemas/Create(Transcription|Translation|ImageVariation)Request: .*"/model(/model)?": (doesn't match any schema from "anyOf"|at '/model': got null, want string)`
	multipartUnion      = "the multipart part \"model\" is a union (anyOf of strings): kin-openapi's multipart decoder reads a part whose schema has no type as null"
	routerLiteral       = "kin-openapi's router compares the template's literal text with the request's escaped path, " +
		"so a template holding characters a URL must escape (a quote, a backquote) matches no request"
	routerQueryKey = "the path key holds a query string, which kin-openapi's router cannot match: it routes the request " +
		"by its path alone, to the operation without the query, or to none"
)

func (e *exclusion) covers(r *specRun, o *opRun, msg string) bool {
	op := e.Op == o.Key || strings.HasPrefix(e.Op, "*") && strings.HasSuffix(o.Key, e.Op[1:])
	return (e.Spec == "*" || e.Spec == r.File.Name) && op && e.re.MatchString(msg)
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
