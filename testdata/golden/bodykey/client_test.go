package bodykey

// These tests run against the generated client of this case (want.go, copied next to them
// by gen's TestGoldenCompiles): a key carried in the body is the same on every attempt of
// a call, on the wire, the caller's when set, a fresh UUIDv4 otherwise.

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sync"
	"testing"
	"testing/synctest"
)

// flaky answers the first attempt of each call with 503, the next with 201, and records
// the body of every attempt.
type flaky struct {
	mu     sync.Mutex
	bodies []string
}

func (f *flaky) RoundTrip(req *http.Request) (*http.Response, error) {
	data, _ := io.ReadAll(req.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(data))
	n := len(f.bodies)
	f.mu.Unlock()
	rec := httptest.NewRecorder()
	if n%2 == 1 {
		rec.WriteHeader(http.StatusServiceUnavailable)
	} else {
		rec.Header().Set("Content-Type", "application/json")
		rec.WriteHeader(http.StatusCreated)
		io.WriteString(rec, `{"sid":"PK1"}`)
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

func newClient(t *testing.T) (*Client, *flaky) {
	t.Helper()
	f := &flaky{}
	c := NewClient(WithBaseURL("https://api.example.com/v1"), WithHTTPClient(&http.Client{Transport: f}), WithoutRetryBudget())
	return c, f
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// keys returns the key each recorded attempt sent, read by key from each body.
func keys(t *testing.T, f *flaky, key func(body string) string) []string {
	t.Helper()
	var out []string
	for _, b := range f.bodies {
		out = append(out, key(b))
	}
	return out
}

func formKey(body string) string {
	v, _ := url.ParseQuery(body)
	return v.Get("IdempotencyKey")
}

func jsonKey(name string) func(string) string {
	return func(body string) string {
		var m map[string]any
		json.Unmarshal([]byte(body), &m)
		s, _ := m[name].(string)
		return s
	}
}

// checkCalls checks that each call (two attempts each) sent one key on both attempts: a
// fresh UUIDv4 where want is "", else want; and that fresh keys differ between calls.
func checkCalls(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != 2*len(want) {
		t.Fatalf("%d attempts for %d calls: %q", len(got), len(want), got)
	}
	seen := map[string]bool{}
	for i, w := range want {
		first, second := got[2*i], got[2*i+1]
		if first != second {
			t.Errorf("call %d: the attempts sent keys %q and %q", i+1, first, second)
		}
		switch {
		case w != "" && first != w:
			t.Errorf("call %d: sent %q, want the caller's %q", i+1, first, w)
		case w == "" && !uuidV4.MatchString(first):
			t.Errorf("call %d: sent %q, want a UUIDv4", i+1, first)
		case w == "" && seen[first]:
			t.Errorf("call %d: sent %q again", i+1, first)
		}
		seen[first] = true
	}
}

func TestFormBodyKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, f := newClient(t)
		body := CreatePaymentsRequest{StatusCallback: "https://example.com/cb"}
		for range 2 {
			if _, err := c.CreatePayments(t.Context(), body); err != nil {
				t.Fatal(err)
			}
		}
		body.IdempotencyKey = "payment-42"
		if _, err := c.CreatePayments(t.Context(), body); err != nil {
			t.Fatal(err)
		}
		checkCalls(t, keys(t, f, formKey), "", "", "payment-42")
	})
}

func TestJSONBodyKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, f := newClient(t)
		body := &CreateOrderRequest{Item: Ptr("book")}
		for range 2 {
			if err := c.CreateOrder(t.Context(), body); err != nil {
				t.Fatal(err)
			}
		}
		if body.IdempotencyKey != nil {
			t.Errorf("the caller's body was changed: %q", *body.IdempotencyKey)
		}
		if err := c.CreateOrder(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		if err := c.CreateOrder(t.Context(), &CreateOrderRequest{IdempotencyKey: Ptr("order-7")}); err != nil {
			t.Fatal(err)
		}
		checkCalls(t, keys(t, f, jsonKey("idempotency_key")), "", "", "", "order-7")
	})
}

func TestNullableBodyKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, f := newClient(t)
		if err := c.CreateRefund(t.Context(), CreateRefundRequest{Amount: 5}); err != nil {
			t.Fatal(err)
		}
		if err := c.CreateRefund(t.Context(), CreateRefundRequest{Amount: 5, Token: Some("refund-1")}); err != nil {
			t.Fatal(err)
		}
		checkCalls(t, keys(t, f, jsonKey("token")), "", "refund-1")
	})
}
