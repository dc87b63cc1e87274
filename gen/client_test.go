package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/spectest"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// TestClientFeaturesOfRealSpecs: the clients of the OpenAI and OpenRouter descriptions
// stream chat completions beside their JSON methods, in streams that add up to the JSON
// response, and take their API keys through options named after the security schemes.
func TestClientFeaturesOfRealSpecs(t *testing.T) {
	longtest.Heavy(t)
	cases := []struct {
		spec string
		want []string
	}{
		{"openai.yaml", []string{
			"func WithAPIKeyAuth(token string) Option",
			"func WithAPIKeyAuthFunc(fn func(ctx context.Context) (string, error)) Option",
			"func (c *Client) CreateChatCompletion(ctx context.Context, body CreateChatCompletionRequest, opts ...CallOption) (*CreateChatCompletionResponse, error)",
			"func (c *Client) CreateChatCompletionStream(ctx context.Context, body CreateChatCompletionRequest, opts ...CallOption) (*CreateChatCompletionStream, error)",
			"type CreateChatCompletionStream struct {\n\t*EventStream[CreateChatCompletionStreamResponse]\n}",
			"func (s *CreateChatCompletionStream) Accumulate() (*CreateChatCompletionResponse, error)",
			`r.Security([]string{"ApiKeyAuth"})`,
			"const ServerURL = ",
		}},
		{"openrouter-31.yaml", []string{
			"func WithAPIKey(token string) Option",
			"func WithBearer(token string) Option",
			"func (c *Client) SendChatCompletionRequestStream(ctx context.Context, params *SendChatCompletionRequestParams, body ChatRequest, opts ...CallOption) (*SendChatCompletionRequestStream, error)",
			"type SendChatCompletionRequestStream struct {\n\t*EventStream[ChatStreamChunk]\n}",
			`Sentinel:    "[DONE]"`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			path := corpus.Path(t, tc.spec)
			s, err := Load(path, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			src, err := Generate(s, GenerateOptions{Package: "client"})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(src), w) {
					t.Errorf("the client lacks %s", w)
				}
			}
		})
	}
}

// TestClientWarnings: -v names, located, each construct the generator leaves out: a
// webhook and a callback (payload types only), links, a response content type the
// method does not read, a security scheme with no option.
func TestClientWarnings(t *testing.T) {
	path := spectest.Write(t, "api.yaml", `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /things:
    post:
      operationId: createThing
      security: [{digest: []}]
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {a: {type: string}}}
      callbacks:
        done:
          '{$request.body#/url}':
            post:
              requestBody:
                content:
                  application/json:
                    schema: {type: object, properties: {ok: {type: boolean}}}
              responses: {"200": {description: ok}}
      responses:
        "200":
          description: ok
          links:
            self: {operationId: createThing}
          content:
            application/json:
              schema: {type: object, properties: {id: {type: string}}}
            application/pdf:
              schema: {type: string, format: binary}
webhooks:
  thingDeleted:
    post:
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {id: {type: string}}}
      responses: {"200": {description: ok}}
  thingForm:
    post:
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema: {type: object, properties: {id: {type: string}}}
      responses: {"200": {description: ok}}
components:
  securitySchemes:
    digest: {type: http, scheme: digest}
`)
	s, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := s.Warnings.Error()
	for _, want := range []string{
		`api.yaml:40:5: webhook "thingForm": its request has no JSON body: no receiver is generated for it`,
		`(createThing): response 200: links are not turned into code`,
		`(createThing): response 200: content type "application/pdf" is not read`,
		`security scheme "digest": http scheme "digest" is not supported`,
		`(createThing): security requirement names scheme "digest", which has no option`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings lack %s:\n%s", want, text)
		}
	}
	src, err := Generate(s, GenerateOptions{Package: "client"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"type ThingDeletedPayload struct", "type CreateThingDonePayload struct"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the client lacks %s", want)
		}
	}
}

// TestSecurityRequirements: each operation records the alternatives it sends, the
// document's by default; `security: []`, and a requirement whose only alternative is
// anonymous, record none.
func TestSecurityRequirements(t *testing.T) {
	path := spectest.Write(t, "api.yaml", `openapi: 3.0.3
info: {title: t, version: "1"}
security: [{key: []}]
paths:
  /default:
    get: {operationId: byDefault, responses: {"204": {description: ok}}}
  /none:
    get: {operationId: none, security: [], responses: {"204": {description: ok}}}
  /anonymous:
    get: {operationId: anonymous, security: [{}], responses: {"204": {description: ok}}}
  /both:
    get:
      operationId: both
      security: [{key: [], basic: []}, {oauth: [read]}, {}]
      responses: {"204": {description: ok}}
components:
  securitySchemes:
    key: {type: apiKey, in: query, name: api_key}
    basic: {type: http, scheme: basic}
    oauth:
      type: oauth2
      flows: {clientCredentials: {tokenUrl: "https://x.example/token", scopes: {read: r}}}
`)
	s, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, op := range s.API.Operations {
		got[op.GoName] = fmt.Sprint(op.Security)
	}
	want := map[string]string{
		"ByDefault": "[[key]]",
		"None":      "[]",
		"Anonymous": "[]",
		"Both":      "[[basic key] [oauth] []]",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: security %s, want %s", name, got[name], w)
		}
	}
	var opts []string
	for _, sc := range s.API.SecuritySchemes {
		opts = append(opts, sc.Option+"/"+sc.FuncOption)
	}
	if fmt.Sprint(opts) != "[WithBasic/ WithKey/WithKeyFunc WithOauth/]" {
		t.Errorf("options %v", opts)
	}
}
