package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/retrygen/retrygen/examples/petstore/client"
)

// BenchmarkGetPet compares the generated GetPet with the same call written by hand with
// net/http and encoding/json, against the same loopback server and the same
// *http.Client; the difference in allocs/op and B/op is what the generated client and
// its runtime add. It reports figures and asserts nothing of time.
func BenchmarkGetPet(b *testing.B) {
	const pet = `{"id":1,"name":"Rex","species":"dog","tag":"good"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, pet)
	}))
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	ctx := context.Background()

	b.Run("net-http", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := getPetByHand(ctx, hc, srv.URL, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("generated", func(b *testing.B) {
		c, err := client.NewClient(srv.URL, client.WithHTTPClient(hc))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.GetPet(ctx, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// getPetByHand is GetPet as one would write it without a generator or retries.
func getPetByHand(ctx context.Context, hc *http.Client, baseURL string, id int64) (*client.Pet, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", baseURL+"/pets/"+strconv.FormatInt(id, 10), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /pets/%d: %s", id, resp.Status)
	}
	out := new(client.Pet)
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return nil, err
	}
	return out, nil
}
