// Package sdktasks runs the everyday tasks of docs/client.md with the clients generated
// from openai.yaml, github.json and stripe.yaml, against local servers that check what
// each sends. TestAllSpecsCompile (gen/compile_test.go) copies it beside those clients;
// each task function holds its example of docs/client.md line for line.
package sdktasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"retrygen.test/clients/github"
	"retrygen.test/clients/openai"
	"retrygen.test/clients/stripe"
)

// server answers every request with handle, and records the last request's body.
func server(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *string) {
	t.Helper()
	var body string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		body = string(data)
		handle(w, r)
	}))
	t.Cleanup(s.Close)
	return s, &body
}

func jsonReply(status int, body string, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// chat asks for one answer.
func chat(ctx context.Context, baseURL, key string) (string, error) {
	c := openai.NewClient(openai.WithBaseURL(baseURL), openai.WithAPIKeyAuth(key))
	resp, err := c.CreateChatCompletion(ctx, openai.CreateChatCompletionRequest{
		Model:       openai.ModelIDsSharedGpt54Mini,
		Messages:    []openai.ChatCompletionRequestMessage{openai.UserMessage("Say hello.")},
		Temperature: openai.Some(0.2),
	})
	if err != nil {
		return "", err // the server's message and request id are in its text
	}
	return openai.Deref(resp.Choices[0].Message.Content, ""), nil
}

func TestChat(t *testing.T) {
	s, sent := server(t, jsonReply(200, `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-5.4-mini",
		"choices":[{"index":0,"finish_reason":"stop","logprobs":null,"message":{"role":"assistant","content":"Hello.","refusal":null}}]}`))
	got, err := chat(t.Context(), s.URL, "sk-test")
	if err != nil || got != "Hello." {
		t.Fatalf("chat = %q, %v", got, err)
	}
	var req map[string]any
	if err := json.Unmarshal([]byte(*sent), &req); err != nil {
		t.Fatal(err)
	}
	msg := req["messages"].([]any)[0].(map[string]any)
	if msg["role"] != "user" || msg["content"] != "Say hello." || req["temperature"] != 0.2 || req["model"] != "gpt-5.4-mini" {
		t.Errorf("sent %s", *sent)
	}
}

// chatStream prints the answer as it comes.
func chatStream(ctx context.Context, w io.Writer, c *openai.Client) error {
	stream, err := c.CreateChatCompletionStream(ctx, openai.CreateChatCompletionRequest{
		Model:    "gpt-5.4-mini",
		Messages: []openai.ChatCompletionRequestMessage{openai.UserMessage("Count to three.")},
	}) // sends "stream": true
	if err != nil {
		return err
	}
	defer stream.Close()
	for stream.Next() {
		for _, choice := range stream.Current().Choices {
			fmt.Fprint(w, choice.Delta.Content.Or(""))
		}
	}
	return stream.Err()
}

func TestChatStream(t *testing.T) {
	s, sent := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, word := range []string{"one ", "two ", "three"} {
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"finish_reason\":null,\"delta\":{\"content\":%q}}]}\n\n", word)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	})
	c := openai.NewClient(openai.WithBaseURL(s.URL), openai.WithAPIKeyAuth("sk-test"))
	var out strings.Builder
	if err := chatStream(t.Context(), &out, c); err != nil || out.String() != "one two three" {
		t.Fatalf("streamed %q, %v", out.String(), err)
	}
	if !strings.Contains(*sent, `"stream":true`) {
		t.Errorf("sent %s", *sent)
	}
}

// An overloaded first event is that attempt's failure: with an idempotency key the
// request is sent again, with the same key, and the answer arrives once, with no event of
// the failed attempt and none twice.
func TestChatStreamRetriesAnErrorEvent(t *testing.T) {
	var keys []string
	s, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		w.Header().Set("Content-Type", "text/event-stream")
		if len(keys) == 1 {
			io.WriteString(w, "data: {\"error\":{\"message\":\"The server is overloaded\",\"type\":\"server_error\",\"code\":null}}\n\n")
			return
		}
		for _, word := range []string{"one ", "two ", "three"} {
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"finish_reason\":null,\"delta\":{\"content\":%q}}]}\n\n", word)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	})
	c := openai.NewClient(openai.WithBaseURL(s.URL), openai.WithAPIKeyAuth("sk-test"),
		openai.WithPolicyOverride(func(p *openai.Policy) { p.InitialDelay = 0 })) // no wait between attempts
	stream, err := c.CreateChatCompletionStream(t.Context(), openai.CreateChatCompletionRequest{
		Model:    "gpt-5.4-mini",
		Messages: []openai.ChatCompletionRequestMessage{openai.UserMessage("Count to three.")},
	}, openai.WithIdempotencyKey("count-1"))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var out strings.Builder
	for stream.Next() {
		for _, choice := range stream.Current().Choices {
			out.WriteString(choice.Delta.Content.Or(""))
		}
	}
	if out.String() != "one two three" || stream.Err() != nil {
		t.Errorf("streamed %q, %v; want the answer once", out.String(), stream.Err())
	}
	if len(keys) != 2 || keys[0] != "count-1" || keys[1] != "count-1" {
		t.Errorf("requests with keys %q, want two with count-1", keys)
	}
	// Without a key the POST is not sent again, and the call's error carries the event.
	keys = nil
	_, err = c.CreateChatCompletionStream(t.Context(), openai.CreateChatCompletionRequest{Model: "gpt-5.4-mini"})
	if ee, ok := errors.AsType[*openai.EventError](err); !ok || ee.StatusCode != 500 || !errors.Is(err, openai.ErrNotRetrySafe) || len(keys) != 1 {
		t.Errorf("err = %v after %d requests, want the error event, not retried", err, len(keys))
	}
}

// openIssue files a bug with two labels.
func openIssue(ctx context.Context, c *github.Client) (int64, error) {
	issue, err := c.IssuesCreate(ctx, "octo", "hello", github.IssuesCreateRequest{
		Title:  github.NewIssuesCreateTitle("Crash on start"),
		Body:   github.Ptr("It crashes."),
		Labels: []github.IssuesCreateLabel{github.NewIssuesCreateLabel("bug"), github.NewIssuesCreateLabel("p1")},
	})
	if err != nil {
		return 0, err
	}
	return issue.Number, nil
}

func TestOpenIssue(t *testing.T) {
	s, sent := server(t, jsonReply(201, `{"id":1,"node_id":"n","url":"u","repository_url":"r","labels_url":"l","comments_url":"c",
		"events_url":"e","html_url":"h","number":42,"state":"open","title":"Crash on start","user":null,"labels":[],"assignee":null,
		"milestone":null,"locked":false,"comments":0,"closed_at":null,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z",
		"author_association":"OWNER"}`))
	c := github.NewClient(github.WithBaseURL(s.URL))
	n, err := openIssue(t.Context(), c)
	if err != nil || n != 42 {
		t.Fatalf("issue %d, %v", n, err)
	}
	if want := `{"body":"It crashes.","labels":["bug","p1"],"title":"Crash on start"}`; *sent != want {
		t.Errorf("sent %s, want %s", *sent, want)
	}
}

// customerError reports why a customer could not be fetched.
func customerError(ctx context.Context, c *stripe.Client) string {
	_, err := c.GetCustomersCustomer(ctx, "cus_1", nil)
	var apiErr *stripe.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound {
		return "no such customer"
	}
	return err.Error() // e.g. "GET …/v1/customers/cus_1: 400 Bad Request: No such customer: cus_1 (request id req_123)"
}

func TestCustomerError(t *testing.T) {
	s, _ := server(t, jsonReply(400, `{"error":{"message":"No such customer: cus_1","type":"invalid_request_error"}}`, "Request-Id", "req_123"))
	c := stripe.NewClient(stripe.WithBaseURL(s.URL), stripe.WithBasicAuth("sk_test", ""))
	msg := customerError(t.Context(), c)
	if !strings.Contains(msg, "No such customer: cus_1") || !strings.Contains(msg, "req_123") || strings.Contains(msg, "attempt") {
		t.Errorf("error text %q", msg)
	}
}

// errorCode returns the code of the server's error body ("invalid_api_key"), for an error
// the spec declares no model for; "" when it has none.
func errorCode(err error) string {
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) {
		return ""
	}
	return apiErr.Code() // "" for a body that is not JSON: a proxy's page, say
}

// A 401 is no status the chat operation types: the call's error is a plain *APIError,
// whose text has the message and whose Code reads the code; DecodeBody reads the rest,
// the key REDACTED where the server repeats it.
func TestErrorCode(t *testing.T) {
	s, _ := server(t, jsonReply(401, `{"error":{"message":"Incorrect API key provided: sk-test-1234567890.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`))
	_, err := chat(t.Context(), s.URL, "sk-test-1234567890")
	if code := errorCode(err); code != "invalid_api_key" || !strings.Contains(err.Error(), "Incorrect API key provided") || strings.Contains(err.Error(), "sk-test-1234567890") {
		t.Errorf("code %q of %v", code, err)
	}
	var apiErr *openai.APIError
	var body struct{ Error struct{ Message string } }
	if !errors.As(err, &apiErr) || apiErr.Model != nil || apiErr.DecodeBody(&body) != nil || body.Error.Message != "Incorrect API key provided: REDACTED." {
		t.Errorf("APIError %+v, body %+v", apiErr, body)
	}
	if errorCode(errors.New("no API error")) != "" {
		t.Error("errorCode of another error")
	}
}

// jsonColours asks for an answer in JSON: the optional response_format union, set with
// Ptr and its constructor.
func jsonColours(ctx context.Context, c *openai.Client) (string, error) {
	resp, err := c.CreateChatCompletion(ctx, openai.CreateChatCompletionRequest{
		Model:          openai.ModelIDsSharedGpt54Mini,
		Messages:       []openai.ChatCompletionRequestMessage{openai.SystemMessage("Answer in JSON."), openai.UserMessage("Three colours?")},
		ResponseFormat: openai.Ptr(openai.NewCreateChatCompletionRequestResponseFormat(openai.ResponseFormatJSONObject{})),
	})
	if err != nil {
		return "", err
	}
	return openai.Deref(resp.Choices[0].Message.Content, ""), nil
}

func TestJSONColours(t *testing.T) {
	s, sent := server(t, jsonReply(200, `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-5.4-mini",
		"choices":[{"index":0,"finish_reason":"stop","logprobs":null,"message":{"role":"assistant","content":"[\"red\"]","refusal":null}}]}`))
	c := openai.NewClient(openai.WithBaseURL(s.URL), openai.WithAPIKeyAuth("sk-test"))
	got, err := jsonColours(t.Context(), c)
	if err != nil || got != `["red"]` {
		t.Fatalf("jsonColours = %q, %v", got, err)
	}
	var req struct {
		Messages       []map[string]string
		ResponseFormat map[string]any `json:"response_format"`
	}
	if err := json.Unmarshal([]byte(*sent), &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 2 || req.Messages[0]["role"] != "system" || req.Messages[1]["role"] != "user" || req.Messages[1]["content"] != "Three colours?" ||
		len(req.ResponseFormat) != 1 || req.ResponseFormat["type"] != "json_object" {
		t.Errorf("sent %s", *sent)
	}
}

// uploadReceipt uploads a receipt as dispute evidence, in a multipart body.
func uploadReceipt(ctx context.Context, c *stripe.Client, receipt io.Reader) (string, error) {
	file, err := c.PostFiles(ctx, stripe.PostFilesRequest{
		File:    stripe.File{Name: "receipt.pdf", ContentType: "application/pdf", Body: receipt}, // an *os.File, a bytes.Reader...
		Purpose: stripe.PostFilesPurposeDisputeEvidence,
	})
	if err != nil {
		return "", err
	}
	return file.ID, nil
}

func TestUploadReceipt(t *testing.T) {
	var contentType string
	s, sent := server(t, func(w http.ResponseWriter, r *http.Request) {
		contentType = r.Header.Get("Content-Type")
		jsonReply(200, `{"id":"file_1","object":"file","created":1,"purpose":"dispute_evidence","size":9,"links":null}`)(w, r)
	})
	c := stripe.NewClient(stripe.WithBaseURL(s.URL), stripe.WithBasicAuth("sk_test", ""))
	id, err := uploadReceipt(t.Context(), c, strings.NewReader("%PDF-1.7"))
	if err != nil || id != "file_1" {
		t.Fatalf("uploadReceipt = %q, %v", id, err)
	}
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	mr := multipart.NewReader(strings.NewReader(*sent), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		data, _ := io.ReadAll(p)
		parts = append(parts, fmt.Sprintf("%s %q %s: %s", p.FormName(), p.FileName(), p.Header.Get("Content-Type"), data))
	}
	want := []string{`file "receipt.pdf" application/pdf: %PDF-1.7`, `purpose "" : dispute_evidence`}
	if !strings.HasPrefix(contentType, "multipart/form-data;") || !slices.Equal(parts, want) {
		t.Errorf("sent %s with parts\n%q\nwant\n%q", contentType, parts, want)
	}
}

// rateRemaining returns how many requests the token has left this hour: GitHub's
// description declares no security scheme, so the token goes in a header of every call,
// and the count comes from the response's rate limit headers.
func rateRemaining(ctx context.Context, baseURL, token string) (int64, error) {
	c := github.NewClient(github.WithBaseURL(baseURL), github.WithHeader("Authorization", "Bearer "+token)) // never sent to another host
	var info github.ResponseInfo
	if _, err := c.RateLimitGet(ctx, github.WithResponseInfo(&info)); err != nil {
		return 0, err
	}
	return info.RateLimit().Remaining, nil
}

func TestRateRemaining(t *testing.T) {
	var auth string
	s, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		jsonReply(200, `{"rate":{"limit":5000,"remaining":4999,"reset":1,"used":1},"resources":{"core":{"limit":5000,"remaining":4999,"reset":1,"used":1},"search":{"limit":30,"remaining":30,"reset":1,"used":0}}}`,
			"X-RateLimit-Limit", "5000", "X-RateLimit-Remaining", "4999", "X-RateLimit-Reset", "1")(w, r)
	})
	n, err := rateRemaining(t.Context(), s.URL, "ghp_test")
	if err != nil || n != 4999 || auth != "Bearer ghp_test" {
		t.Errorf("rateRemaining = %d, %v; Authorization %q", n, err, auth)
	}
}

// charges lists the first page of charges: no body argument, as the GET sends none.
func charges(ctx context.Context, c *stripe.Client) ([]stripe.Charge, error) {
	page, err := c.GetCharges(ctx, &stripe.GetChargesParams{Limit: stripe.Ptr(int64(10))})
	if err != nil {
		return nil, err
	}
	return page.Data, nil
}

func TestCharges(t *testing.T) {
	var query string
	s, sent := server(t, func(w http.ResponseWriter, r *http.Request) {
		query = r.URL.RawQuery
		jsonReply(200, `{"object":"list","url":"/v1/charges","has_more":false,"data":[]}`)(w, r)
	})
	c := stripe.NewClient(stripe.WithBaseURL(s.URL), stripe.WithBasicAuth("sk_test", ""))
	if _, err := charges(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if query != "limit=10" || *sent != "" {
		t.Errorf("sent ?%s with body %q", query, *sent)
	}
}
