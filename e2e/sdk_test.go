package e2e

// What users of SDKs write by hand elsewhere, through a generated client: options for
// every call, streams that cannot hang, the rate limit of any answer.

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
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
	c := clientapi.NewClient(clientapi.WithIdempotencyKey("k-1"))
	if _, err := c.ListItems(t.Context()); !errors.Is(err, clientapi.ErrOptionDoesNotApply) || !errors.Is(c.Err(), clientapi.ErrOptionDoesNotApply) {
		t.Errorf("a client with a call's idempotency key: %v", err)
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

const authAddr = "127.0.0.1:8084"

// The client gets its OAuth 2 tokens by the client credentials flow, keeps one for all
// calls, and on a 401 that says it is invalid fetches a fresh one and repeats the
// attempt once; neither the secret nor a token shows in an error.
func TestOAuthClientCredentials(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		issued := 0
		tokens := e.serve(authAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			issued++
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"access_token":"access-token-%d","token_type":"Bearer","expires_in":3600}`, issued)
		})
		var revoked atomic.Bool
		api := e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			if auth := a.Header.Get("Authorization"); auth == "Bearer access-token-1" && revoked.Load() {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				reply(401, `{"message":"token access-token-1 revoked"}`)(w, r, a)
				return
			}
			reply(200, itemJSON)(w, r, a)
		})
		c := e.clientapi(clientapi.ServerURL, clientapi.WithOauthClientCredentials("client-1", "client-secret-1", "read"),
			clientapi.WithOauthTokenURL("http://"+authAddr+"/token"))
		for range 2 {
			if _, err := c.GetWithOAuth(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		if tokens.count() != 1 || string(tokens.got(0).Body) != "grant_type=client_credentials&scope=read" {
			t.Fatalf("%d token requests", tokens.count())
		}
		revoked.Store(true)
		if _, err := c.GetWithOAuth(t.Context()); err != nil {
			t.Fatal(err)
		}
		if tokens.count() != 2 || api.count() != 4 || api.got(3).Header.Get("Authorization") != "Bearer access-token-2" {
			t.Errorf("%d token requests, %d API requests", tokens.count(), api.count())
		}
	})
	bubble(t, func(t *testing.T, e *env) {
		e.serve(authAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			reply(401, `{"error":"invalid_client","error_description":"client-secret-1 is wrong"}`)(w, r, a)
		})
		api := e.serve(clientAddr, reply(200, itemJSON))
		c := e.clientapi(clientapi.ServerURL, clientapi.WithOauthClientCredentials("client-1", "client-secret-1"),
			clientapi.WithOauthTokenURL("http://"+authAddr+"/token"))
		_, err := c.GetWithOAuth(t.Context())
		if err == nil || api.count() != 0 || strings.Contains(err.Error(), "client-secret-1") || !strings.Contains(err.Error(), "invalid_client") {
			t.Errorf("err = %v after %d API requests", err, api.count())
		}
	})
}

// Do calls an endpoint the spec lacks under the client's base URL, credentials and
// retries: a GET is retried, a POST is not without a key, and a path that leaves the base
// URL is refused before anything is sent.
func TestDoEscapeHatch(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, status(503), reply(200, `{"id":7,"name":"seven"}`), status(503), reply(200, `{}`))
		c := e.clientapi(clientapi.ServerURL, clientapi.WithBearerAuth(bearerToken), clientapi.WithJitterSource(func() float64 { return 0 }))
		var item clientapi.Item
		if err := c.Do(t.Context(), "GET", clientapi.Path("/undocumented/{id}", "a/b")+"?v=2", nil, &item); err != nil || item.ID != 7 {
			t.Fatalf("Do: %v, %+v", err, item)
		}
		if a := s.got(1); a.URI != "/v1/undocumented/a%2Fb?v=2" || a.Header.Get("Authorization") != "Bearer "+bearerToken {
			t.Errorf("sent %s with %q", a.URI, a.Header.Get("Authorization"))
		}
		err := c.Do(t.Context(), "POST", "/undocumented", map[string]string{"name": "x"}, nil)
		if !errors.Is(err, clientapi.ErrNotRetrySafe) || s.count() != 3 || string(s.got(2).Body) != `{"name":"x"}` {
			t.Errorf("POST: %v after %d requests", err, s.count())
		}
		var apiErr *clientapi.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || strings.Contains(err.Error(), bearerToken) {
			t.Errorf("POST error %v", err)
		}
		for _, path := range []string{"http://" + otherAddr + "/steal", "//" + otherAddr + "/steal", "/../../steal", clientapi.Path("/x/{id}", "")} {
			if err := c.Do(t.Context(), "GET", path, nil, nil); err == nil {
				t.Errorf("path %q sent", path)
			}
		}
		if s.count() != 3 {
			t.Errorf("%d requests after the refused paths", s.count())
		}
		resp, err := c.DoRaw(t.Context(), "GET", "/raw", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	})
}

// A stream whose events are deltas of the operation's response adds up to it, the events
// the caller read on the way included, and the spec's idle timeout cuts one that stalls.
func TestStreamAccumulates(t *testing.T) {
	events := []string{
		`{"type":"message_start","message":{"id":"msg_1","role":"assistant","content":[],"stop_reason":null}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", world"}}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`,
	}
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			streamHeader(w)
			for _, ev := range events {
				sse(w, "event: x\ndata: "+ev+"\n\n")
			}
		})
		stream, err := e.clientapi(clientapi.ServerURL).CreateMessageStream(t.Context(), clientapi.CreateMessageRequest{Prompt: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		if !stream.Next() || stream.Current().MessageStart == nil {
			t.Fatalf("first event %+v, %v", stream.Current(), stream.Err())
		}
		msg, err := stream.Accumulate()
		if err != nil {
			t.Fatal(err)
		}
		if msg.ID != "msg_1" || len(msg.Content) != 1 || clientapi.Deref(msg.Content[0].Text, "") != "Hello, world" || msg.StopReason.Or("") != "end_turn" {
			t.Errorf("message %+v", msg)
		}
	})
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			streamHeader(w)
			sse(w, "data: "+events[0]+"\n\n")
			<-r.Context().Done()
		})
		start := time.Now()
		stream, err := e.clientapi(clientapi.ServerURL).CreateMessageStream(t.Context(), clientapi.CreateMessageRequest{Prompt: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		_, err = stream.Accumulate()
		if !errors.Is(err, clientapi.ErrStreamIdle) || time.Since(start) != 2*time.Minute {
			t.Errorf("err = %v after %v, want the stream cut after the spec's 2m", err, time.Since(start))
		}
	})
}
