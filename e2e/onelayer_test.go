package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/retrygen/retrygen/e2e/faultapi"
	"github.com/retrygen/retrygen/runtime"
)

// chain is a user's client, three services on loopback (each wrapped in
// runtime.OneRetryLayer and calling the next through a generated client) and a store.
type chain struct {
	t        *testing.T
	services []*httptest.Server // services[0] is the one the user calls
	store    *httptest.Server
	storeFn  atomic.Value // func(w http.ResponseWriter, r *http.Request)
	calls    []atomic.Int64
	storeN   atomic.Int64
	tr       *http.Transport
	budgets  bool
}

// newChain starts the chain; with budgets each client has the default retry budget, else
// none. Jitter is drawn as 0, so the clients retry at once.
func newChain(t *testing.T, budgets bool) *chain {
	c := &chain{t: t, calls: make([]atomic.Int64, 3), tr: &http.Transport{}, budgets: budgets}
	c.storeFn.Store(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	c.store = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.storeN.Add(1)
		c.storeFn.Load().(func(http.ResponseWriter, *http.Request))(w, r)
	}))
	next := c.store.URL
	c.services = make([]*httptest.Server, 3)
	for i := 2; i >= 0; i-- {
		c.services[i] = httptest.NewServer(runtime.OneRetryLayer(c.service(i, c.client(next))))
		next = c.services[i].URL
	}
	t.Cleanup(func() {
		for _, s := range c.services {
			s.Close()
		}
		c.store.Close()
		c.tr.CloseIdleConnections()
	})
	return c
}

// client returns a generated client for the server at url.
func (c *chain) client(url string) *faultapi.Client {
	opts := []faultapi.Option{faultapi.WithBaseURL(url), faultapi.WithHTTPClient(&http.Client{Transport: c.tr}),
		faultapi.WithJitterSource(func() float64 { return 0 })}
	if !c.budgets {
		opts = append(opts, faultapi.WithoutRetryBudget())
	}
	return faultapi.NewClient(opts...)
}

// service i answers GET /items/{name} with what the next one answers for it: the item, the
// same 4xx, or a 502 when the call failed otherwise. The name "own-503" makes it answer 503
// without calling anyone; "detached" makes its call on a context detached from the request.
func (c *chain) service(i int, next *faultapi.Client) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.calls[i].Add(1)
		name := strings.TrimPrefix(r.URL.Path, "/items/")
		if name == "own-503" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		ctx := r.Context()
		if name == "detached" {
			ctx = context.WithoutCancel(ctx)
		}
		item, err := next.GetItem(ctx, name, nil)
		var apiErr *faultapi.APIError
		switch {
		case err == nil:
			json.NewEncoder(w).Encode(item)
		case errors.As(err, &apiErr) && apiErr.StatusCode >= 400 && apiErr.StatusCode < 500 && apiErr.StatusCode != 429:
			w.WriteHeader(apiErr.StatusCode)
		default:
			w.WriteHeader(http.StatusBadGateway)
		}
	})
}

// call makes one user call through a retrygen client of the first service and returns
// the first service's answer header and the error.
func (c *chain) call(name string) (http.Header, error) {
	var info faultapi.ResponseInfo
	_, err := c.client(c.services[0].URL).GetItem(context.Background(), name, nil, faultapi.WithResponseInfo(&info))
	return info.Header, err
}

// With budgets off, the store gets one layer's attempts and each service one call per user
// call: 4, not 4 × 4 × 4 × 4. Each service's 5xx after a give-up says false, and the user's
// client stops at once.
func TestOneRetryLayerChain(t *testing.T) {
	c := newChain(t, false)
	const userCalls = 5
	for range userCalls {
		h, err := c.call("pet")
		var apiErr *faultapi.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadGateway {
			t.Fatalf("user call: %v, want the first service's 502", err)
		}
		if apiErr.Attempts != 1 || !errors.Is(err, runtime.ErrServerSaidNoRetry) {
			t.Errorf("user's client made %d attempts (%v), want 1 stopped by the server's word", apiErr.Attempts, err)
		}
		if got := h.Values("X-Should-Retry"); len(got) != 1 || got[0] != "false" {
			t.Errorf("X-Should-Retry = %q, want [false]", got)
		}
	}
	for i := range c.calls {
		if n := c.calls[i].Load(); n != userCalls {
			t.Errorf("service %d was called %d times for %d user calls, want %d", i+1, n, userCalls, userCalls)
		}
	}
	if n := c.storeN.Load(); n != 4*userCalls {
		t.Errorf("the store got %d attempts for %d user calls, want %d (one layer of 4)", n, userCalls, 4*userCalls)
	}
}

// With the default budget in every client, a total outage costs the store at most 1.2× the
// user calls: only the layer next to it retries, within its budget.
func TestOneRetryLayerChainWithBudgets(t *testing.T) {
	c := newChain(t, true)
	const userCalls = 100
	for range userCalls {
		if _, err := c.call("pet"); err == nil {
			t.Fatal("a user call succeeded against a store that is down")
		}
	}
	if load := float64(c.storeN.Load()) / userCalls; load > 1.2 {
		t.Errorf("store load %.2f per user call, want ≤ 1.2", load)
	}
	for i := range c.calls {
		if n := c.calls[i].Load(); n != userCalls {
			t.Errorf("service %d was called %d times, want %d", i+1, n, userCalls)
		}
	}
}

// The signal is only for failures after a give-up: not on 2xx and 4xx answers, not on a 503
// the service makes on its own, never true; and work detached from the request keeps its
// own retries.
func TestOneRetryLayerChainSignals(t *testing.T) {
	c := newChain(t, false)
	answer := func(code int) {
		c.storeFn.Store(func(w http.ResponseWriter, r *http.Request) {
			if code == 200 {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"name":"pet"}`))
				return
			}
			w.WriteHeader(code)
		})
	}
	answer(200)
	if h, err := c.call("pet"); err != nil || len(h.Values("X-Should-Retry")) != 0 {
		t.Errorf("2xx: %v, X-Should-Retry %q; want success and no signal", err, h.Values("X-Should-Retry"))
	}
	answer(404)
	if _, err := c.call("pet"); !isStatus(err, 404) {
		t.Errorf("4xx: %v, want the 404 passed on", err)
	}
	answer(503)
	before := c.calls[0].Load()
	_, err := c.call("own-503")
	var apiErr *faultapi.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.Attempts != 4 {
		t.Errorf("a service's own 503: %v, want 503 after the user's client's 4 attempts (no signal to stop them)", err)
	}
	if n := c.calls[0].Load() - before; n != 4 {
		t.Errorf("the first service got %d calls for its own 503, want 4", n)
	}
	// A 404 carries no signal: the user's client would not retry it anyway; check the header.
	answer(404)
	resp, err := http.Get(c.services[0].URL + "/items/pet")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if v := resp.Header.Values("X-Should-Retry"); resp.StatusCode != 404 || len(v) != 0 {
		t.Errorf("4xx: %d with X-Should-Retry %q; want 404 and none", resp.StatusCode, v)
	}
	// Detached work retries as before: the last service's call makes its 4 attempts.
	answer(503)
	before = c.storeN.Load()
	c.call("detached")
	if n := c.storeN.Load() - before; n != 4 {
		t.Errorf("detached work made %d attempts at the store, want 4", n)
	}
}

func isStatus(err error, code int) bool {
	var apiErr *faultapi.APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == code
}
