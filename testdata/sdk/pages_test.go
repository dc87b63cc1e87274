package sdktasks

// The page walks of docs/client.md with the github.json, stripe.yaml and openai.yaml
// clients: each page is one call with its own retries, in a synctest bubble so that the
// retries' waits take no time, against an in-memory server that sees every request, to
// any host.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"

	"retrygen.test/clients/github"
	"retrygen.test/clients/openai"
	"retrygen.test/clients/stripe"
)

// memServer answers every request, whatever its host, with handle, and records each
// request's host and URI.
type memServer struct {
	handle func(w http.ResponseWriter, r *http.Request)

	mu   sync.Mutex
	seen []string
}

func (s *memServer) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.seen = append(s.seen, req.URL.Host+req.URL.RequestURI())
	s.mu.Unlock()
	rec := httptest.NewRecorder()
	s.handle(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

func (s *memServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

func (s *memServer) client() *http.Client { return &http.Client{Transport: s} }

func write(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// openIssues lists the numbers of a repository's open issues, every page of them.
func openIssues(ctx context.Context, c *github.Client) ([]int64, error) {
	var numbers []int64
	for issue, err := range c.IssuesListForRepoAll(ctx, "octo", "hello", &github.IssuesListForRepoParams{
		State:   github.Ptr(github.IssuesListForRepoStateOpen),
		PerPage: github.Ptr(int64(100)),
	}) {
		if err != nil {
			return numbers, err // a *PageError: the pages before it were delivered
		}
		numbers = append(numbers, issue.Number)
	}
	return numbers, nil
}

// issuePages serves three pages of issues linked by their Link headers, the page number
// in the query; fail answers instead when it returns true for the page.
func issuePages(fail func(page int) bool, link func(page int) string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		if fail(page) {
			write(w, 503, `{"message":"Service Unavailable"}`)
			return
		}
		if page < 3 {
			w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next", <https://api.github.test/repositories/1/issues?page=3>; rel="last"`, link(page+1)))
		}
		write(w, 200, fmt.Sprintf(`[{"number":%d},{"number":%d}]`, 2*page-1, 2*page))
	}
}

// Three pages through Link headers, a 503 on the second retried inside that page's call:
// four requests, every issue once.
func TestIssuesAllPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		failed := false
		s := &memServer{handle: issuePages(func(page int) bool {
			if page == 2 && !failed {
				failed = true
				return true
			}
			return false
		}, func(page int) string {
			return "https://api.github.test/repositories/1/issues?per_page=100&state=open&page=" + strconv.Itoa(page)
		})}
		c := github.NewClient(github.WithBaseURL("https://api.github.test"), github.WithHTTPClient(s.client()), github.WithoutRetryBudget())
		numbers, err := openIssues(t.Context(), c)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(numbers, []int64{1, 2, 3, 4, 5, 6}) {
			t.Errorf("issues %v", numbers)
		}
		want := []string{
			"api.github.test/repos/octo/hello/issues?per_page=100&state=open",
			"api.github.test/repositories/1/issues?page=2&per_page=100&state=open",
			"api.github.test/repositories/1/issues?page=2&per_page=100&state=open",
			"api.github.test/repositories/1/issues?page=3&per_page=100&state=open",
		}
		if got := s.requests(); !slices.Equal(got, want) {
			t.Errorf("requests\n%v\nwant\n%v", got, want)
		}
	})
}

// A Link to another host ends the walk with ErrPageLink after the first page, and that
// host receives nothing: not the request, not the token.
func TestIssuesLinkElsewhere(t *testing.T) {
	s := &memServer{handle: issuePages(func(int) bool { return false }, func(page int) string {
		return "https://evil.test/repos/octo/hello/issues?page=" + strconv.Itoa(page)
	})}
	c := github.NewClient(github.WithBaseURL("https://api.github.test"), github.WithHTTPClient(s.client()),
		github.WithRequestEditor(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer ghp_secret")
			return nil
		}))
	numbers, err := openIssues(t.Context(), c)
	var pe *github.PageError
	if !errors.Is(err, github.ErrPageLink) || !errors.As(err, &pe) || pe.Page != 2 || !slices.Equal(numbers, []int64{1, 2}) {
		t.Errorf("issues %v, then %v", numbers, err)
	}
	if got := s.requests(); len(got) != 1 {
		t.Errorf("requests %v: want the first page only", got)
	}
}

// chargeTotal adds up the amounts of every charge, from the page resume asks for ("" for
// the first): when a page fails, it returns how far it got and the cursor to resume from.
func chargeTotal(ctx context.Context, c *stripe.Client, resume string) (total int64, next string, err error) {
	for page, err := range c.GetChargesPages(ctx, &stripe.GetChargesParams{Limit: stripe.Ptr(int64(100))}, stripe.WithCursor(resume)) {
		var pe *stripe.PageError
		if errors.As(err, &pe) {
			return total, pe.Cursor, err // call again with pe.Cursor to go on
		}
		for _, charge := range page.Items {
			total += charge.Amount
		}
	}
	return total, "", nil
}

// GetChargesPages walks has_more and starting_after; a failed page is resumed from its
// cursor.
func TestChargesPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		down := true
		s := &memServer{handle: func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Query().Get("starting_after") {
			case "":
				write(w, 200, `{"object":"list","url":"/v1/charges","has_more":true,"data":[{"id":"ch_1","amount":100},{"id":"ch_2","amount":200}]}`)
			case "ch_2":
				if down {
					write(w, 500, `{"error":{"message":"try again"}}`)
					return
				}
				write(w, 200, `{"object":"list","url":"/v1/charges","has_more":false,"data":[{"id":"ch_3","amount":300}]}`)
			default:
				write(w, 400, `{"error":{"message":"bad cursor"}}`)
			}
		}}
		c := stripe.NewClient(stripe.WithBaseURL("https://api.stripe.test"), stripe.WithHTTPClient(s.client()), stripe.WithBasicAuth("sk_test", ""), stripe.WithoutRetryBudget())
		total, next, err := chargeTotal(t.Context(), c, "")
		if err == nil || total != 300 || next != "ch_2" {
			t.Fatalf("total %d, next %q, err %v: want the second page to fail", total, next, err)
		}
		down = false
		rest, next, err := chargeTotal(t.Context(), c, next)
		if err != nil || rest != 300 || next != "" {
			t.Errorf("resumed: total %d, next %q, err %v", rest, next, err)
		}
		if got := s.requests(); got[0] != "api.stripe.test/v1/charges?limit=100" || got[len(got)-1] != "api.stripe.test/v1/charges?limit=100&starting_after=ch_2" {
			t.Errorf("requests %v", got)
		}
	})
}

// GetChargesAll yields every charge of every page, ending at has_more false.
func TestChargesAll(t *testing.T) {
	s := &memServer{handle: func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("starting_after") == "" {
			write(w, 200, `{"object":"list","url":"/v1/charges","has_more":true,"data":[{"id":"ch_1"},{"id":"ch_2"}]}`)
			return
		}
		write(w, 200, `{"object":"list","url":"/v1/charges","has_more":false,"data":[{"id":"ch_3"}]}`)
	}}
	c := stripe.NewClient(stripe.WithBaseURL("https://api.stripe.test"), stripe.WithHTTPClient(s.client()), stripe.WithBasicAuth("sk_test", ""))
	var ids []string
	for charge, err := range c.GetChargesAll(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, charge.ID)
	}
	want := []string{"api.stripe.test/v1/charges", "api.stripe.test/v1/charges?starting_after=ch_2"}
	if !slices.Equal(ids, []string{"ch_1", "ch_2", "ch_3"}) || !slices.Equal(s.requests(), want) {
		t.Errorf("charges %v, requests %v", ids, s.requests())
	}
}

// assistantIDs lists the ids of the assistants, at most five pages of them.
func assistantIDs(ctx context.Context, c *openai.Client) ([]string, error) {
	var ids []string
	for a, err := range c.ListAssistantsAll(ctx, &openai.ListAssistantsParams{Limit: openai.Ptr(int64(20))}, openai.WithMaxPages(5)) {
		if err != nil {
			return ids, err
		}
		ids = append(ids, a.ID)
	}
	return ids, nil
}

// ListAssistantsAll walks has_more, after and last_id.
func TestAssistantsAll(t *testing.T) {
	s := &memServer{handle: func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("after") {
		case "":
			write(w, 200, `{"object":"list","data":[{"id":"asst_1"},{"id":"asst_2"}],"first_id":"asst_1","last_id":"asst_2","has_more":true}`)
		case "asst_2":
			write(w, 200, `{"object":"list","data":[{"id":"asst_3"}],"first_id":"asst_3","last_id":"asst_3","has_more":false}`)
		default:
			write(w, 400, `{"error":{"message":"bad cursor"}}`)
		}
	}}
	c := openai.NewClient(openai.WithBaseURL("https://api.openai.test/v1"), openai.WithHTTPClient(s.client()), openai.WithAPIKeyAuth("sk-test"))
	ids, err := assistantIDs(t.Context(), c)
	if err != nil || !slices.Equal(ids, []string{"asst_1", "asst_2", "asst_3"}) {
		t.Errorf("ids %v, err %v", ids, err)
	}
	want := []string{"api.openai.test/v1/assistants?limit=20", "api.openai.test/v1/assistants?after=asst_2&limit=20"}
	if got := s.requests(); !slices.Equal(got, want) {
		t.Errorf("requests %v", got)
	}
}

// A server that gives the same cursor on every page ends the walk with ErrPageLoop after
// two pages.
func TestAssistantsSameCursor(t *testing.T) {
	s := &memServer{handle: func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, `{"object":"list","data":[{"id":"asst_1"}],"first_id":"asst_1","last_id":"asst_1","has_more":true}`)
	}}
	c := openai.NewClient(openai.WithBaseURL("https://api.openai.test/v1"), openai.WithHTTPClient(s.client()), openai.WithAPIKeyAuth("sk-test"))
	ids, err := assistantIDs(t.Context(), c)
	if !errors.Is(err, openai.ErrPageLoop) || len(ids) != 2 || len(s.requests()) != 2 {
		t.Errorf("ids %v, err %v, requests %v", ids, err, s.requests())
	}
}
