package policy_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/retrygen/retrygen/gen"
	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/internal/spectest"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/runtime"
)

// loadSpec writes text to a temporary spec file and loads it.
func loadSpec(t *testing.T, name, text string) (*gen.Spec, error) {
	t.Helper()
	return gen.Load(spectest.Write(t, name, text), gen.LoadOptions{})
}

// policies loads a spec and returns each operation's policy by "METHOD path".
func policies(t *testing.T, text string) map[string]model.Policy {
	t.Helper()
	s, err := loadSpec(t, "api.yaml", text)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	ops := s.API.Operations
	out := map[string]model.Policy{}
	for _, op := range ops {
		out[op.Method+" "+op.Path] = op.Policy
	}
	return out
}

// spec builds a small OpenAPI 3.0 document: top is added at the root, paths under paths.
func spec(top, paths string) string {
	return "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\n" + top + "paths:\n" + paths
}

const ok = "      responses: {\"200\": {description: ok}}\n"

// op writes one operation with optional extra lines (indented for an operation).
func op(method string, extra ...string) string {
	s := "    " + method + ":\n"
	for _, e := range extra {
		s += "      " + e + "\n"
	}
	return s + ok
}

// sources builds a Sources map: every field from def, then the listed overrides.
func sources(def model.Source, overrides map[string]model.Source) map[string]model.Source {
	m := map[string]model.Source{"idempotencyKey": model.FromDefault}
	for _, f := range policy.Fields {
		m[f.Name] = def
	}
	for k, v := range overrides {
		m[k] = v
	}
	return m
}

// want builds the default policy with changes applied.
func want(change func(p *model.Policy)) model.Policy {
	p := policy.Default()
	change(&p)
	return p
}

func TestPolicyDerivation(t *testing.T) {
	tests := []struct {
		name string
		spec string
		want map[string]model.Policy
	}{
		{
			name: "safe methods are retried with the defaults",
			spec: spec("", "  /pets:\n"+op("get")+op("head")+op("options")+op("trace")),
			want: map[string]model.Policy{
				"GET /pets":     want(func(p *model.Policy) { safe(p, "GET") }),
				"HEAD /pets":    want(func(p *model.Policy) { safe(p, "HEAD") }),
				"OPTIONS /pets": want(func(p *model.Policy) { safe(p, "OPTIONS") }),
				"TRACE /pets":   want(func(p *model.Policy) { safe(p, "TRACE") }),
			},
		},
		{
			name: "PUT and DELETE are idempotent; x-idempotent: false opts out",
			spec: spec("", "  /a:\n"+op("put")+op("delete", "x-idempotent: false")),
			want: map[string]model.Policy{
				"PUT /a": want(func(p *model.Policy) {
					p.Retry, p.Idempotent, p.Reason = true, true, "PUT is idempotent (RFC 9110 §9.2.2)"
				}),
				"DELETE /a": want(func(p *model.Policy) {
					p.Reason = "DELETE opted out with x-idempotent: false; only attempts that could not connect, and answers the server says to retry, are retried"
				}),
			},
		},
		{
			// The document's fields still shape the retries of attempts that could not
			// connect, and those of a call made retry-safe with a call option.
			name: "POST and PATCH without a key are not retried; the document's x-retry fields still apply",
			spec: spec("x-retry: {maxAttempts: 6, jitter: none}\n", "  /a:\n"+op("post")+op("patch")),
			want: map[string]model.Policy{
				"POST /a": want(func(p *model.Policy) {
					p.Reason, p.MaxAttempts, p.Jitter = notIdempotent("POST"), 6, "none"
					p.Sources = sources(model.FromDefault, map[string]model.Source{"maxAttempts": model.FromDocument, "jitter": model.FromDocument})
				}),
				"PATCH /a": want(func(p *model.Policy) {
					p.Reason, p.MaxAttempts, p.Jitter = notIdempotent("PATCH"), 6, "none"
					p.Sources = sources(model.FromDefault, map[string]model.Source{"maxAttempts": model.FromDocument, "jitter": model.FromDocument})
				}),
			},
		},
		{
			name: "x-idempotency-key on the operation: true means Idempotency-Key",
			spec: spec("", "  /orders:\n"+op("post", "x-idempotency-key: true", "x-retry: {maxAttempts: 2}")),
			want: map[string]model.Policy{
				"POST /orders": want(func(p *model.Policy) {
					p.Retry, p.Idempotent, p.IdempotencyKey, p.MaxAttempts = true, true, "Idempotency-Key", 2
					p.Reason = `POST sends an idempotency key in "Idempotency-Key" (x-idempotency-key on the operation)`
					p.Sources = sources(model.FromDefault, map[string]model.Source{"idempotencyKey": model.FromOperation, "maxAttempts": model.FromOperation})
				}),
			},
		},
		{
			name: "a document x-idempotency-key applies to POST and PATCH, not to idempotent methods",
			spec: spec("x-idempotency-key: X-Request-Key\n", "  /a:\n"+op("get")+op("put")+op("patch")),
			want: map[string]model.Policy{
				"GET /a": want(func(p *model.Policy) { safe(p, "GET") }),
				"PUT /a": want(func(p *model.Policy) {
					p.Retry, p.Idempotent, p.Reason = true, true, "PUT is idempotent (RFC 9110 §9.2.2)"
				}),
				"PATCH /a": want(func(p *model.Policy) {
					p.Retry, p.Idempotent, p.IdempotencyKey = true, true, "X-Request-Key"
					p.Reason = `PATCH sends an idempotency key in "X-Request-Key" (x-idempotency-key on the document)`
					p.Sources["idempotencyKey"] = model.FromDocument
				}),
			},
		},
		{
			name: "the operation's x-idempotency-key: false turns off the path's",
			spec: spec("", "  /a:\n    x-idempotency-key: true\n"+op("post", "x-idempotency-key: false")+op("patch")),
			want: map[string]model.Policy{
				"POST /a": want(func(p *model.Policy) {
					p.Reason = notIdempotent("POST")
					p.Sources["idempotencyKey"] = model.FromOperation
				}),
				"PATCH /a": want(func(p *model.Policy) {
					p.Retry, p.Idempotent, p.IdempotencyKey = true, true, "Idempotency-Key"
					p.Reason = `PATCH sends an idempotency key in "Idempotency-Key" (x-idempotency-key on the path)`
					p.Sources["idempotencyKey"] = model.FromPath
				}),
			},
		},
		{
			name: "a declared Idempotency-Key header parameter, any case, on the operation or the path",
			spec: spec("", "  /a:\n"+op("post", "parameters: [{name: idempotency-KEY, in: header, schema: {type: string}}]")+
				"  /b:\n    parameters: [{name: Idempotency-Key, in: header, schema: {type: string}}]\n"+op("post")+
				"  /c:\n"+op("post", "parameters: [{name: Idempotency-Key, in: query, schema: {type: string}}]")),
			want: map[string]model.Policy{
				"POST /a": want(func(p *model.Policy) {
					p.Retry, p.Idempotent, p.IdempotencyKey = true, true, "idempotency-KEY"
					p.Reason = `POST sends an idempotency key in "idempotency-KEY" (declared header parameter)`
					p.Sources["idempotencyKey"] = model.FromOperation
				}),
				"POST /b": want(func(p *model.Policy) {
					p.Retry, p.Idempotent, p.IdempotencyKey = true, true, "Idempotency-Key"
					p.Reason = `POST sends an idempotency key in "Idempotency-Key" (declared header parameter on the path)`
					p.Sources["idempotencyKey"] = model.FromPath
				}),
				"POST /c": want(func(p *model.Policy) { p.Reason = notIdempotent("POST") }),
			},
		},
		{
			name: "x-idempotent: true makes a POST retryable without a key",
			spec: spec("", "  /search:\n"+op("post", "x-idempotent: true", "x-retry: {statusCodes: [503]}")),
			want: map[string]model.Policy{
				"POST /search": want(func(p *model.Policy) {
					p.Retry, p.Idempotent = true, true
					p.Reason = "POST is declared idempotent (x-idempotent: true)"
					p.StatusCodes = []runtime.StatusCode{503}
					p.Sources["statusCodes"] = model.FromOperation
				}),
			},
		},
		{
			name: "x-retry merges field by field: default < document < path < operation",
			spec: spec("x-retry: {maxAttempts: 3, initialDelay: 100ms, jitter: equal}\n",
				"  /a:\n    x-retry: {maxAttempts: 5, maxDelay: 2s}\n"+op("get", "x-retry: {initialDelay: 1s, retryAfter: false}")+op("put")),
			want: map[string]model.Policy{
				"GET /a": want(func(p *model.Policy) {
					safe(p, "GET")
					p.MaxAttempts, p.InitialDelay, p.MaxDelay, p.Jitter, p.RetryAfter = 5, time.Second, 2*time.Second, "equal", false
					p.Sources = sources(model.FromDefault, map[string]model.Source{
						"maxAttempts": model.FromPath, "initialDelay": model.FromOperation, "maxDelay": model.FromPath,
						"jitter": model.FromDocument, "retryAfter": model.FromOperation,
					})
				}),
				"PUT /a": want(func(p *model.Policy) {
					p.Retry, p.Idempotent, p.Reason = true, true, "PUT is idempotent (RFC 9110 §9.2.2)"
					p.MaxAttempts, p.InitialDelay, p.MaxDelay, p.Jitter = 5, 100*time.Millisecond, 2*time.Second, "equal"
					p.Sources = sources(model.FromDefault, map[string]model.Source{
						"maxAttempts": model.FromPath, "initialDelay": model.FromDocument, "maxDelay": model.FromPath, "jitter": model.FromDocument,
					})
				}),
			},
		},
		{
			name: "every x-retry field is read",
			spec: spec("", "  /a:\n"+op("get", "x-retry:",
				"  maxAttempts: 7",
				"  initialDelay: 250ms",
				"  maxDelay: 20s",
				"  multiplier: 1.5",
				"  jitter: decorrelated",
				`  statusCodes: [429, "5xx", 429, "503"]`,
				"  connectionErrors: false",
				"  attemptTimeout: 3s",
				"  maxElapsed: 1m",
				"  retryAfter: false",
				"  maxRetryAfter: 0s",
				"  serverSignals: false")),
			want: map[string]model.Policy{
				"GET /a": want(func(p *model.Policy) {
					safe(p, "GET")
					p.MaxAttempts, p.InitialDelay, p.MaxDelay, p.Multiplier, p.Jitter = 7, 250*time.Millisecond, 20*time.Second, 1.5, "decorrelated"
					p.StatusCodes, p.ConnectionErrors, p.AttemptTimeout, p.MaxElapsed = []runtime.StatusCode{429, runtime.Class5XX, 503}, false, 3*time.Second, time.Minute
					p.RetryAfter, p.MaxRetryAfter, p.ServerSignals = false, 0, false
					p.Sources = sources(model.FromOperation, nil)
				}),
			},
		},
		{
			name: "x-retry: false means one attempt, on every operation below it",
			spec: spec("x-retry: false\n", "  /a:\n"+op("get")+op("post")+"  /b:\n"+op("get", "x-retry: {maxAttempts: 3}")),
			want: map[string]model.Policy{
				"GET /a": want(func(p *model.Policy) {
					p.Idempotent, p.MaxAttempts = true, 1
					p.Reason = "GET is safe (RFC 9110 §9.2.1); retries turned off (maxAttempts 1, from document)"
					p.Sources["maxAttempts"] = model.FromDocument
				}),
				"POST /a": want(func(p *model.Policy) {
					p.MaxAttempts = 1
					p.Reason = notIdempotentOff("POST")
					p.Sources["maxAttempts"] = model.FromDocument
				}),
				"GET /b": want(func(p *model.Policy) {
					safe(p, "GET")
					p.MaxAttempts = 3
					p.Sources["maxAttempts"] = model.FromOperation
				}),
			},
		},
		{
			name: "serverSignals merges like the other fields",
			spec: spec("x-retry: {serverSignals: false}\n", "  /a:\n"+op("get")+"  /b:\n    x-retry: {serverSignals: true}\n"+op("get")+op("put", "x-retry: {serverSignals: false}")),
			want: map[string]model.Policy{
				"GET /a": want(func(p *model.Policy) {
					safe(p, "GET")
					p.ServerSignals = false
					p.Sources["serverSignals"] = model.FromDocument
				}),
				"GET /b": want(func(p *model.Policy) {
					safe(p, "GET")
					p.Sources["serverSignals"] = model.FromPath
				}),
				"PUT /b": want(func(p *model.Policy) {
					p.Retry, p.Idempotent, p.Reason = true, true, "PUT is idempotent (RFC 9110 §9.2.2)"
					p.ServerSignals = false
					p.Sources["serverSignals"] = model.FromOperation
				}),
			},
		},
		{
			// The server's word is what may make such an operation retried, so the
			// operation may say whether to follow it, and nothing else.
			name: "an x-retry of serverSignals alone is allowed on a POST without a key",
			spec: spec("x-retry: {serverSignals: false}\n", "  /a:\n"+op("post", "x-retry: {serverSignals: true}")+op("patch")+
				"  /b:\n"+op("post", "x-retry: {serverSignals: false}")),
			want: map[string]model.Policy{
				"POST /a": want(func(p *model.Policy) {
					p.Reason = notIdempotent("POST")
					p.Sources["serverSignals"] = model.FromOperation
				}),
				"PATCH /a": want(func(p *model.Policy) {
					p.Reason, p.ServerSignals = notIdempotentOff("PATCH"), false
					p.Sources["serverSignals"] = model.FromDocument
				}),
				"POST /b": want(func(p *model.Policy) {
					p.Reason, p.ServerSignals = notIdempotentOff("POST"), false
					p.Sources["serverSignals"] = model.FromOperation
				}),
			},
		},
		{
			name: "x-retry: false on a POST without a key is allowed",
			spec: spec("", "  /a:\n"+op("post", "x-retry: false")),
			want: map[string]model.Policy{
				"POST /a": want(func(p *model.Policy) {
					p.MaxAttempts = 1
					p.Reason = notIdempotentOff("POST")
					p.Sources["maxAttempts"] = model.FromOperation
				}),
			},
		},
		{
			name: "x-speakeasy-retries maps to x-retry fields",
			spec: spec("x-speakeasy-retries:\n  strategy: backoff\n  backoff: {initialInterval: 500, maxInterval: 60000, maxElapsedTime: 3600000, exponent: 1.5}\n"+
				"  statusCodes: [\"5XX\", 429]\n  retryConnectionErrors: false\n", "  /a:\n"+op("get")),
			want: map[string]model.Policy{
				"GET /a": want(func(p *model.Policy) {
					safe(p, "GET")
					p.InitialDelay, p.MaxDelay, p.MaxElapsed, p.Multiplier = 500*time.Millisecond, time.Minute, time.Hour, 1.5
					p.StatusCodes, p.ConnectionErrors = []runtime.StatusCode{runtime.Class5XX, 429}, false
					p.Sources = sources(model.FromDefault, map[string]model.Source{
						"initialDelay": model.FromDocument, "maxDelay": model.FromDocument, "maxElapsed": model.FromDocument,
						"multiplier": model.FromDocument, "statusCodes": model.FromDocument, "connectionErrors": model.FromDocument,
					})
				}),
			},
		},
		{
			name: "x-retry wins over x-speakeasy-retries on the same level, field by field",
			spec: spec("", "  /a:\n"+op("get",
				"x-speakeasy-retries: {strategy: backoff, backoff: {initialInterval: 100, maxInterval: 5000}, statusCodes: [503]}",
				"x-retry: {initialDelay: 1s, maxAttempts: 2}")),
			want: map[string]model.Policy{
				"GET /a": want(func(p *model.Policy) {
					safe(p, "GET")
					p.InitialDelay, p.MaxDelay, p.StatusCodes, p.MaxAttempts = time.Second, 5*time.Second, []runtime.StatusCode{503}, 2
					p.Sources = sources(model.FromDefault, map[string]model.Source{
						"initialDelay": model.FromOperation, "maxDelay": model.FromOperation,
						"statusCodes": model.FromOperation, "maxAttempts": model.FromOperation,
					})
				}),
			},
		},
		{
			name: "x-speakeasy-retries strategy none turns retries off",
			spec: spec("", "  /a:\n    x-speakeasy-retries: {strategy: none}\n"+op("get")),
			want: map[string]model.Policy{
				"GET /a": want(func(p *model.Policy) {
					p.Idempotent, p.MaxAttempts = true, 1
					p.Reason = "GET is safe (RFC 9110 §9.2.1); retries turned off (maxAttempts 1, from path)"
					p.Sources["maxAttempts"] = model.FromPath
				}),
			},
		},
		{
			name: "durations may be written 0",
			spec: spec("", "  /a:\n"+op("get", "x-retry: {attemptTimeout: 0, maxElapsed: 0s}")),
			want: map[string]model.Policy{
				"GET /a": want(func(p *model.Policy) {
					safe(p, "GET")
					p.Sources["attemptTimeout"], p.Sources["maxElapsed"] = model.FromOperation, model.FromOperation
				}),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := policies(t, tt.spec)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("policies differ (-want +got):\n%s", diff)
			}
		})
	}
}

// safe sets what the method rules give a safe method with no extensions.
func safe(p *model.Policy, method string) {
	p.Retry, p.Idempotent = true, true
	p.Reason = method + " is safe (RFC 9110 §9.2.1)"
}

// notIdempotentOff is notIdempotent with maxAttempts 1, where the server's word can retry
// nothing.
func notIdempotentOff(method string) string {
	return method + " is not idempotent and has no idempotency key (RFC 9110 §9.2.2); only attempts that could not connect are retried"
}

func notIdempotent(method string) string {
	return method + " is not idempotent and has no idempotency key (RFC 9110 §9.2.2); only attempts that could not connect, and answers the server says to retry, are retried"
}

func TestPolicyFromJSONAndSwagger(t *testing.T) {
	jsonSpec := `{"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
		"x-retry": {"maxAttempts": 3, "multiplier": 1.5, "statusCodes": [503, "4xx"]},
		"paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}}}`
	s, err := loadSpec(t, "api.json", jsonSpec)
	if err != nil {
		t.Fatal(err)
	}
	ops := s.API.Operations
	if p := ops[0].Policy; p.MaxAttempts != 3 || p.Multiplier != 1.5 || !cmp.Equal(p.StatusCodes, []runtime.StatusCode{503, runtime.Class4XX}) {
		t.Errorf("JSON spec: got %+v", p)
	}

	swagger := `swagger: "2.0"
info: {title: T, version: "1"}
x-retry: {maxAttempts: 2}
paths:
  /orders:
    post:
      operationId: createOrder
      x-idempotency-key: true
      responses: {"201": {description: created}}
`
	s, err = loadSpec(t, "swagger.yaml", swagger)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != "2.0" {
		t.Errorf("Version = %q, want 2.0", s.Version)
	}
	ops = s.API.Operations
	if p := ops[0].Policy; !p.Retry || p.MaxAttempts != 2 || p.IdempotencyKey != "Idempotency-Key" {
		t.Errorf("Swagger 2.0 spec: got %+v", p)
	}
}

func TestSwaggerErrorsAreLocated(t *testing.T) {
	swagger := `swagger: "2.0"
info: {title: T, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      x-retry:
        jitter: sometimes
      responses: {"200": {description: ok}}
`
	_, err := loadSpec(t, "swagger.yaml", swagger)
	if err == nil || !strings.Contains(err.Error(), "swagger.yaml:8:9: GET /pets (listPets): x-retry.jitter") {
		t.Errorf("got %v, want the error at swagger.yaml:8:9", err)
	}
}

func TestOperationOrder(t *testing.T) {
	s, err := loadSpec(t, "api.yaml", spec("", "  /b:\n"+op("patch")+op("trace")+op("get")+op("delete")+
		"  /a:\n"+op("head")+op("options")+op("post")+op("put")))
	if err != nil {
		t.Fatal(err)
	}
	ops := s.API.Operations
	var got []string
	for _, op := range ops {
		got = append(got, op.Method+" "+op.Path)
	}
	want := []string{"PUT /a", "POST /a", "OPTIONS /a", "HEAD /a", "GET /b", "DELETE /b", "PATCH /b", "TRACE /b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order differs (-want +got):\n%s", diff)
	}
}

func TestOperationFields(t *testing.T) {
	s, err := loadSpec(t, "api.yaml", spec("", "  /pets:\n    get:\n      operationId: listPets\n      summary: List pets\n"+
		"      description: All of them.\n      deprecated: true\n"+ok))
	if err != nil {
		t.Fatal(err)
	}
	ops := s.API.Operations
	got := *ops[0]
	got.Policy = model.Policy{}
	want := model.Operation{Method: "GET", Path: "/pets", OperationID: "listPets", Summary: "List pets", Description: "All of them.", Deprecated: true,
		GoName: "ListPets", PolicyVar: "policyIdempotent", PathParts: []model.PathPart{{Literal: "/pets"}}, SuccessStatuses: []string{"200"}, ResponseDocs: []model.ResponseDoc{{Status: "200", Doc: "ok"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operation differs (-want +got):\n%s", diff)
	}
}

func TestOperationLevelRetryNeedsRetryableOperation(t *testing.T) {
	for _, ext := range []string{"x-retry: {maxAttempts: 3}", "x-retry: true",
		"x-retry: {serverSignals: false, maxAttempts: 2}", "x-retry: {}"} {
		_, err := loadSpec(t, "api.yaml", spec("", "  /orders:\n"+op("post", "operationId: createOrder", ext)))
		if err == nil || !strings.Contains(err.Error(), "POST /orders (createOrder): x-") ||
			!strings.Contains(err.Error(), "fix: add x-idempotency-key: true") {
			t.Errorf("%s: got %v, want an error that says how to fix it", ext, err)
		}
	}
}

// TestDefaultPolicy pins the defaults docs/design.md documents; the other tests build on them.
func TestDefaultPolicy(t *testing.T) {
	want := model.Policy{
		MaxAttempts:      4,
		InitialDelay:     500 * time.Millisecond,
		MaxDelay:         10 * time.Second,
		Multiplier:       2,
		Jitter:           "full",
		StatusCodes:      []runtime.StatusCode{408, 429, 500, 502, 503, 504},
		ConnectionErrors: true,
		AttemptTimeout:   0,
		MaxElapsed:       0,
		RetryAfter:       true,
		MaxRetryAfter:    60 * time.Second,
		ServerSignals:    true,
		Sources: map[string]model.Source{
			"maxAttempts": "default", "initialDelay": "default", "maxDelay": "default", "multiplier": "default",
			"jitter": "default", "statusCodes": "default", "connectionErrors": "default", "attemptTimeout": "default",
			"maxElapsed": "default", "retryAfter": "default", "maxRetryAfter": "default", "serverSignals": "default",
			"idempotencyKey": "default",
		},
		Overlays: map[string]string{},
	}
	if diff := cmp.Diff(want, policy.Default()); diff != "" {
		t.Errorf("defaults differ from docs/design.md (-want +got):\n%s", diff)
	}
}

// x-speakeasy-retries never makes an operation that may not be retried retried: each
// level that asks for it gets one located warning that counts and names the operations
// concerned and says how to fix them; -strict refuses. An operation below a more
// specific level that turns retries off, or whose own x-speakeasy-retries says strategy:
// none, is not counted.
func TestSpeakeasyRetriesThatDoNotApplyAreWarned(t *testing.T) {
	text := spec("x-speakeasy-retries: {strategy: backoff, statusCodes: [5XX]}\n",
		"  /a:\n"+op("get")+op("post", "operationId: createA")+
			"  /b:\n"+op("post", "operationId: createB")+op("patch", "operationId: updateB")+
			"  /c:\n"+op("post", "operationId: createC")+
			"  /d:\n    x-retry: false\n"+op("post", "operationId: createD")+
			"  /e:\n"+op("post", "operationId: createE", "x-idempotency-key: true")+
			"  /g:\n    x-speakeasy-retries: {strategy: none}\n    x-retry: {maxAttempts: 2}\n"+op("post", "operationId: createG")+
			"  /f:\n"+op("post", "operationId: createF", "x-speakeasy-retries: {strategy: backoff}"))
	path := spectest.Write(t, "api.yaml", text)
	s, err := gen.Load(path, gen.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range s.Warnings {
		if strings.Contains(w.Msg, "x-speakeasy-retries asks") {
			got = append(got, strings.ReplaceAll(w.Error(), path, "api.yaml"))
		}
	}
	want := []string{
		"api.yaml:3:1: #/x-speakeasy-retries: x-speakeasy-retries asks to retry 4 operations that retrygen does not retry, " +
			"as they are neither idempotent nor sent with an idempotency key: POST /a (createA), POST /b (createB), PATCH /b (updateB) and 1 more\n\tfix: " +
			"where the API recognises a repeated request by a header such as Idempotency-Key, give the operations x-idempotency-key; " +
			"where repeating them is harmless, x-idempotent: true; in a spec you do not own, add them with an overlay (-overlay, see docs/cli.md, \"-overlay\")",
		"api.yaml:41:7: POST /f (createF): x-speakeasy-retries asks to retry the operation, which retrygen does not retry: " +
			"POST is not idempotent and has no idempotency key (RFC 9110 §9.2.2)",
	}
	if len(got) != 2 || got[0] != want[0] || !strings.HasPrefix(got[1], want[1]) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := gen.Load(path, gen.LoadOptions{Strict: true}); err == nil || !strings.Contains(err.Error(), "x-speakeasy-retries asks to retry 4 operations") {
		t.Errorf("strict: %v", err)
	}
}

// A value an overlay put in the spec is marked with its place in the overlay, the value
// the spec itself holds is not, and the more specific level's place wins.
func TestOverlayPlaces(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{
		"api.yaml": spec("x-retry: {jitter: equal}\n", "  /a:\n"+op("get")+op("post", "operationId: createA")+
			"  /b:\n"+op("post", "operationId: createB")),
		"o.yaml": `overlay: 1.0.0
info: {title: t, version: "1"}
actions:
  - target: $
    update:
      x-retry: {maxAttempts: 3}
  - target: $.paths.*.post
    update:
      x-idempotency-key: Idempotency-Key
  - target: $.paths['/b'].post
    update:
      x-retry: {maxAttempts: 5}
      x-idempotent: true
`,
	})
	s, err := gen.Load(filepath.Join(dir, "api.yaml"), gen.LoadOptions{Overlays: []string{filepath.Join(dir, "o.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]string{}
	for _, op := range s.API.Operations {
		m := map[string]string{}
		for k, v := range op.Policy.Overlays {
			m[k] = strings.TrimPrefix(v, dir+string(filepath.Separator))
		}
		got[op.Method+" "+op.Path] = m
	}
	want := map[string]map[string]string{
		"GET /a":  {"maxAttempts": "o.yaml:6:17"},
		"POST /a": {"maxAttempts": "o.yaml:6:17", "idempotencyKey": "o.yaml:9:7"},
		"POST /b": {"maxAttempts": "o.yaml:12:17", "idempotencyKey": "o.yaml:9:7", "idempotent": "o.yaml:13:7"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("overlay places differ (-want +got):\n%s", diff)
	}
}
