package wire

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/runtime"
)

// sse writes events as a stream body: each a data line, then the sentinel.
func sseBody(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// accumulated opens a stream of body under shape, reads skip events with Next, and
// returns what Accumulate decodes, as JSON.
func accumulated(t *testing.T, shape string, skip int, body string, opts ...Option) (string, error) {
	t.Helper()
	c := streamClientOpts(t, func() io.Reader { return strings.NewReader(body) }, opts...)
	s, err := OpenStream[json.RawMessage](t.Context(), c, NewRequest("POST"), &runtime.Policy{}, StreamConfig{Accumulate: shape}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range skip {
		s.Next()
	}
	var out map[string]any
	if err := s.Accumulate(&out); err != nil {
		return "", err
	}
	data, _ := json.Marshal(out)
	return string(data), nil
}

func streamClientOpts(t *testing.T, body func() io.Reader, opts ...Option) *Client {
	t.Helper()
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(body()), Request: r}, nil
	})}
	c, err := NewClient("https://api.example.com", append([]Option{WithHTTPClient(hc)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Chat completion chunks add up to the completion: each choice's content, refusal and
// tool calls appended by index, the last finish reason and usage, "chat.completion" for
// the chunk's object; the events Next already read count too.
func TestAccumulateChatCompletion(t *testing.T) {
	body := sseBody(
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hel"}},{"index":1,"delta":{"role":"assistant","content":"Bye"}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"lo."}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_","arguments":"{\"ci"}}]}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"weather","arguments":"ty\":1}"}}]}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls","logprobs":{"content":[{"token":"a"}]}},{"index":1,"delta":{},"finish_reason":"stop"}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}`,
	)
	want := `{"choices":[{"finish_reason":"tool_calls","index":0,"logprobs":{"content":[{"token":"a"}]},"message":{"content":"Hello.","role":"assistant",` +
		`"tool_calls":[{"function":{"arguments":"{\"city\":1}","name":"get_weather"},"id":"call_1","type":"function"}]}},` +
		`{"finish_reason":"stop","index":1,"message":{"content":"Bye","role":"assistant"}}],` +
		`"created":1,"id":"c1","model":"m","object":"chat.completion","usage":{"completion_tokens":5,"prompt_tokens":3,"total_tokens":8}}`
	for skip := range 3 {
		got, err := accumulated(t, AccumulateOpenAI, skip, body)
		if err != nil || got != want {
			t.Errorf("after %d events read: %v\n got %s\nwant %s", skip, err, got, want)
		}
	}
}

// A message's events add up to the message: text and thinking appended, a tool use's
// input parsed once its pieces are in, the last stop reason and usage.
func TestAccumulateMessage(t *testing.T) {
	body := sseBody(
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"ping"}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", world"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"tu_1","name":"get_weather","input":{}}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": "}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":15}}`,
		`{"type":"message_stop"}`,
	)
	got, err := accumulated(t, AccumulateAnthropic, 4, body)
	want := `{"content":[{"text":"Hello, world","type":"text"},{"id":"tu_1","input":{"city":"Paris"},"name":"get_weather","type":"tool_use"}],` +
		`"id":"msg_1","model":"claude","role":"assistant","stop_reason":"tool_use","stop_sequence":null,"type":"message","usage":{"input_tokens":10,"output_tokens":15}}`
	if err != nil || got != want {
		t.Errorf("%v\n got %s\nwant %s", err, got, want)
	}
}

// A server's events cannot make the accumulator allocate at will or build a response
// that is not one: indexes out of bounds, a tool input that is not JSON, events before
// the message, more data than a response may hold, each fail Accumulate.
func TestAccumulateRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, shape string
		events      []string
		opts        []Option
		want        error // or a text the error holds
		text        string
	}{
		{"choice index", AccumulateOpenAI, []string{`{"choices":[{"index":1000000000,"delta":{"content":"x"}}]}`}, nil, nil, "index 1000000000 out of range"},
		{"negative index", AccumulateOpenAI, []string{`{"choices":[{"index":-1,"delta":{}}]}`}, nil, nil, "out of range"},
		{"tool call growth", AccumulateOpenAI, []string{`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":500}]}}]}`}, nil, nil, "tool call: index 500 out of range"},
		{"not an object", AccumulateOpenAI, []string{`[1,2]`}, nil, nil, "cannot unmarshal"},
		{"block index", AccumulateAnthropic, []string{`{"type":"message_start","message":{}}`, `{"type":"content_block_delta","index":3,"delta":{}}`}, nil, nil, "out of range"},
		{"block gap", AccumulateAnthropic, []string{`{"type":"message_start","message":{}}`, `{"type":"content_block_start","index":5,"content_block":{}}`}, nil, nil, "out of range"},
		{"no start", AccumulateAnthropic, []string{`{"type":"content_block_delta","index":0,"delta":{}}`}, nil, nil, "before message_start"},
		{"bad input", AccumulateAnthropic, []string{`{"type":"message_start","message":{}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`}, nil, nil, "not JSON"},
		{"too much", AccumulateOpenAI, []string{`{"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("x", 600) + `"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("x", 600) + `"}}]}`}, []Option{WithMaxBodySize(1000)}, runtime.ErrBodyTooLarge, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := accumulated(t, tc.shape, 0, sseBody(tc.events...), tc.opts...)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("err = %v, want %v %q", err, tc.want, tc.text)
			}
		})
	}
}

// A stream that does not end normally gives its error, not a response.
func TestAccumulateCutStream(t *testing.T) {
	c := streamClientOpts(t, func() io.Reader {
		return io.MultiReader(strings.NewReader(`data: {"choices":[]}`+"\n\n"), errReader{io.ErrUnexpectedEOF})
	})
	s, err := OpenStream[json.RawMessage](t.Context(), c, NewRequest("POST"), &runtime.Policy{}, StreamConfig{Accumulate: AccumulateOpenAI}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out map[string]any
	var se *StreamError
	if err := s.Accumulate(&out); !errors.As(err, &se) || out != nil {
		t.Errorf("err = %v, out %v", err, out)
	}
	s2, _ := OpenStream[json.RawMessage](t.Context(), c, NewRequest("POST"), &runtime.Policy{}, StreamConfig{}, nil)
	if err := s2.Accumulate(&out); err == nil {
		t.Error("a stream of no shape accumulated")
	}
	s2.Close()
}
