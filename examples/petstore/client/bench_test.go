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
	"time"

	"github.com/retrygen/retrygen/examples/petstore/client"
)

// BenchmarkGetPet compares the generated GetPet with the same call written by hand with
// net/http and encoding/json, against the same loopback server, under a base URL with a
// path as the spec's server has one, with the same *http.Client: with the background
// context, and with a context whose deadline (10s) comes before the response header
// timeout (30s). The difference in allocs/op and B/op is what the generated client and
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
	base := srv.URL + "/v1"
	c := client.NewClient(client.WithBaseURL(base), client.WithHTTPClient(hc))

	for _, bc := range []struct {
		name    string
		timeout time.Duration // of each call's context; 0 for none
	}{
		{"background", 0},
		{"deadline", 10 * time.Second},
	} {
		// ctx gives each call its context, with bc's timeout.
		ctx := func() (context.Context, context.CancelFunc) {
			if bc.timeout == 0 {
				return context.Background(), func() {}
			}
			return context.WithTimeout(context.Background(), bc.timeout)
		}
		b.Run(bc.name+"/net-http", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ctx, cancel := ctx()
				_, err := getPetByHand(ctx, hc, base, 1)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/generated", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ctx, cancel := ctx()
				_, err := c.GetPet(ctx, 1)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
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
