package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/spectest"
)

// TestClientFeaturesOfRealSpecs: the clients of the OpenAI and OpenRouter descriptions
// stream chat completions beside their JSON methods, and take their API keys through
// options named after the security schemes.
func TestClientFeaturesOfRealSpecs(t *testing.T) {
	spectest.Long(t)
	cases := []struct {
		spec string
		want []string
	}{
		{"openai.yaml", []string{
			"func WithAPIKeyAuth(token string) Option",
			"func WithAPIKeyAuthFunc(fn func(ctx context.Context) (string, error)) Option",
			"func (c *Client) CreateChatCompletion(ctx context.Context, body CreateChatCompletionRequest, opts ...CallOption) (*CreateChatCompletionResponse, error)",
			"func (c *Client) CreateChatCompletionStream(ctx context.Context, body CreateChatCompletionRequest, opts ...CallOption) (*EventStream[CreateChatCompletionStreamResponse], error)",
			`r.Security([]string{"ApiKeyAuth"})`,
			"const ServerURL = ",
		}},
		{"openrouter-31.yaml", []string{
			"func WithAPIKey(token string) Option",
			"func WithBearer(token string) Option",
			"func (c *Client) SendChatCompletionRequestStream(ctx context.Context, params *SendChatCompletionRequestParams, body ChatRequest, opts ...CallOption) (*EventStream[ChatStreamChunk], error)",
			`Sentinel:    "[DONE]"`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			path := filepath.Join(sharedSpecs, tc.spec)
			if _, err := os.Stat(path); err != nil {
				t.Skip(err)
			}
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
