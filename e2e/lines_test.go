package e2e

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/retrygen/retrygen/e2e/clientapi"
)

// A response of JSON values one a line (Kubernetes' watch, application/x-ndjson) is a
// stream: the stream method delivers every value, and the plain method, which decodes one
// JSON value, fails with ErrTrailingData rather than return the first and drop the rest.
func TestLineStreams(t *testing.T) {
	watch := func(w http.ResponseWriter, r *http.Request, a *arrival) {
		// Kubernetes answers a watch as application/json, each event on a line.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		sse(w, "{\"n\":1}\n", "\n", "{\"n\":2}\n", "{\"n\":3}\n")
	}
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, watch)
		stream, err := e.clientapi(clientapi.ServerURL).ListTicksStream(t.Context(), &clientapi.ListTicksParams{Watch: clientapi.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		if got := readTicks(stream); fmt.Sprint(got) != "[1 2 3]" || stream.Err() != nil {
			t.Errorf("ticks %v, err %v; want [1 2 3]", got, stream.Err())
		}
		if a := s.got(0); a.Header.Get("Accept") != "application/json;stream=watch" || a.URI != "/v1/tick-list?watch=true" {
			t.Errorf("sent Accept %q, query %q", a.Header.Get("Accept"), a.URI)
		}
	})
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, watch)
		c := e.clientapi(clientapi.ServerURL)
		tick, err := c.WatchTick(t.Context(), 1)
		if !errors.Is(err, clientapi.ErrTrailingData) || tick != nil {
			t.Errorf("WatchTick of a stream = %v, %v; want ErrTrailingData", tick, err)
		}
		stream, err := c.WatchTickStream(t.Context(), 1)
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		if got := readTicks(stream); fmt.Sprint(got) != "[1 2 3]" || stream.Err() != nil {
			t.Errorf("ticks %v, err %v; want [1 2 3]", got, stream.Err())
		}
	})
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, status(503), func(w http.ResponseWriter, r *http.Request, a *arrival) {
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.WriteHeader(200)
			sse(w, "{\"n\":1}\n{\"n\":2}")
		})
		stream, err := e.clientapi(clientapi.ServerURL).ExportTicks(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		if got := readTicks(stream); fmt.Sprint(got) != "[1 2]" || stream.Err() != nil {
			t.Errorf("ticks %v, err %v; want [1 2], the first attempt's 503 retried", got, stream.Err())
		}
	})
}
