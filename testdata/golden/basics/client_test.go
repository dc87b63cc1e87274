package basics

// These tests run against the generated client of this case (want.go, copied next to them
// by gen's TestGoldenCompiles). Requests go through a transport that writes them in HTTP/1.1
// wire form and reads them back for an http.Handler, so what the handler sees is what a
// server would; synctest makes the backoff waits instant.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

type wireTransport struct {
	mu       sync.Mutex
	h        http.HandlerFunc
	arrivals int
}

func (w *wireTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var buf bytes.Buffer
	if err := req.Write(&buf); err != nil {
		return nil, err
	}
	sreq, err := http.ReadRequest(bufio.NewReader(&buf))
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.arrivals++
	w.mu.Unlock()
	rec := httptest.NewRecorder()
	w.h(rec, sreq)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

func newClient(t *testing.T, h http.HandlerFunc, opts ...Option) (*Client, *wireTransport) {
	t.Helper()
	tr := &wireTransport{h: h}
	opts = append([]Option{WithBaseURL("https://api.example.com/v1/"), WithHTTPClient(&http.Client{Transport: tr}), WithoutRetryBudget()}, opts...)
	return NewClient(opts...), tr
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func TestListPetsRetriesThenDecodes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var queries []string
		c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			queries = append(queries, r.URL.Path+"?"+r.URL.RawQuery)
			if len(queries) < 3 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			writeJSON(w, 200, []map[string]any{{"id": 7, "name": "Rex", "status": "sold", "bornAt": "2020-01-02T03:04:05Z"}})
		})
		limit := int32(5)
		status := PetStatusSold
		pets, err := c.ListPets(context.Background(), []string{"a", "b c"}, &ListPetsParams{Limit: &limit, Status: &status})
		if err != nil {
			t.Fatal(err)
		}
		if tr.arrivals != 3 {
			t.Errorf("arrivals = %d, want 3 (two 503s, then 200)", tr.arrivals)
		}
		if want := "/v1/pets?limit=5&status=sold&tags=a&tags=b+c"; queries[2] != want {
			t.Errorf("request = %q, want %q", queries[2], want)
		}
		want := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		if len(pets) != 1 || pets[0].ID != 7 || pets[0].Name != "Rex" || *pets[0].Status != PetStatusSold || !pets[0].BornAt.Equal(want) {
			t.Errorf("pets = %+v", pets)
		}
	})
}

// A required parameter is an argument; a nil one fails the call before anything is sent.
func TestRequiredArrayParameterNotLeftOut(t *testing.T) {
	c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, []any{}) })
	if _, err := c.ListPets(context.Background(), nil, nil); err == nil || tr.arrivals != 0 {
		t.Errorf("err = %v, arrivals = %d; want an error and no request", err, tr.arrivals)
	}
}

func TestErrorModelsReachableWithErrorsAs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 404, map[string]any{"message": "no pet 9"})
		})
		_, err := c.GetPet(context.Background(), 9)
		var nf *NotFound
		if !errors.As(err, &nf) || nf.Message == nil || *nf.Message != "no pet 9" {
			t.Fatalf("errors.As(*NotFound) failed for %v", err)
		}
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Attempts != 1 {
			t.Fatalf("APIError = %+v", apiErr)
		}
		if tr.arrivals != 1 {
			t.Errorf("a 404 was sent %d times, want 1", tr.arrivals)
		}
	})
}

func TestOperationPolicyAndDefaultErrorModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 500, map[string]any{"title": "broken", "status": 500})
		})
		_, err := c.GetPet(context.Background(), 1)
		var p *Problem
		if !errors.As(err, &p) || p.Title != "broken" {
			t.Fatalf("errors.As(*Problem) failed for %v", err)
		}
		// getPet's own x-retry says maxAttempts 5.
		if tr.arrivals != 5 {
			t.Errorf("arrivals = %d, want 5", tr.arrivals)
		}
		tr.arrivals = 0
		_, err = c.GetPet(context.Background(), 1, WithMaxAttempts(2))
		if err == nil || tr.arrivals != 2 {
			t.Errorf("WithMaxAttempts(2): arrivals = %d, err = %v", tr.arrivals, err)
		}
		tr.arrivals = 0
		if _, err := c.GetPet(context.Background(), 1, WithoutRetry()); err == nil || tr.arrivals != 1 {
			t.Errorf("WithoutRetry: arrivals = %d, err = %v", tr.arrivals, err)
		}
	})
}

func TestCreatePetSendsOneKeyPerCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var keys, bodies []string
		c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			keys = append(keys, r.Header.Get("Idempotency-Key"))
			b, _ := io.ReadAll(r.Body)
			bodies = append(bodies, string(b))
			if len(keys)%2 == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			writeJSON(w, 201, map[string]any{"id": 1, "name": "Rex"})
		})
		ctx := context.Background()
		pet, err := c.CreatePet(ctx, nil, NewPet{Name: "Rex"})
		if err != nil {
			t.Fatal(err)
		}
		if pet.ID != 1 {
			t.Errorf("pet = %+v", pet)
		}
		if tr.arrivals != 2 || keys[0] == "" || keys[0] != keys[1] {
			t.Errorf("keys of one call = %q, want the same non-empty key twice", keys)
		}
		if bodies[0] != bodies[1] || bodies[0] != `{"name":"Rex"}` {
			t.Errorf("bodies = %q, want the same JSON twice", bodies)
		}
		if _, err := c.CreatePet(ctx, nil, NewPet{Name: "Rex"}); err != nil {
			t.Fatal(err)
		}
		if keys[2] == keys[0] || keys[2] != keys[3] {
			t.Errorf("second call keys = %q, want a new key kept across its attempts", keys[2:])
		}
		if _, err := c.CreatePet(ctx, &CreatePetParams{IdempotencyKey: "mine", XRequestID: ptr("r1")}, NewPet{Name: "Rex"}); err != nil {
			t.Fatal(err)
		}
		if keys[4] != "mine" || keys[5] != "mine" {
			t.Errorf("declared key parameter: keys = %q, want \"mine\" twice", keys[4:])
		}
	})
}

func TestDeleteAndTextResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/v1/pets/3":
				if r.Method != http.MethodDelete {
					t.Errorf("method = %s", r.Method)
				}
				w.WriteHeader(http.StatusNoContent)
			case "/v1/health":
				w.Header().Set("Content-Type", "text/plain")
				_, _ = io.WriteString(w, "ok")
			default:
				t.Errorf("unexpected %s %s", r.Method, r.URL)
			}
		})
		if err := c.DeletePet(context.Background(), 3); err != nil {
			t.Fatal(err)
		}
		body, err := c.GetHealth(context.Background())
		if err != nil || body != "ok" {
			t.Errorf("health = %q, %v", body, err)
		}
	})
}

func TestRequestEditorRunsOncePerCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		edits := 0
		var auth []string
		c, _ := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			auth = append(auth, r.Header.Get("Authorization"))
			if len(auth) == 1 {
				w.WriteHeader(http.StatusBadGateway)
				return
			}
			writeJSON(w, 200, []any{})
		}, WithRequestEditor(func(ctx context.Context, req *http.Request) error {
			edits++
			req.Header.Set("Authorization", "Bearer t")
			return nil
		}), WithUserAgent("test-agent"))
		if _, err := c.ListPets(context.Background(), []string{"x"}, nil); err != nil {
			t.Fatal(err)
		}
		if edits != 1 || len(auth) != 2 || auth[0] != "Bearer t" || auth[1] != "Bearer t" {
			t.Errorf("edits = %d, Authorization per attempt = %q", edits, auth)
		}
	})
}

// A base URL that cannot be used fails every call of the client, before anything is
// sent, and Err says why.
func TestNewClientRejectsBadBaseURL(t *testing.T) {
	for _, u := range []string{"api.example.com", "ftp://x", "https://x/?q=1", "://"} {
		c := NewClient(WithBaseURL(u))
		if c.Err() == nil || !strings.Contains(c.Err().Error(), "base URL") {
			t.Errorf("NewClient(WithBaseURL(%q)).Err() = %v", u, c.Err())
		}
	}
}

func ptr[T any](v T) *T { return &v }
