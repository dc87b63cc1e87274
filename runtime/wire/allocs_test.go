package wire

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/runtime"
)

const petJSON = `{"id":1,"name":"Rex"}`

// petTransport answers every request at once, in memory, with a 200 and petJSON.
type petTransport struct{}

func (petTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(petJSON)), ContentLength: int64(len(petJSON))}, nil
}

type pet struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// wireAllocs is what a generated method that decodes JSON (GetPet) allocates through this
// package beyond the same call written with net/http and encoding/json: the engine's
// own 3 (see the runtime's TestEngineAllocations), plus the 3 this package takes (the
// path joined to the base URL's, the body read whole within the attempt, json.Unmarshal's
// decoder state), less the 4 it spares (the URL string, a json.Decoder, its buffer and
// its parse stack). The Request being built, and its path's pieces, stay on the caller's
// stack, and so does the operation it names (Request.Operation), for the observer the
// client does not have.
const wireAllocs = 3 + 3 - 4

// A call through Client.Fetch and DecodeDeclared, as a generated method makes it, costs
// wireAllocs allocations more than net/http and encoding/json. The counts are
// deterministic in memory; the margin of one allows for a change in net/http.
func TestCallAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	hc := &http.Client{Transport: petTransport{}}
	ctx := context.Background()
	bare := testing.AllocsPerRun(100, func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/v1/pets/"+strconv.FormatInt(1, 10), nil)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out pet
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || out.Name != "Rex" {
			t.Fatal(out, err)
		}
	})

	c, err := NewClient("http://api.test/v1", WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	p := runtime.DefaultPolicy()
	p.Idempotent = true
	got := testing.AllocsPerRun(100, func() {
		r := NewRequest("GET")
		r.Operation("getPet", "/pets/{petId}")
		r.Path("/pets/")
		r.PathParam("petId", PathSimple, int64(1))
		resp, err := c.Fetch(ctx, r, &p, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		var out pet
		if err := DecodeDeclared(resp, &out, Model[pet], 200); err != nil || out.Name != "Rex" {
			t.Fatal(out, err)
		}
	})
	if extra := got - bare; extra > wireAllocs+1 {
		t.Errorf("Fetch and DecodeDeclared: %v allocations, %v more than net/http and encoding/json; want %d more", got, extra, wireAllocs)
	}
}

// A call's path takes one allocation, its join with the base URL's path, whether or not
// the base URL has a path.
func TestBasePathCostsNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	p := runtime.DefaultPolicy()
	p.Idempotent = true
	allocs := func(base string) float64 {
		c, err := NewClient(base, WithHTTPClient(&http.Client{Transport: petTransport{}}))
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(100, func() {
			r := NewRequest("GET")
			r.Path("/pets/")
			r.PathParam("petId", PathSimple, 1)
			r.Path("/photos")
			resp, err := c.Fetch(context.Background(), r, &p, "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		})
	}
	if bare, withPath := allocs("http://api.test"), allocs("http://api.test/v1"); withPath != bare {
		t.Errorf("under a base URL with a path: %v allocations; want %v, as without", withPath, bare)
	}
}
