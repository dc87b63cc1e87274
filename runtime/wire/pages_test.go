package wire

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/retrygen/retrygen/runtime"
)

// pageServer answers each request with answer, and keeps every request it got, on every
// host: a request to another host than the API's shows up here too.
type pageServer struct {
	answer func(n int, req *http.Request) (status int, header http.Header, body string)

	mu   sync.Mutex
	reqs []*http.Request
}

func (s *pageServer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	s.mu.Unlock()
	status, header, body := s.answer(n, req)
	if header == nil {
		header = http.Header{}
	}
	header.Set("Content-Type", "application/json")
	return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

// urls returns the URLs of the requests so far.
func (s *pageServer) urls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.reqs {
		out = append(out, r.URL.String())
	}
	return out
}

// testPage is what a generated <Op>Page holds.
type testPage struct {
	Items []string
	Info  ResponseInfo
	Next  string
}

// listResponse is a response of the test operation: items, and the fields each kind of
// walk reads.
type listResponse struct {
	Data    []string `json:"data"`
	HasMore *bool    `json:"has_more"`
	Next    string   `json:"next"`
	Pages   int      `json:"pages"`
}

var pagePolicy = runtime.Policy{MaxAttempts: 3, InitialDelay: 100 * time.Millisecond, MaxDelay: time.Second,
	Multiplier: 2, StatusCodes: []runtime.StatusCode{503}, ConnectionErrors: true, Idempotent: true}

// walk is what a generated <Op>Pages method does: it calls the operation's method (here
// GET /v1/items, with the query parameters query) once per page.
func walk(c *Client, p *Pager, query map[string]string, opts ...CallOption) func(func(*testPage, error) bool) {
	list := func(ctx context.Context, opts ...CallOption) (*listResponse, error) {
		r := NewRequest("GET")
		r.Path("/items")
		for k, v := range query {
			r.QueryParam(k, QueryForm, v)
		}
		resp, err := c.Fetch(ctx, r, &pagePolicy, "application/json", opts)
		if err != nil {
			return nil, err
		}
		out := new(listResponse)
		if err := DecodeJSON(resp, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	return Walk(p, opts, func(pg *PageStep) (*testPage, error) {
		resp, err := list(context.Background(), append(opts[:len(opts):len(opts)], pg.Option())...)
		if err != nil {
			return nil, err
		}
		out := &testPage{Items: resp.Data, Info: pg.Info()}
		out.Next = pg.Next(PageFacts{Items: len(resp.Data), More: resp.HasMore, Cursor: resp.Next, Pages: resp.Pages})
		return out, nil
	})
}

func pageClient(t *testing.T, s *pageServer, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithHTTPClient(&http.Client{Transport: s}), WithoutRetryBudget()}, opts...)
	c, err := NewClient("https://api.example.com/v1", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func body(items []string, extra ...string) string {
	m := map[string]any{"data": items}
	for i := 0; i+1 < len(extra); i += 2 {
		var v any
		json.Unmarshal([]byte(extra[i+1]), &v)
		m[extra[i]] = v
	}
	data, _ := json.Marshal(m)
	return string(data)
}

// collect runs the walk to its end, and returns the items of its pages and the error
// that ended it.
func collect(pages func(func(*testPage, error) bool)) ([]string, []*testPage, error) {
	var items []string
	var got []*testPage
	for p, err := range pages {
		if err != nil {
			return items, got, err
		}
		items = append(items, p.Items...)
		got = append(got, p)
	}
	return items, got, nil
}

// A Link walk follows rel="next" page by page; a 503 on the second page is retried inside
// that page's call, so four requests bring three pages, each item once.
func TestWalkFollowsLinks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
			switch req.URL.Query().Get("page") {
			case "":
				return 200, http.Header{"Link": {`<https://api.example.com/v1/items?page=2>; rel="next", <https://api.example.com/v1/items?page=3>; rel="last"`}}, body([]string{"a", "b"})
			case "2":
				if n == 2 {
					return 503, nil, `{}`
				}
				return 200, http.Header{"Link": {`</v1/items?page=3>; rel="next"`}}, body([]string{"c"})
			}
			return 200, http.Header{"Link": {`<https://api.example.com/v1/items?page=2>; rel="prev"`}}, body([]string{"d"})
		}}
		items, pages, err := collect(walk(pageClient(t, s), &Pager{Kind: PageLink}, nil))
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"a", "b", "c", "d"}; !slices.Equal(items, want) {
			t.Errorf("items %v, want %v", items, want)
		}
		if got := s.urls(); len(got) != 4 {
			t.Errorf("%d requests, want 4: %v", len(got), got)
		}
		if pages[1].Info.Attempts != 2 || pages[0].Info.Attempts != 1 || pages[1].Info.StatusCode != 200 {
			t.Errorf("page infos %+v, %+v: want 1 then 2 attempts", pages[0].Info, pages[1].Info)
		}
		if pages[0].Next != "https://api.example.com/v1/items?page=2" || pages[1].Next != "https://api.example.com/v1/items?page=3" || pages[2].Next != "" {
			t.Errorf("cursors %q, %q, %q", pages[0].Next, pages[1].Next, pages[2].Next)
		}
	})
}

// A next link is followed only within the API: the base URL's scheme, host and port,
// under its path. Anything else ends the walk with ErrPageLink after the page that gave
// it, and nothing is sent there.
func TestWalkRefusesLinksOutsideTheAPI(t *testing.T) {
	for _, link := range []string{
		"https://evil.example/v1/items?page=2",
		"http://api.example.com/v1/items?page=2",
		"https://api.example.com:8443/v1/items?page=2",
		"https://api.example.com/v2/items?page=2",
		"https://api.example.com/v1x/items",
		"https://api.example.com/v1/%2e%2e/admin",
		"https://api.example.com/v1/..%5Cadmin",
		"https://user:pw@api.example.com/v1/items?page=2",
		"//evil.example/v1/items",
		"https://[::1",
		// Path parameters: Tomcat and Spring read "..;" as "..".
		"https://api.example.com/v1/..;/admin/keys",
		"/v1/items/..;/..;/admin",
		"https://api.example.com/v1/%2e%2e;/admin",
		"https://api.example.com/v1/%2E%2E;jsessionid=x/admin",
		"https://api.example.com/v1/.%2E;x/admin",
		"https://api.example.com/v1/..%3b/admin",
		"https://api.example.com/v1/.;/items",
		// What a server that decodes the path twice reads as a dot segment or a backslash.
		"https://api.example.com/v1/%252e%252e/admin",
		"https://api.example.com/v1/%252E%252E%253B/admin",
		"https://api.example.com/v1/..%255cadmin",
		"https://api.example.com/v1/%25252e%25252e/admin",
		// Dots and spaces alone, which Windows servers trim to "..".
		"https://api.example.com/v1/.../admin",
		"https://api.example.com/v1/..%20/admin",
		"https://api.example.com/v1/..%00/admin",
		"https://api.example.com/v1/%EF%BC%8E%EF%BC%8E/admin",
		"https://api.example.com/v1/\u2024\u2024;x/admin",
	} {
		s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
			return 200, http.Header{"Link": {"<" + link + `>; rel="next"`}}, body([]string{"a"})
		}}
		items, _, err := collect(walk(pageClient(t, s, WithRequestEditor(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer secret")
			return nil
		})), &Pager{Kind: PageLink}, nil))
		if !errors.Is(err, runtime.ErrPageLink) || !slices.Equal(items, []string{"a"}) {
			t.Errorf("%s: items %v, err %v; want page 1, then ErrPageLink", link, items, err)
		}
		if pe, ok := errors.AsType[*runtime.PageError](err); !ok || pe.Page != 2 {
			t.Errorf("%s: %v: want a *PageError for page 2", link, err)
		}
		if got := s.urls(); len(got) != 1 {
			t.Errorf("%s: sent %v, want only the first page", link, got)
		}
		if strings.Contains(err.Error(), "pw") {
			t.Errorf("%s: the error shows the link's password: %v", link, err)
		}
	}
	// A path parameter or an encoded character that is no dot segment is followed.
	for _, link := range []string{"/v1/items;v=2?page=2", "/v1/a..b/%2e%2ex?page=2", "/v1/items/%25?page=2"} {
		s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
			if n == 1 {
				return 200, http.Header{"Link": {"<" + link + `>; rel="next"`}}, body([]string{"a"})
			}
			return 200, nil, body([]string{"b"})
		}}
		if items, _, err := collect(walk(pageClient(t, s), &Pager{Kind: PageLink}, nil)); err != nil || len(items) != 2 {
			t.Errorf("%s: items %v, err %v", link, items, err)
		}
	}
}

// The error that refuses a next link shows it on one line, cut short: a 1 MB link does
// not make a 1 MB error.
func TestWalkRefusedLinkIsShownCut(t *testing.T) {
	for _, link := range []string{
		"https://evil.example/" + strings.Repeat("a", 1<<20),
		"https://evil.example/" + strings.Repeat("é", 1<<19),
		"https://evil.example/x?q=" + strings.Repeat("s", 1<<20),
		"https://evil.example\u202e.test/x",
	} {
		s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
			return 200, http.Header{"Link": {"<" + link + `>; rel="next"`}}, body([]string{"a"})
		}}
		_, _, err := collect(walk(pageClient(t, s), &Pager{Kind: PageLink}, nil))
		if !errors.Is(err, runtime.ErrPageLink) {
			t.Fatalf("%.40q: err %v, want ErrPageLink", link, err)
		}
		if text := err.Error(); len(text) > 400 || !utf8.ValidString(text) || strings.ContainsRune(text, '\u202e') {
			t.Errorf("%.40q: %d bytes of error text: %.300q", link, len(text), text)
		}
	}
	// The default port may be written out; the host's case does not matter.
	s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
		if n == 1 {
			return 200, http.Header{"Link": {`<https://API.example.com:443/v1/more?page=2>; rel="next"`}}, body([]string{"a"})
		}
		return 200, nil, body([]string{"b"})
	}}
	if items, _, err := collect(walk(pageClient(t, s), &Pager{Kind: PageLink}, nil)); err != nil || len(items) != 2 {
		t.Errorf("a link with the default port: items %v, err %v", items, err)
	}
}

// A Link page keeps the query credentials, and its cursor carries none of them.
func TestWalkLinkKeepsQueryCredentials(t *testing.T) {
	s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
		if n == 1 {
			return 200, http.Header{"Link": {`<?page=2&api_key=leaked>; rel="next"`}}, body([]string{"a"})
		}
		return 200, nil, body([]string{"b"})
	}}
	c := pageClient(t, s, WithCredential("key", APIKey("query", "api_key", "s3cret")))
	_, pages, err := collect(walkSecured(c, &Pager{Kind: PageLink}))
	if err != nil {
		t.Fatal(err)
	}
	got := s.urls()
	if len(got) != 2 || got[0] != "https://api.example.com/v1/items?api_key=s3cret" || got[1] != "https://api.example.com/v1/items?api_key=s3cret&page=2" {
		t.Errorf("sent %v", got)
	}
	if strings.Contains(pages[0].Next, "s3cret") || pages[0].Next != "https://api.example.com/v1/items?page=2&api_key=leaked" {
		t.Errorf("cursor %q", pages[0].Next)
	}
}

// walkSecured is walk for an operation whose security is an API key in the query.
func walkSecured(c *Client, p *Pager) func(func(*testPage, error) bool) {
	return Walk(p, nil, func(pg *PageStep) (*testPage, error) {
		r := NewRequest("GET")
		r.Path("/items")
		r.Security([]string{"key"})
		resp, err := c.Fetch(context.Background(), r, &pagePolicy, "", []CallOption{pg.Option()})
		if err != nil {
			return nil, err
		}
		out := new(listResponse)
		if err := DecodeJSON(resp, out); err != nil {
			return nil, err
		}
		return &testPage{Items: out.Data, Next: pg.Next(PageFacts{Items: len(out.Data)})}, nil
	})
}

// A server that gives the same cursor forever ends the walk with ErrPageLoop after two
// pages.
func TestWalkStopsOnARepeatedCursor(t *testing.T) {
	s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
		return 200, nil, body([]string{"a"}, "has_more", "true", "next", `"c1"`)
	}}
	items, _, err := collect(walk(pageClient(t, s), &Pager{Kind: PageCursor, In: "query", Param: "cursor"}, nil))
	if !errors.Is(err, runtime.ErrPageLoop) || len(items) != 2 {
		t.Errorf("items %v, err %v; want 2 pages, then ErrPageLoop", items, err)
	}
	if got := s.urls(); !slices.Equal(got, []string{"https://api.example.com/v1/items", "https://api.example.com/v1/items?cursor=c1"}) {
		t.Errorf("sent %v", got)
	}
}

// A cursor walk ends at has_more false, at an empty page and at an empty cursor.
func TestWalkCursorEnds(t *testing.T) {
	for name, last := range map[string]string{
		"has_more false": body([]string{"z"}, "has_more", "false", "next", `"c9"`),
		"empty page":     body(nil, "has_more", "true", "next", `"c9"`),
		"no cursor":      body([]string{"z"}, "has_more", "true"),
	} {
		s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
			if n == 1 {
				return 200, nil, body([]string{"a"}, "has_more", "true", "next", `"c&1"`)
			}
			return 200, nil, last
		}}
		_, pages, err := collect(walk(pageClient(t, s), &Pager{Kind: PageCursor, In: "query", Param: "starting_after"}, nil))
		if err != nil || len(pages) != 2 || pages[1].Next != "" {
			t.Errorf("%s: %d pages, err %v", name, len(pages), err)
		}
		if got := s.urls(); len(got) != 2 || got[1] != "https://api.example.com/v1/items?starting_after=c%261" {
			t.Errorf("%s: sent %v", name, got)
		}
	}
}

// Stopping the loop sends nothing more; WithMaxPages ends the walk after n pages without
// an error.
func TestWalkStops(t *testing.T) {
	endless := func() *pageServer {
		return &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
			return 200, nil, body([]string{"a", "b"}, "next", `"c`+strings.Repeat("x", n)+`"`)
		}}
	}
	s := endless()
	for range walk(pageClient(t, s), &Pager{Kind: PageCursor, In: "query", Param: "cursor"}, nil) {
		break
	}
	if n := len(s.urls()); n != 1 {
		t.Errorf("breaking out of the first page sent %d requests", n)
	}
	s = endless()
	for item, err := range Items(walk(pageClient(t, s), &Pager{Kind: PageCursor, In: "query", Param: "cursor"}, nil), func(p *testPage, i int) (string, bool) {
		if i < len(p.Items) {
			return p.Items[i], true
		}
		return "", false
	}) {
		if err != nil || item == "b" {
			break
		}
	}
	if n := len(s.urls()); n != 1 {
		t.Errorf("breaking out of Items within the first page sent %d requests", n)
	}
	// All, which clients generated for version 3 call, walks the same way.
	s = endless()
	var got []string
	for item, err := range All(walk(pageClient(t, s), &Pager{Kind: PageCursor, In: "query", Param: "cursor"}, nil, WithMaxPages(2)), func(p *testPage) []string { return p.Items }) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, item)
	}
	if strings.Join(got, ",") != "a,b,a,b" || len(s.urls()) != 2 {
		t.Errorf("All over two pages yielded %v in %d requests, want a,b,a,b in 2", got, len(s.urls()))
	}
	s = endless()
	_, pages, err := collect(walk(pageClient(t, s), &Pager{Kind: PageCursor, In: "query", Param: "cursor"}, nil, WithMaxPages(3)))
	if err != nil || len(pages) != 3 || len(s.urls()) != 3 {
		t.Errorf("WithMaxPages(3): %d pages, %d requests, err %v", len(pages), len(s.urls()), err)
	}
}

// A page that fails ends the walk with a *PageError holding its cursor; WithCursor
// resumes the walk there. The failure is retried inside the page's call only.
func TestWalkResumesWithCursor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		down := true
		s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
			switch req.URL.Query().Get("cursor") {
			case "":
				return 200, nil, body([]string{"a"}, "next", `"c2"`)
			case "c2":
				if down {
					return 503, nil, `{}`
				}
				return 200, nil, body([]string{"b"}, "next", `"c3"`)
			}
			return 200, nil, body([]string{"c"})
		}}
		c := pageClient(t, s)
		pager := &Pager{Kind: PageCursor, In: "query", Param: "cursor"}
		var info ResponseInfo
		items, _, err := collect(walk(c, pager, nil, WithResponseInfo(&info)))
		pe, ok := errors.AsType[*runtime.PageError](err)
		if !ok || pe.Page != 2 || pe.Cursor != "c2" || !slices.Equal(items, []string{"a"}) {
			t.Fatalf("items %v, err %v: want page 2 to fail with cursor c2", items, err)
		}
		if apiErr, ok := errors.AsType[*runtime.Error](err); !ok || apiErr.Attempts != 3 || !errors.Is(err, runtime.ErrExhausted) {
			t.Errorf("err %v: want the page's *Error after its 3 attempts", err)
		}
		if n := len(s.urls()); n != 4 {
			t.Errorf("%d requests, want 1 + the failed page's 3 attempts", n)
		}
		if info.StatusCode != 503 || info.Attempts != 3 {
			t.Errorf("WithResponseInfo %+v: want the last page's call", info)
		}
		if want := "page 2: GET https://api.example.com/v1/items?cursor=REDACTED: 503 Service Unavailable after 3 attempts: retry attempts exhausted"; err.Error() != want {
			t.Errorf("error %q\nwant  %q", err, want)
		}
		down = false
		items, _, err = collect(walk(c, pager, nil, WithCursor(pe.Cursor)))
		if err != nil || !slices.Equal(items, []string{"b", "c"}) {
			t.Errorf("resumed: items %v, err %v", items, err)
		}
	})
}

// Offsets advance by the items a page held, from the offset the first request sent; a
// page shorter than the limit is the last. Page numbers count from the request's, or the
// parameter's default.
func TestWalkOffsetsAndPageNumbers(t *testing.T) {
	s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
		if n < 3 {
			return 200, nil, body([]string{"a", "b"})
		}
		return 200, nil, body([]string{"c"})
	}}
	_, pages, err := collect(walk(pageClient(t, s), &Pager{Kind: PageOffset, In: "query", Param: "offset", Limit: "limit"},
		map[string]string{"offset": "10", "limit": "2"}))
	want := []string{
		"https://api.example.com/v1/items?limit=2&offset=10",
		"https://api.example.com/v1/items?limit=2&offset=12",
		"https://api.example.com/v1/items?limit=2&offset=14",
	}
	if err != nil || !slices.Equal(s.urls(), want) || pages[1].Next != "14" || pages[2].Next != "" {
		t.Errorf("offsets: sent %v, err %v", s.urls(), err)
	}

	s = &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
		return 200, nil, body([]string{"a"}, "pages", "3")
	}}
	_, _, err = collect(walk(pageClient(t, s), &Pager{Kind: PageNumber, In: "query", Param: "page", First: 1}, nil))
	want = []string{
		"https://api.example.com/v1/items",
		"https://api.example.com/v1/items?page=2",
		"https://api.example.com/v1/items?page=3",
	}
	if err != nil || !slices.Equal(s.urls(), want) {
		t.Errorf("page numbers: sent %v, err %v", s.urls(), err)
	}
	// Counted from 0, three pages are 0, 1 and 2.
	s.reqs = nil
	_, _, err = collect(walk(pageClient(t, s), &Pager{Kind: PageNumber, In: "query", Param: "page", First: 0}, nil))
	want = []string{
		"https://api.example.com/v1/items",
		"https://api.example.com/v1/items?page=1",
		"https://api.example.com/v1/items?page=2",
	}
	if err != nil || !slices.Equal(s.urls(), want) {
		t.Errorf("page numbers from 0: sent %v, err %v", s.urls(), err)
	}

	// A cursor that is not a number fails the page before it is sent.
	s = &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) { return 200, nil, body([]string{"a"}) }}
	_, _, err = collect(walk(pageClient(t, s), &Pager{Kind: PageOffset, In: "query", Param: "offset"}, nil, WithCursor("1; drop")))
	if err == nil || len(s.urls()) != 0 {
		t.Errorf("a bad offset cursor: err %v, sent %v", err, s.urls())
	}
}

// A cursor can go in a header; one with a control character fails the page unsent.
func TestWalkCursorInHeader(t *testing.T) {
	s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
		if n == 1 {
			return 200, nil, body([]string{"a"}, "next", `"t2"`)
		}
		return 200, nil, body([]string{"b"}, "next", `"t\r\nX-Evil: 1"`)
	}}
	_, _, err := collect(walk(pageClient(t, s), &Pager{Kind: PageCursor, In: "header", Param: "X-Page-Token"}, nil))
	if s.reqs[1].Header.Get("X-Page-Token") != "t2" || err == nil || len(s.urls()) != 2 {
		t.Errorf("header cursor: %q, err %v, %d requests", s.reqs[1].Header.Get("X-Page-Token"), err, len(s.urls()))
	}
}

// Each page is a call of its own: one idempotency key cannot be every page's, so the walk
// refuses WithIdempotencyKey before sending anything.
func TestWalkRefusesAnIdempotencyKey(t *testing.T) {
	s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) { return 200, nil, body([]string{"a"}) }}
	_, _, err := collect(walk(pageClient(t, s), &Pager{Kind: PageLink}, nil, WithIdempotencyKey("k")))
	if !errors.Is(err, runtime.ErrOptionDoesNotApply) || len(s.urls()) != 0 {
		t.Errorf("err %v, sent %v", err, s.urls())
	}
}

func TestNextLink(t *testing.T) {
	for in, want := range map[string]string{
		`<https://a/x?page=2>; rel="next", <https://a/x?page=9>; rel="last"`: "https://a/x?page=2",
		`<https://a/x?page=1>; rel="prev", <https://a/x?page=3>; rel=next`:   "https://a/x?page=3",
		`<https://a/x?p=2>; title="a, b; rel=next"; rel="prev"`:              "",
		`<https://a/x?p=2>; REL="prev NEXT"`:                                 "https://a/x?p=2",
		`<https://a/x?p=2>; rel="nextish"`:                                   "",
		`<https://a/x?p=2>; rel="prev"; rel="next"`:                          "",
		`<https://a/x?p=2`:                       "",
		`garbage, <https://a/x?p=2>; rel="next"`: "",
		``:                                       "",
	} {
		if got := nextLink(http.Header{"Link": {in}}); got != want {
			t.Errorf("nextLink(%s) = %q, want %q", in, got, want)
		}
	}
	if got := nextLink(http.Header{"Link": {`<https://a/1>; rel="prev"`, `<https://a/2>; rel="next"`}}); got != "https://a/2" {
		t.Errorf("two Link fields: %q", got)
	}
}

// freshCursors is the page function of a walk whose every page holds one item and a
// cursor never given before, of size bytes: a server that never ends its list.
func freshCursors(size int) func(step *PageStep) (*testPage, error) {
	n := 0
	return func(step *PageStep) (*testPage, error) {
		n++
		cursor := strconv.Itoa(n) + strings.Repeat("c", size)
		return &testPage{Items: []string{"a"}, Next: step.Next(PageFacts{Items: 1, Cursor: cursor})}, nil
	}
}

// liveHeap returns the bytes of live heap, after a collection.
func liveHeap() uint64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A walk remembers the cursors it used by a hash of each, not whole: 300 pages of 256 KiB
// cursors (75 MiB of cursors) leave the caller's live heap about where it was, and a
// repeated one is still caught.
func TestWalkRemembersCursorsByHash(t *testing.T) {
	const pages, size = 300, 256 << 10
	before := liveHeap()
	var grown uint64
	n := 0
	for _, err := range Walk(&Pager{Kind: PageCursor, In: "query", Param: "cursor"}, nil, freshCursors(size)) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == pages {
			grown = max(liveHeap(), before) - before
			break
		}
	}
	if grown > 8<<20 {
		t.Errorf("%d pages of %d KiB cursors grew the live heap by %d MiB", pages, size>>10, grown>>20)
	}

	repeat := 0
	_, _, err := collect(Walk(&Pager{Kind: PageCursor}, nil, func(step *PageStep) (*testPage, error) {
		repeat++
		return &testPage{Items: []string{"a"}, Next: step.Next(PageFacts{Items: 1, Cursor: strings.Repeat("c", size)})}, nil
	}))
	if pe, ok := errors.AsType[*runtime.PageError](err); !ok || !errors.Is(err, runtime.ErrPageLoop) || pe.Page != 3 || repeat != 2 {
		t.Errorf("a repeated 256 KiB cursor: %d pages, err %v; want 2 pages, then ErrPageLoop", repeat, err)
	}
}

// collectAtMost is collect for a walk that may not end: it stops after limit pages.
func collectAtMost(pages func(func(*testPage, error) bool), limit int) (got []*testPage, err error) {
	for p, err := range pages {
		if err != nil || len(got) == limit {
			return got, err
		}
		got = append(got, p)
	}
	return got, nil
}

// A walk that never reaches a last page ends after DefaultMaxPages pages with
// ErrTooManyPages; WithMaxPages sets another bound, which ends the walk without an error.
func TestWalkHasADefaultPageBound(t *testing.T) {
	pager := &Pager{Kind: PageCursor, In: "query", Param: "cursor"}
	const enough = 2 * DefaultMaxPages
	pages, err := collectAtMost(Walk(pager, nil, freshCursors(0)), enough)
	pe, ok := errors.AsType[*runtime.PageError](err)
	if !errors.Is(err, runtime.ErrTooManyPages) || !ok || pe.Page != DefaultMaxPages+1 || len(pages) != DefaultMaxPages {
		t.Errorf("%d pages, err %v; want %d pages, then ErrTooManyPages", len(pages), err, DefaultMaxPages)
	}
	if pe != nil && pe.Cursor == "" {
		t.Error("the error has no cursor to resume the walk with")
	}
	for _, n := range []int{0, -1} {
		if pages, err := collectAtMost(Walk(pager, []CallOption{WithMaxPages(n)}, freshCursors(0)), enough); !errors.Is(err, runtime.ErrTooManyPages) || len(pages) != DefaultMaxPages {
			t.Errorf("WithMaxPages(%d): %d pages, err %v; want the default bound", n, len(pages), err)
		}
	}
	if pages, err := collectAtMost(Walk(pager, []CallOption{WithMaxPages(DefaultMaxPages + 5)}, freshCursors(0)), enough); err != nil || len(pages) != DefaultMaxPages+5 {
		t.Errorf("WithMaxPages(DefaultMaxPages+5): %d pages, err %v", len(pages), err)
	}
}
