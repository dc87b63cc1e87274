package pagingshapes

// These tests run against the generated client of this case (want.go, copied next to them
// by gen's TestGoldenCompiles): each shape found without an extension walks its pages on
// the wire, and a next link off the client's origin is not followed.

import (
	"context"
	"errors"
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
	seen []string
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	tr.mu.Lock()
	tr.seen = append(tr.seen, req.URL.Host+req.URL.RequestURI())
	tr.mu.Unlock()
	rec := httptest.NewRecorder()
	tr.h(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

func newClient(t *testing.T, h http.HandlerFunc) (*Client, *transport) {
	t.Helper()
	tr := &transport{h: h}
	c := NewClient(WithBaseURL("https://api.example.com/v1"), WithHTTPClient(&http.Client{Transport: tr}), WithoutRetryBudget())
	return c, tr
}

func reply(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, body)
}

// ids walks all, and returns the ids of the items and the error that ended the walk.
func ids(all func(yield func(*Message, error) bool)) ([]string, error) {
	var got []string
	for m, err := range all {
		if err != nil {
			return got, err
		}
		got = append(got, *m.ID)
	}
	return got, nil
}

// walk checks the items a walk yields and the requests it sent.
func walk(t *testing.T, all func(ctx context.Context, c *Client) func(yield func(*Message, error) bool), pages map[string]string, wantAsked ...string) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			body, ok := pages[r.URL.RequestURI()]
			if !ok {
				t.Errorf("unexpected request %s", r.URL.RequestURI())
				body = `{}`
			}
			reply(w, body)
		})
		got, err := ids(all(t.Context(), c))
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"1", "2", "3"}; !slices.Equal(got, want) {
			t.Errorf("items %v, want %v", got, want)
		}
		if !slices.Equal(tr.seen, wantAsked) {
			t.Errorf("asked\n%s\nwant\n%s", strings.Join(tr.seen, "\n"), strings.Join(wantAsked, "\n"))
		}
	})
}

func TestTwilioNextPageURI(t *testing.T) {
	walk(t, func(ctx context.Context, c *Client) func(yield func(*Message, error) bool) {
		return c.ListMessageAll(ctx, &ListMessageParams{PageSize: Ptr(int64(2))})
	}, map[string]string{
		"/v1/Messages.json?PageSize=2":                      `{"messages":[{"id":"1"},{"id":"2"}],"next_page_uri":"/v1/Messages.json?PageSize=2&Page=1&PageToken=PA2"}`,
		"/v1/Messages.json?Page=1&PageSize=2&PageToken=PA2": `{"messages":[{"id":"3"}],"next_page_uri":null}`,
	}, "api.example.com/v1/Messages.json?PageSize=2", "api.example.com/v1/Messages.json?Page=1&PageSize=2&PageToken=PA2")
}

func TestDigitalOceanLinksPagesNext(t *testing.T) {
	walk(t, func(ctx context.Context, c *Client) func(yield func(*Message, error) bool) {
		return c.ListDropletsAll(ctx, nil)
	}, map[string]string{
		"/v1/droplets":        `{"droplets":[{"id":"1"},{"id":"2"}],"links":{"pages":{"last":"https://api.example.com/v1/droplets?page=2","next":"https://api.example.com/v1/droplets?page=2"}},"meta":{"total":3}}`,
		"/v1/droplets?page=2": `{"droplets":[{"id":"3"}],"links":{"pages":{"first":"https://api.example.com/v1/droplets?page=1","prev":"https://api.example.com/v1/droplets?page=1"}},"meta":{"total":3}}`,
	}, "api.example.com/v1/droplets", "api.example.com/v1/droplets?page=2")
}

func TestHALNextHref(t *testing.T) {
	walk(t, func(ctx context.Context, c *Client) func(yield func(*Message, error) bool) {
		return c.ListOrdersAll(ctx)
	}, map[string]string{
		"/v1/orders":        `{"orders":[{"id":"1"},{"id":"2"}],"_links":{"self":{"href":"/v1/orders"},"next":{"href":"/v1/orders?page=2"}}}`,
		"/v1/orders?page=2": `{"orders":[{"id":"3"}],"_links":{"self":{"href":"/v1/orders?page=2"}}}`,
	}, "api.example.com/v1/orders", "api.example.com/v1/orders?page=2")
}

func TestNextURI(t *testing.T) {
	walk(t, func(ctx context.Context, c *Client) func(yield func(*Message, error) bool) {
		return c.ListPeopleAll(ctx, &ListPeopleParams{Search: Ptr("a")})
	}, map[string]string{
		"/v1/people?search=a":        `{"count":3,"next":"https://api.example.com/v1/people?page=2&search=a","previous":null,"results":[{"id":"1"},{"id":"2"}]}`,
		"/v1/people?page=2&search=a": `{"count":3,"next":null,"previous":"https://api.example.com/v1/people?search=a","results":[{"id":"3"}]}`,
	}, "api.example.com/v1/people?search=a", "api.example.com/v1/people?page=2&search=a")
}

func TestBoxMarker(t *testing.T) {
	walk(t, func(ctx context.Context, c *Client) func(yield func(*Message, error) bool) {
		return c.ListCollaborationsAll(ctx, &ListCollaborationsParams{Limit: Ptr(int64(2))})
	}, map[string]string{
		"/v1/collaborations?limit=2":                 `{"entries":[{"id":"1"},{"id":"2"}],"limit":2,"next_marker":"JV9IRGZm"}`,
		"/v1/collaborations?limit=2&marker=JV9IRGZm": `{"entries":[{"id":"3"}],"limit":2,"next_marker":null}`,
	}, "api.example.com/v1/collaborations?limit=2", "api.example.com/v1/collaborations?limit=2&marker=JV9IRGZm")
}

// An offset walk ends at the page with fewer items than the limit asked for.
func TestOffsetLimitTotal(t *testing.T) {
	walk(t, func(ctx context.Context, c *Client) func(yield func(*Message, error) bool) {
		return c.ListGroupsAll(ctx, &ListGroupsParams{Limit: Ptr(int64(2))})
	}, map[string]string{
		"/v1/groups?limit=2":          `{"entries":[{"id":"1"},{"id":"2"}],"order":[],"total_count":3,"offset":0,"limit":2}`,
		"/v1/groups?limit=2&offset=2": `{"entries":[{"id":"3"}],"order":[],"total_count":3,"offset":2,"limit":2}`,
	}, "api.example.com/v1/groups?limit=2", "api.example.com/v1/groups?limit=2&offset=2")
}

// A next page's URL on another host, or outside the API's path, is not followed: the walk
// ends with ErrPageLink and nothing is sent there.
func TestNextURLOffOrigin(t *testing.T) {
	for _, next := range []string{"https://evil.example.com/v1/droplets?page=2", "https://api.example.com/admin?page=2", "//evil.example.com/v1/droplets"} {
		synctest.Test(t, func(t *testing.T) {
			c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
				reply(w, `{"droplets":[{"id":"1"}],"links":{"pages":{"next":"`+next+`"}}}`)
			})
			got, err := ids(c.ListDropletsAll(t.Context(), nil))
			var pe *PageError
			if !errors.Is(err, ErrPageLink) || !errors.As(err, &pe) || pe.Page != 2 || !slices.Equal(got, []string{"1"}) {
				t.Errorf("%s: items %v, error %v", next, got, err)
			}
			if len(tr.seen) != 1 {
				t.Errorf("%s: sent %v", next, tr.seen)
			}
		})
	}
}
