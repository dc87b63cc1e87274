package e2e

// Paginated lists on the wire: each page is one call of the operation's method, with its
// own retries under the client's budget and breaker, and none on top; the walk follows
// links only within the API, ends on a cursor it has seen, and sends nothing more once
// the loop stops.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/retrygen/retrygen/e2e/clientapi"
)

// linkedPages serves the Link-paged list of items: page n (from 1, by the page
// parameter) holds items 2n-1 and 2n and links to page n+1, until page last. fail, when
// set, answers instead as long as it returns true for the page.
func linkedPages(last int, fail func(page int) bool) step {
	return func(w http.ResponseWriter, r *http.Request, a *arrival) {
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		n = max(n, 1)
		if fail != nil && fail(n) {
			status(503)(w, r, a)
			return
		}
		if n < last {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/v1/pages/items?page=%d>; rel="next"`, clientAddr, n+1))
		}
		reply(200, fmt.Sprintf(`[{"id":%d},{"id":%d}]`, 2*n-1, 2*n))(w, r, a)
	}
}

// ids collects the items' ids of a walk, and the error that ended it.
func ids(items func(func(*clientapi.Item, error) bool)) ([]int64, error) {
	var out []int64
	for item, err := range items {
		if err != nil {
			return out, err
		}
		out = append(out, item.ID)
	}
	return out, nil
}

// A 503 on the middle page is retried inside that page's call: three pages take four
// requests, each item comes once, and every request carries the credentials.
func TestPagesRetryWithinTheirPage(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		failed := false
		s := e.serve(clientAddr, linkedPages(3, func(page int) bool {
			if page == 2 && !failed {
				failed = true
				return true
			}
			return false
		}))
		retries := 0
		c := e.clientapi(clientapi.ServerURL, clientapi.WithBearerAuth(bearerToken),
			clientapi.WithOnRetry(func(clientapi.RetryEvent) { retries++ }))
		got, err := ids(c.ListLinkedItemsAll(t.Context(), nil))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []int64{1, 2, 3, 4, 5, 6}) {
			t.Errorf("items %v", got)
		}
		if s.count() != 4 || retries != 1 {
			t.Errorf("%d requests and %d retries; want 4 and 1", s.count(), retries)
		}
		for i := range s.count() {
			if a := s.got(i); a.Header.Get("Authorization") != "Bearer "+bearerToken {
				t.Errorf("request %d (%s) sent %q", i+1, a.URI, a.Header.Get("Authorization"))
			}
		}
		if want := []string{"/v1/pages/items", "/v1/pages/items?page=2", "/v1/pages/items?page=2", "/v1/pages/items?page=3"}; !slices.Equal(uris(s), want) {
			t.Errorf("asked %v", uris(s))
		}
	})
}

func uris(s *server) []string {
	var out []string
	for i := range s.count() {
		out = append(out, s.got(i).URI)
	}
	return out
}

// A next link to another host ends the walk with ErrPageLink after the page that gave
// it: that host receives nothing, credentials least of all.
func TestPagesLinkToAnotherHost(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			w.Header().Set("Link", `<http://`+otherAddr+`/v1/pages/items?page=2>; rel="next"`)
			reply(200, `[{"id":1}]`)(w, r, a)
		})
		other := e.serve(otherAddr, reply(200, `[{"id":2}]`))
		c := e.clientapi(clientapi.ServerURL, clientapi.WithBearerAuth(bearerToken))
		got, err := ids(c.ListLinkedItemsAll(t.Context(), nil))
		pe, ok := errors.AsType[*clientapi.PageError](err)
		if !errors.Is(err, clientapi.ErrPageLink) || !ok || pe.Page != 2 || !slices.Equal(got, []int64{1}) {
			t.Errorf("items %v, then %v; want item 1, then ErrPageLink for page 2", got, err)
		}
		if other.count() != 0 {
			t.Errorf("the other host got %d requests", other.count())
		}
	})
}

// A server that answers every cursor with the same last item ends the walk with
// ErrPageLoop after two pages.
func TestPagesRepeatedCursor(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, reply(200, `{"has_more":true,"data":[{"id":"it_1"}]}`))
		c := e.clientapi(clientapi.ServerURL)
		n := 0
		var last error
		for _, err := range c.ListItemsAfterAll(t.Context(), nil) {
			if err != nil {
				last = err
				break
			}
			n++
		}
		if !errors.Is(last, clientapi.ErrPageLoop) || n != 2 || s.count() != 2 {
			t.Errorf("%d items in %d requests, then %v", n, s.count(), last)
		}
		if want := []string{"/v1/pages/cursor", "/v1/pages/cursor?starting_after=it_1"}; !slices.Equal(uris(s), want) {
			t.Errorf("asked %v", uris(s))
		}
	})
}

// Each page is a call under the client's circuit breaker: a page whose retries are
// exhausted opens it, the walk ends there, a resumption during the cool-down sends
// nothing, and one after it goes on from the failed page.
func TestPagesUnderTheBreaker(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		down := true
		s := e.serve(clientAddr, linkedPages(3, func(page int) bool { return page == 2 && down }))
		c := e.clientapi(clientapi.ServerURL, clientapi.WithCircuitBreaker(1, time.Minute))
		got, err := ids(c.ListLinkedItemsAll(t.Context(), nil))
		pe, ok := errors.AsType[*clientapi.PageError](err)
		if !ok || pe.Page != 2 || !errors.Is(err, clientapi.ErrExhausted) || !slices.Equal(got, []int64{1, 2}) {
			t.Fatalf("items %v, then %v; want page 2 to fail after its retries", got, err)
		}
		sent := s.count()
		if _, err := ids(c.ListLinkedItemsAll(t.Context(), nil, clientapi.WithCursor(pe.Cursor))); !errors.Is(err, clientapi.ErrCircuitOpen) || s.count() != sent {
			t.Errorf("during the cool-down: %v, %d more requests", err, s.count()-sent)
		}
		time.Sleep(time.Minute)
		down = false
		got, err = ids(c.ListLinkedItemsAll(t.Context(), nil, clientapi.WithCursor(pe.Cursor)))
		if err != nil || !slices.Equal(got, []int64{3, 4, 5, 6}) || s.got(sent).URI != "/v1/pages/items?page=2" {
			t.Errorf("resumed: items %v, err %v, first request %s", got, err, s.got(sent).URI)
		}
	})
}

// Stopping the loop sends nothing more; a context cancelled between pages ends the walk
// with its error before the next page is sent.
func TestPagesStop(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, linkedPages(100, nil))
		c := e.clientapi(clientapi.ServerURL)
		for range c.ListLinkedItemsAll(t.Context(), nil) {
			break
		}
		if s.count() != 1 {
			t.Errorf("breaking out at the first item: %d requests", s.count())
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var last error
		for _, err := range c.ListLinkedItemsPages(ctx, nil) {
			if err != nil {
				last = err
				break
			}
			cancel()
		}
		if !errors.Is(last, context.Canceled) || s.count() != 2 {
			t.Errorf("after cancelling: %v, %d requests", last, s.count())
		}
	})
}

// Each page carries its own ResponseInfo; WithResponseInfo describes the last page asked
// for.
func TestPagesResponseInfo(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		failed := false
		e.serve(clientAddr, linkedPages(2, func(page int) bool {
			if page == 2 && !failed {
				failed = true
				return true
			}
			return false
		}))
		c := e.clientapi(clientapi.ServerURL)
		var info clientapi.ResponseInfo
		var attempts []int
		for page, err := range c.ListLinkedItemsPages(t.Context(), &clientapi.ListLinkedItemsParams{PerPage: clientapi.Ptr(int64(2))}, clientapi.WithResponseInfo(&info)) {
			if err != nil {
				t.Fatal(err)
			}
			attempts = append(attempts, page.Info.Attempts)
		}
		if !slices.Equal(attempts, []int{1, 2}) || info.Attempts != 2 || info.StatusCode != 200 || info.Header.Get("Link") != "" {
			t.Errorf("attempts per page %v; WithResponseInfo %+v", attempts, info)
		}
	})
}
