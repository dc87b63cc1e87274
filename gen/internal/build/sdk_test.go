package build

import (
	"slices"
	"strings"
	"testing"
	"time"
)

const sdkSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
x-retry: {maxAttempts: 2}
x-idempotency-key: true
x-stream-idle-timeout: 2m
security:
  - cc: [write]
  - {}
paths:
  /watch:
    get:
      operationId: watch
      x-stream-idle-timeout: 90s
      responses:
        "200": {description: ok, content: {text/event-stream: {schema: {type: string}}}}
  /follow:
    get:
      operationId: follow
      responses:
        "200": {description: ok, content: {text/event-stream: {schema: {type: string}}}}
components:
  securitySchemes:
    cc:
      type: oauth2
      flows:
        clientCredentials: {tokenUrl: "https://auth.test/token", refreshUrl: "https://auth.test/refresh", scopes: {write: w, read: r}}
        authorizationCode: {authorizationUrl: "https://auth.test/authorize", tokenUrl: "https://auth.test/code", scopes: {}}
    code:
      type: oauth2
      flows:
        implicit: {authorizationUrl: "https://auth.test/authorize", scopes: {}}
    oidc:
      type: openIdConnect
      openIdConnectUrl: https://auth.test/.well-known/openid-configuration
`

// An OAuth 2 scheme gets an option for each flow the client can run itself, with the
// spec's URLs and scopes; every OAuth 2 and OpenID Connect scheme takes a token source.
func TestOAuthOptions(t *testing.T) {
	api, err := buildSpec(t, sdkSpec)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string][]string{}
	for _, s := range api.SecuritySchemes {
		byKey[s.Key] = []string{s.Option, s.ClientCredentialsOption, s.RefreshTokenOption, s.TokenSourceOption, s.TokenURLOption}
	}
	want := map[string][]string{
		"cc":   {"WithCc", "WithCcClientCredentials", "WithCcRefreshToken", "WithCcTokenSource", "WithCcTokenURL"},
		"code": {"WithCode", "", "", "WithCodeTokenSource", ""},
		"oidc": {"WithOidc", "", "", "WithOidcTokenSource", ""},
	}
	for key, names := range want {
		if !slices.Equal(byKey[key], names) {
			t.Errorf("%s: options %q, want %q", key, byKey[key], names)
		}
	}
	cc := api.SecuritySchemes[0]
	if f := cc.ClientCredentials; f.TokenURL != "https://auth.test/token" || f.RefreshURL != "https://auth.test/refresh" || !slices.Equal(f.Scopes, []string{"read", "write"}) {
		t.Errorf("client credentials flow %+v", f)
	}
	if f := cc.Refresh; f.TokenURL != "https://auth.test/code" || f.RefreshURL != "" {
		t.Errorf("refresh flow %+v", f)
	}
}

// x-stream-idle-timeout comes from the operation, else the document; Do's endpoint has
// the document's policies, its key for a POST included, and its security requirement.
func TestStreamIdleAndEndpoint(t *testing.T) {
	api, err := buildSpec(t, sdkSpec)
	if err != nil {
		t.Fatal(err)
	}
	idle := map[string]time.Duration{}
	for _, op := range api.Operations {
		idle[op.GoName] = op.Stream.IdleTimeout
	}
	if idle["Watch"] != 90*time.Second || idle["Follow"] != 2*time.Minute {
		t.Errorf("idle timeouts %v", idle)
	}
	e := api.Endpoint
	if e.Idempotent.Policy.MaxAttempts != 2 || !e.Idempotent.Policy.Idempotent || e.Idempotent.PolicyVar == "" {
		t.Errorf("GET policy %+v", e.Idempotent.Policy)
	}
	if p := e.NotIdempotent.Policy; p.IdempotencyKey != "Idempotency-Key" || !p.Idempotent || p.MaxAttempts != 2 {
		t.Errorf("POST policy %+v", p)
	}
	if len(e.Security) != 2 || !slices.Equal(e.Security[0], []string{"cc"}) || len(e.Security[1]) != 0 {
		t.Errorf("security %q", e.Security)
	}
}

// A malformed x-stream-idle-timeout is an error at its place.
func TestStreamIdleMalformed(t *testing.T) {
	for _, v := range []string{"soon", "-1s", "0s", "48h", "5"} {
		spec := strings.Replace(sdkSpec, "x-stream-idle-timeout: 90s", "x-stream-idle-timeout: "+v, 1)
		_, err := buildSpec(t, spec)
		if err == nil || !strings.Contains(err.Error(), "spec.yaml:13:7:") || !strings.Contains(err.Error(), "x-stream-idle-timeout must be a positive duration") ||
			!strings.Contains(err.Error(), "GET /watch (watch)") {
			t.Errorf("x-stream-idle-timeout: %s: err = %v", v, err)
		}
	}
}

const chatSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /chat:
    post:
      operationId: chat
      EXT
      requestBody: {content: {application/json: {schema: {type: object, properties: {stream: {type: boolean}}}}}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  choices: {type: array, items: {type: object, properties: {message: {type: object, properties: {content: {type: string}}}}}}
            text/event-stream:
              schema:
                type: object
                properties:
                  choices: {type: array, items: {type: object, properties: {delta: {type: object, properties: {content: {type: string}}}}}}
  /ticks:
    get:
      operationId: ticks
      responses:
        "200": {description: ok, content: {text/event-stream: {schema: {type: string}}}}
`

// Chunks whose choices carry deltas where the response's carry messages accumulate as
// OpenAI's do, unless x-stream-accumulate says otherwise; a stream with no JSON response
// beside it does not.
func TestAccumulateShapes(t *testing.T) {
	for ext, want := range map[string]string{
		"":                               "openai",
		"x-stream-accumulate: false":     "",
		"x-stream-accumulate: anthropic": "anthropic",
		"x-stream-accumulate: openai":    "openai",
	} {
		api, err := buildSpec(t, strings.Replace(chatSpec, "EXT", ext, 1))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if a := api.Operations[0].Stream.Accumulate; a != nil {
			got = a.Shape
			if a.GoName != "ChatStream" || a.Result.String() != "*ChatResponse" {
				t.Errorf("%q: stream type %s of %s", ext, a.GoName, a.Result)
			}
		}
		if got != want || api.Operations[1].Stream.Accumulate != nil {
			t.Errorf("%q: shape %q, want %q", ext, got, want)
		}
	}
	for _, ext := range []string{"x-stream-accumulate: sum", "x-stream-accumulate: true"} {
		_, err := buildSpec(t, strings.Replace(chatSpec, "EXT", ext, 1))
		if err == nil || !strings.Contains(err.Error(), "spec.yaml:7:7: POST /chat (chat): x-stream-accumulate must be openai") {
			t.Errorf("%s: err = %v", ext, err)
		}
	}
	spec := strings.Replace(chatSpec, "EXT", "", 1)
	spec = strings.Replace(spec, "      operationId: ticks\n", "      operationId: ticks\n      x-stream-accumulate: openai\n", 1)
	if _, err := buildSpec(t, spec); err == nil || !strings.Contains(err.Error(), "no JSON response") {
		t.Errorf("accumulating a stream alone: err = %v", err)
	}
}
