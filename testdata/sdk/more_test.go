package sdktasks

// The tasks that users of other SDKs write by hand, with the clients generated from
// openai.yaml and github.json: a streamed answer that adds up to the whole response, the
// rate limit of an answer whose operation declares no headers, an endpoint the spec
// lacks, a stream that cannot hang. Each task function holds its example of
// docs/client.md line for line.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"retrygen.test/clients/github"
	"retrygen.test/clients/openai"
)

// chatAnswer prints the answer as it comes, and returns it whole: its text, its finish
// reason and its usage.
func chatAnswer(ctx context.Context, w io.Writer, c *openai.Client) (*openai.CreateChatCompletionResponse, error) {
	stream, err := c.CreateChatCompletionStream(ctx, openai.CreateChatCompletionRequest{
		Model:         "gpt-5.4-mini",
		Messages:      []openai.ChatCompletionRequestMessage{openai.UserMessage("Count to three.")},
		StreamOptions: openai.Some(&openai.ChatCompletionStreamOptions{IncludeUsage: openai.Ptr(true)}),
	})
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	for stream.Next() {
		for _, choice := range stream.Current().Choices {
			fmt.Fprint(w, choice.Delta.Content.Or(""))
		}
	}
	return stream.Accumulate() // the chunks added up, those printed included
}

func TestChatAnswer(t *testing.T) {
	s, sent := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[%s],"usage":%s}`
		for _, word := range []string{"one ", "two ", "three"} {
			fmt.Fprintf(w, "data: "+chunk+"\n\n", fmt.Sprintf(`{"index":0,"finish_reason":null,"delta":{"role":"assistant","content":%q}}`, word), "null")
		}
		fmt.Fprintf(w, "data: "+chunk+"\n\n", `{"index":0,"finish_reason":"stop","delta":{}}`, "null")
		fmt.Fprintf(w, "data: "+chunk+"\n\n", "", `{"prompt_tokens":4,"completion_tokens":3,"total_tokens":7}`)
		io.WriteString(w, "data: [DONE]\n\n")
	})
	c := openai.NewClient(openai.WithBaseURL(s.URL), openai.WithAPIKeyAuth("sk-test"))
	var out strings.Builder
	resp, err := chatAnswer(t.Context(), &out, c)
	if err != nil || out.String() != "one two three" {
		t.Fatalf("printed %q, %v", out.String(), err)
	}
	choice := resp.Choices[0]
	if openai.Deref(choice.Message.Content, "") != "one two three" || choice.FinishReason != "stop" || resp.Usage == nil || resp.Usage.TotalTokens != 7 || resp.ID != "c1" {
		t.Errorf("response %+v, choice %+v", resp, choice)
	}
	if !strings.Contains(*sent, `"stream":true`) || !strings.Contains(*sent, `"stream_options":{"include_usage":true}`) {
		t.Errorf("sent %s", *sent)
	}
}

// issueTitle returns an issue's title and how many requests are left until when: GitHub's
// description declares no headers for the call, and every answer has its rate limit.
func issueTitle(ctx context.Context, c *github.Client) (string, int64, time.Time, error) {
	var info github.ResponseInfo
	issue, err := c.IssuesGet(ctx, "octo", "hello", 42, github.WithResponseInfo(&info))
	if err != nil {
		return "", 0, time.Time{}, err
	}
	rate := info.RateLimit() // X-RateLimit-Remaining and its kin, read
	return issue.Title, rate.Remaining, rate.Reset, nil
}

func TestIssueTitle(t *testing.T) {
	s, _ := server(t, jsonReply(200, `{"id":1,"number":42,"title":"Crash on start","state":"open"}`,
		"X-RateLimit-Limit", "5000", "X-RateLimit-Remaining", "4321", "X-RateLimit-Reset", "1772370000"))
	c := github.NewClient(github.WithBaseURL(s.URL))
	title, left, reset, err := issueTitle(t.Context(), c)
	if err != nil || title != "Crash on start" || left != 4321 || !reset.Equal(time.Unix(1772370000, 0)) {
		t.Errorf("issueTitle = %q, %d, %v, %v", title, left, reset, err)
	}
}

// quotaLeft asks an endpoint the spec lacks (a preview the description does not have
// yet), with the client's base URL, credentials, retries and errors, its path values
// escaped.
func quotaLeft(ctx context.Context, c *github.Client, owner, repo string) (int64, error) {
	var quota struct{ Used, Limit int64 }
	if err := c.Do(ctx, "GET", github.Path("/repos/{owner}/{repo}/quota", owner, repo), nil, &quota); err != nil {
		return 0, err
	}
	return quota.Limit - quota.Used, nil
}

func TestQuotaLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		failed := false
		s := &memServer{handle: func(w http.ResponseWriter, r *http.Request) {
			if !failed {
				failed = true
				write(w, 503, `{"message":"Service Unavailable"}`)
				return
			}
			write(w, 200, `{"used":40,"limit":100}`)
		}}
		c := github.NewClient(github.WithBaseURL("https://api.github.test"), github.WithHTTPClient(s.client()), github.WithoutRetryBudget())
		left, err := quotaLeft(t.Context(), c, "octo", "hello/../../admin")
		if err != nil || left != 60 {
			t.Fatalf("quotaLeft = %d, %v", left, err)
		}
		want := "api.github.test/repos/octo/hello%2F..%2F..%2Fadmin/quota"
		if got := s.requests(); len(got) != 2 || got[1] != want {
			t.Errorf("requests %v, want two to %s", got, want)
		}
	})
}

// quietStream prints the answer as it comes, and gives up on a stream that says
// nothing, not even a heartbeat, for a minute.
func quietStream(ctx context.Context, w io.Writer, c *openai.Client) error {
	stream, err := c.CreateChatCompletionStream(ctx, openai.CreateChatCompletionRequest{
		Model:    "gpt-5.4-mini",
		Messages: []openai.ChatCompletionRequestMessage{openai.UserMessage("Count to three.")},
	}, openai.WithStreamIdleTimeout(time.Minute))
	if err != nil {
		return err
	}
	defer stream.Close()
	for stream.Next() {
		for _, choice := range stream.Current().Choices {
			fmt.Fprint(w, choice.Delta.Content.Or(""))
		}
	}
	return stream.Err() // matches ErrStreamIdle after a minute of silence
}

func TestQuietStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &memServer{handle: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"finish_reason":null,"delta":{"content":"one "}}]}`+"\n\n")
		}}
		c := openai.NewClient(openai.WithBaseURL("https://api.openai.test/v1"), openai.WithHTTPClient(&http.Client{Transport: stallAfter{s}}), openai.WithAPIKeyAuth("sk-test"))
		start := time.Now()
		var out strings.Builder
		err := quietStream(t.Context(), &out, c)
		if !errors.Is(err, openai.ErrStreamIdle) || out.String() != "one " || time.Since(start) != time.Minute {
			t.Errorf("printed %q, then %v after %v", out.String(), err, time.Since(start))
		}
	})
}

// stallAfter makes each response of s a body that, once read, says nothing more until
// it is closed.
type stallAfter struct{ s *memServer }

func (st stallAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := st.s.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &stalled{head: resp.Body, closed: make(chan struct{})}
	return resp, nil
}

type stalled struct {
	head   io.ReadCloser
	closed chan struct{}
	once   sync.Once
}

func (b *stalled) Read(p []byte) (int, error) {
	if n, err := b.head.Read(p); n > 0 || err != io.EOF {
		return n, err
	}
	<-b.closed
	return 0, errors.New("closed")
}

func (b *stalled) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}
