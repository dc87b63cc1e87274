package e2e

// What users of SDKs write by hand elsewhere, through a generated client: options for
// every call, streams that cannot hang, the rate limit of any answer.

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/retrygen/retrygen/e2e/clientapi"
)

// A CallOption given to NewClient applies to every call, before the call's own; one
// that describes a single call is refused there.
func TestCallOptionsForEveryCall(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, reply(200, "["+itemJSON+"]"))
		c := e.clientapi(clientapi.ServerURL, clientapi.WithHeader("X-Tenant", "acme"))
		for _, opts := range [][]clientapi.CallOption{nil, {clientapi.WithHeader("X-Tenant", "other")}} {
			if _, err := c.ListItems(t.Context(), opts...); err != nil {
				t.Fatal(err)
			}
		}
		if a, b := s.got(0).Header.Get("X-Tenant"), s.got(1).Header.Get("X-Tenant"); a != "acme" || b != "other" {
			t.Errorf("X-Tenant %q then %q, want acme then other", a, b)
		}
	})
	_, err := clientapi.NewClient(clientapi.ServerURL, clientapi.WithIdempotencyKey("k-1"))
	if !errors.Is(err, clientapi.ErrOptionDoesNotApply) {
		t.Errorf("NewClient with a call's idempotency key: %v", err)
	}
}

// A stream that goes quiet after its first event is cut after the idle timeout, given to
// the client for all its streams, and resumes with Last-Event-ID.
func TestStreamIdleResumes(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr,
			func(w http.ResponseWriter, r *http.Request, a *arrival) {
				streamHeader(w)
				sse(w, tick(1))
				<-r.Context().Done()
			},
			func(w http.ResponseWriter, r *http.Request, a *arrival) {
				streamHeader(w)
				sse(w, tick(2))
			})
		c := e.clientapi(clientapi.ServerURL, clientapi.WithStreamIdleTimeout(time.Minute))
		stream, err := c.WatchTicks(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		if got := readTicks(stream); len(got) != 2 || stream.Err() != nil {
			t.Fatalf("ticks %v, err %v", got, stream.Err())
		}
		if gap, id := s.gaps()[0], s.got(1).Header.Get("Last-Event-ID"); gap < time.Minute || id != "1" {
			t.Errorf("reconnected after %v with Last-Event-ID %q", gap, id)
		}
	})
}

// Every answer's rate limit is readable, a success's from its ResponseInfo, a failure's
// from its APIError, whether or not the operation declares the headers.
func TestRateLimitOfAnyAnswer(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			w.Header().Set("X-RateLimit-Limit", "60")
			w.Header().Set("X-RateLimit-Remaining", "59")
			reply(200, itemJSON)(w, r, a)
		}, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			w.Header().Set("RateLimit", `"default";r=0;t=3600`)
			status(429)(w, r, a)
		})
		c := e.clientapi(clientapi.ServerURL)
		var info clientapi.ResponseInfo
		if _, err := c.GetPublic(t.Context(), clientapi.WithResponseInfo(&info)); err != nil {
			t.Fatal(err)
		}
		if rl := info.RateLimit(); rl.Limit != 60 || rl.Remaining != 59 || !rl.Reset.IsZero() {
			t.Errorf("rate limit %+v", rl)
		}
		_, err := c.GetPublic(t.Context())
		var apiErr *clientapi.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("err = %v", err)
		}
		if rl := apiErr.RateLimit(); rl.Remaining != 0 || time.Until(rl.Reset) != time.Hour || !strings.Contains(err.Error(), "429") {
			t.Errorf("rate limit %+v of %v", rl, err)
		}
	})
}
