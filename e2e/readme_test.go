package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	storeapi "github.com/retrygen/retrygen/e2e/faultapi"
	"github.com/retrygen/retrygen/runtime"
)

// readmeService is the README's service in a call chain, line for line.
func readmeService(store *storeapi.Client) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{name}", func(w http.ResponseWriter, r *http.Request) {
		var params storeapi.GetItemParams // the optional parameters; those left nil are not sent
		if q := r.URL.Query().Get("q"); q != "" {
			params.Q = &q // the caller's search, passed on
		}
		item, err := store.GetItem(r.Context(), r.PathValue("name"), &params) // the request's context
		if err != nil {
			http.Error(w, "store unavailable", http.StatusBadGateway) // + X-Should-Retry: false after a give-up
			return
		}
		json.NewEncoder(w).Encode(item)
	})
	return runtime.OneRetryLayer(mux) // one retry layer: the store's client retries, callers above do not
}

// The README's service is readmeService, and it runs: behind it, the store's client makes
// its attempts; in front of it, the user's client makes one. Once the store answers, the
// service passes on the caller's query parameter, and sends none it was not given.
func TestReadmeServiceExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)<!-- e2e/readme_test.go readmeService -->\n```go\n(.*?)```").FindSubmatch(readme)
	if block == nil {
		t.Fatal("the README has no block marked for readmeService")
	}
	self, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(block[1])), "\n") {
		if !strings.Contains(string(self), "\t"+line+"\n") {
			t.Errorf("README line %q is not in readmeService", line)
		}
	}
	c := newChain(t, false)
	svc := httptest.NewServer(readmeService(c.client(c.store.URL)))
	defer svc.Close()
	before := c.storeN.Load()
	_, err = c.client(svc.URL).GetItem(context.Background(), "pet", nil)
	if apiErr, ok := errors.AsType[*storeapi.APIError](err); !ok || apiErr.StatusCode != 502 || apiErr.Attempts != 1 {
		t.Errorf("user call: %v, want one attempt answered 502", err)
	}
	if n := c.storeN.Load() - before; n != 4 {
		t.Errorf("the store got %d attempts, want the service's 4", n)
	}

	queries := make(chan string, 2)
	c.storeFn.Store(func(w http.ResponseWriter, r *http.Request) {
		queries <- r.URL.RawQuery
		json.NewEncoder(w).Encode(map[string]string{"name": strings.TrimPrefix(r.URL.Path, "/items/"), "q": r.URL.Query().Get("q")})
	})
	user := c.client(svc.URL)
	q := "red collars"
	item, err := user.GetItem(context.Background(), "pet", &storeapi.GetItemParams{Q: &q})
	if err != nil || item.Q == nil || *item.Q != q || <-queries != "q=red+collars" {
		t.Errorf("with a query: %+v, %v; want the store to get q=red+collars", item, err)
	}
	if _, err := user.GetItem(context.Background(), "pet", nil); err != nil || <-queries != "" {
		t.Errorf("without one: %v; want the store to get no query", err)
	}
}
