package paging

// These tests run against the generated client of this case (want.go, copied next to them
// by gen's TestGoldenCompiles): each kind of walk against a server that serves the pages
// and records what each request asked for. synctest makes the retries' waits instant.

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// transport answers every request, on any host, with h, and records the requests.
type transport struct {
	h http.HandlerFunc

	mu   sync.Mutex
	seen []*http.Request
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	tr.mu.Lock()
	tr.seen = append(tr.seen, req)
	tr.mu.Unlock()
	rec := httptest.NewRecorder()
	tr.h(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// asked returns each request's path and query, and its X-Page-Token when it has one.
func (tr *transport) asked() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []string
	for _, r := range tr.seen {
		s := r.URL.Host + r.URL.RequestURI()
		if tok := r.Header.Get("X-Page-Token"); tok != "" {
			s += " token=" + tok
		}
		out = append(out, s)
	}
	return out
}

func newClient(t *testing.T, h http.HandlerFunc) (*Client, *transport) {
	t.Helper()
	tr := &transport{h: h}
	c := NewClient(WithBaseURL("https://api.example.com/v1"), WithHTTPClient(&http.Client{Transport: tr}), WithoutRetryBudget())
	return c, tr
}

func reply(w http.ResponseWriter, status int, body string, header ...string) {
	for i := 0; i+1 < len(header); i += 2 {
		w.Header().Set(header[i], header[i+1])
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// The walk of listIssues is ListIssuesAll: the operation listIssuesAll is ListIssuesAllCall.
func TestLinkWalk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var failed bool
		c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Query().Get("page") {
			case "":
				reply(w, 200, `[{"number":1},{"number":2}]`, "Link", `<https://api.example.com/v1/issues?page=2&per_page=2>; rel="next"`)
			case "2":
				if !failed {
					failed = true
					reply(w, 503, `{}`)
					return
				}
				reply(w, 200, `[{"number":3},{"number":4}]`, "Link", `</v1/issues?page=3&per_page=2>; rel="next"`)
			default:
				reply(w, 200, `[{"number":5}]`)
			}
		})
		var got []int64
		for issue, err := range c.ListIssuesAll(t.Context(), &ListIssuesParams{PerPage: Ptr(int64(2))}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, issue.Number)
		}
		if !slices.Equal(got, []int64{1, 2, 3, 4, 5}) {
			t.Errorf("issues %v", got)
		}
		want := []string{"api.example.com/v1/issues?per_page=2", "api.example.com/v1/issues?page=2&per_page=2",
			"api.example.com/v1/issues?page=2&per_page=2", "api.example.com/v1/issues?page=3&per_page=2"}
		if !slices.Equal(tr.asked(), want) {
			t.Errorf("asked %v", tr.asked())
		}
	})
}

// A next link to another host ends the walk with ErrPageLink, and that host gets nothing.
func TestLinkElsewhere(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, `[{"number":1}]`, "Link", `<https://evil.example/v1/issues?page=2>; rel="next"`)
	})
	var pages int
	var last error
	for page, err := range c.ListIssuesPages(t.Context(), nil) {
		if err != nil {
			last = err
			break
		}
		pages++
		if page.Next != "https://evil.example/v1/issues?page=2" {
			t.Errorf("Next %q", page.Next)
		}
	}
	var pe *PageError
	if !errors.Is(last, ErrPageLink) || !errors.As(last, &pe) || pe.Page != 2 || pages != 1 {
		t.Errorf("%d pages, then %v", pages, last)
	}
	if got := tr.asked(); len(got) != 1 {
		t.Errorf("asked %v", got)
	}
}

func TestStripeWalk(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("starting_after") == "" {
			reply(w, 200, `{"object":"list","has_more":true,"data":[{"id":"ch_1"},{"id":"ch_2"}]}`)
			return
		}
		reply(w, 200, `{"object":"list","has_more":false,"data":[{"id":"ch_3"}]}`)
	})
	var ids []string
	for page, err := range c.ListChargesPages(t.Context(), &ListChargesParams{Limit: Ptr(int64(2))}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range page.Items {
			ids = append(ids, ch.ID)
		}
		if page.Response.Object == nil || *page.Response.Object != "list" || page.Info.StatusCode != 200 {
			t.Errorf("page %+v", page)
		}
	}
	if !slices.Equal(ids, []string{"ch_1", "ch_2", "ch_3"}) || !slices.Equal(tr.asked(), []string{"api.example.com/v1/charges?limit=2", "api.example.com/v1/charges?limit=2&starting_after=ch_2"}) {
		t.Errorf("ids %v, asked %v", ids, tr.asked())
	}
}

// A null last_id ends an OpenAI walk.
func TestOpenAIWalk(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("after") == "" {
			reply(w, 200, `{"has_more":true,"data":[{"id":"a1"}],"last_id":"a1"}`)
			return
		}
		reply(w, 200, `{"has_more":true,"data":[{"id":"a2"}],"last_id":null}`)
	})
	n := 0
	for _, err := range c.ListAssistantsAll(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 || len(tr.asked()) != 2 {
		t.Errorf("%d assistants, asked %v", n, tr.asked())
	}
}

// The token is a required argument: the first page sends the caller's, the next the
// response's.
func TestTokenWalk(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("page_token") {
		case "start":
			reply(w, 200, `{"books":["a"],"next_page_token":"t2"}`)
		default:
			reply(w, 200, `{"books":["b"],"next_page_token":""}`)
		}
	})
	var books []string
	for b, err := range c.ListBooksAll(t.Context(), "start") {
		if err != nil {
			t.Fatal(err)
		}
		books = append(books, b)
	}
	if !slices.Equal(books, []string{"a", "b"}) || !slices.Equal(tr.asked(), []string{"api.example.com/v1/books?page_token=start", "api.example.com/v1/books?page_token=t2"}) {
		t.Errorf("books %v, asked %v", books, tr.asked())
	}
}

// The nested cursor goes back in a header; hasMore false ends the walk.
func TestHeaderCursorWalk(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Page-Token") == "" {
			reply(w, 200, `{"data":[1,2],"pageInfo":{"nextCursor":"p2","hasMore":true}}`)
			return
		}
		reply(w, 200, `{"data":[3],"pageInfo":{"nextCursor":"p3","hasMore":false}}`)
	})
	var got []int64
	for v, err := range c.ListSchedulesAll(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if !slices.Equal(got, []int64{1, 2, 3}) || !slices.Equal(tr.asked(), []string{"api.example.com/v1/schedules", "api.example.com/v1/schedules token=p2"}) {
		t.Errorf("got %v, asked %v", got, tr.asked())
	}
}

// Offsets advance by the items received, until a page is shorter than the limit.
func TestOffsetWalk(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("offset") == "4" {
			reply(w, 200, `{"data":[{"id":"m5"}]}`)
			return
		}
		reply(w, 200, `{"data":[{"id":"m"},{"id":"m"}]}`)
	})
	n := 0
	for _, err := range c.ListModelsAll(t.Context(), &ListModelsParams{Limit: Ptr(int64(2))}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	want := []string{"api.example.com/v1/models?limit=2", "api.example.com/v1/models?limit=2&offset=2", "api.example.com/v1/models?limit=2&offset=4"}
	if n != 5 || !slices.Equal(tr.asked(), want) {
		t.Errorf("%d models, asked %v", n, tr.asked())
	}
}

// Page numbers count from the parameter's default, 0, until the page count.
func TestPageNumberWalk(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, `{"data":["r"],"meta":{"total_pages":3}}`)
	})
	n := 0
	for _, err := range c.ListRulesAll(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	want := []string{"api.example.com/v1/rules", "api.example.com/v1/rules?page_number=1", "api.example.com/v1/rules?page_number=2"}
	if n != 3 || !slices.Equal(tr.asked(), want) {
		t.Errorf("%d rules, asked %v", n, tr.asked())
	}
}

// A next URL in the body is followed like a Link, relative ones resolved.
func TestURLWalk(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("p") == "" {
			reply(w, 200, `{"items":["a"],"links":{"next":"links?p=2"}}`)
			return
		}
		reply(w, 200, `{"items":["b"],"links":{}}`)
	})
	var got []string
	for v, err := range c.ListLinksAll(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if !slices.Equal(got, []string{"a", "b"}) || !slices.Equal(tr.asked(), []string{"api.example.com/v1/links", "api.example.com/v1/links?p=2"}) {
		t.Errorf("got %v, asked %v", got, tr.asked())
	}
}

// The last item's numeric id is the next cursor; a server that gives the same page for
// every cursor ends the walk with ErrPageLoop after two pages.
func TestRepeatedCursor(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, `[{"id":7}]`)
	})
	var pages []string
	var last error
	for page, err := range c.ListCustomersPages(t.Context(), nil) {
		if err != nil {
			last = err
			break
		}
		pages = append(pages, page.Next)
	}
	if !errors.Is(last, ErrPageLoop) || !slices.Equal(pages, []string{"7", "7"}) || len(tr.asked()) != 2 {
		t.Errorf("pages %v, then %v; asked %v", pages, last, tr.asked())
	}
	if want := "page 3: " + ErrPageLoop.Error(); fmt.Sprint(last) != want {
		t.Errorf("error %q, want %q", last, want)
	}
}

// Resuming with WithCursor, stopping with WithMaxPages, breaking out of the loop.
func TestWalkOptions(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		after := r.URL.Query().Get("starting_after")
		reply(w, 200, `{"has_more":true,"data":[{"id":"`+after+`x"}]}`)
	})
	n := 0
	for _, err := range c.ListChargesAll(t.Context(), nil, WithCursor("c"), WithMaxPages(3)) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	want := []string{"api.example.com/v1/charges?starting_after=c", "api.example.com/v1/charges?starting_after=cx", "api.example.com/v1/charges?starting_after=cxx"}
	if n != 3 || !slices.Equal(tr.asked(), want) {
		t.Errorf("%d charges, asked %v", n, tr.asked())
	}
	for range c.ListChargesAll(t.Context(), nil) {
		break
	}
	if len(tr.asked()) != 4 {
		t.Errorf("breaking out sent more: %v", tr.asked()[3:])
	}
	for _, err := range c.ListChargesAll(t.Context(), nil, WithIdempotencyKey("k")) {
		if !errors.Is(err, ErrOptionDoesNotApply) || !strings.Contains(err.Error(), "WithIdempotencyKey") {
			t.Errorf("WithIdempotencyKey: %v", err)
		}
	}
	if len(tr.asked()) != 4 {
		t.Errorf("WithIdempotencyKey sent %v", tr.asked()[4:])
	}
}

// Nullable has_more and next_cursor: null says nothing, a null cursor ends the walk.
func TestNullableCursorWalk(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("cursor") == "" {
			reply(w, 200, `{"data":["a"],"has_more":null,"next_cursor":"e2"}`)
			return
		}
		reply(w, 200, `{"data":["b"],"has_more":true,"next_cursor":null}`)
	})
	var got []string
	for v, err := range c.ListEventsAll(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if !slices.Equal(got, []string{"a", "b"}) || !slices.Equal(tr.asked(), []string{"api.example.com/v1/events", "api.example.com/v1/events?cursor=e2"}) {
		t.Errorf("got %v, asked %v", got, tr.asked())
	}
}
