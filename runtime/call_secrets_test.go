package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
)

// The credentials a call sends are hidden wherever a failure shows text a peer wrote: the
// headers WithHeader sets for the call (a bearer token, a custom token header) as well as
// the request's own, and every query value, an API key in an ordinary query parameter
// (one not in QueryCredentials) included, as the URL shown has it REDACTED. They stay out
// of the error's text, DecodeBody's strings, the retry events' errors and the log. The
// idempotency key, under whatever header the policy names it, is no credential and stays.
func TestCallCredentialsHiddenEverywhere(t *testing.T) {
	const (
		bearer = "sk-live-CALLHEADER0000"
		tenant = "tenant-SECRET-99999999"
		query  = "sk-live-QUERYPARAM5678"
		own    = "sk-live-REQUESTHEADER1"
		key    = "call-idempotency-key-1"
	)
	echo := func(r *http.Request) string {
		return fmt.Sprintf("bearer %s / tenant %s / q %s / own %s / key %s", r.Header.Get("Authorization"),
			r.Header.Get("X-Tenant-Token"), r.URL.Query().Get("api_key"), r.Header.Get("X-Api-Key"), r.Header.Get("X-Request-Key"))
	}
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: func(n int, r *http.Request) (*http.Response, error) {
			switch n {
			case 1: // a RoundTripper of the caller's that quotes what it was given
				return nil, errors.New("proxy refused: " + echo(r))
			case 2: // a 2xx answer its check fails
				return jsonResponse(200, `{}`), nil
			}
			return jsonResponse(401, `{"error":{"message":"`+echo(r)+`"}}`, "X-Request-Id", "req "+tenant), nil
		}}
		var events []RetryEvent
		var log bytes.Buffer
		e := engineFor(s, 0.5)
		e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
		e.Logger = slog.New(slog.NewTextHandler(&log, nil))
		req := newRequest(t, t.Context(), "GET", "https://api.test/me?api_key="+query, nil)
		req.Header.Set("X-Api-Key", own)
		p := idempotent()
		p.IdempotencyKey = "X-Request-Key"
		p.StatusCodes = []StatusCode{503}
		_, err := e.Do(t.Context(), req, p,
			WithHeader("Authorization", "Bearer "+bearer), WithHeader("X-Tenant-Token", tenant), WithIdempotencyKey(key),
			WithAnswerCheck(func(*http.Response) error { return failedAs503("bad answer to " + echo(s.requests[1])) }))
		if got := s.count(); got != 3 {
			t.Fatalf("%d attempts, want 3", got)
		}
		secrets := []string{bearer, tenant, query, own}
		texts := map[string]string{"Error()": err.Error(), "log": log.String()}
		var body struct{ Error struct{ Message string } }
		if derr := mustError(t, err).DecodeBody(&body); derr != nil {
			t.Fatal(derr)
		}
		texts["DecodeBody"] = body.Error.Message
		for i, ev := range events {
			if ev.Err == nil {
				t.Fatalf("event %d has no error", i)
			}
			texts[fmt.Sprint("event ", i)] = ev.Err.Error()
		}
		if len(events) != 2 {
			t.Errorf("%d retry events, want 2", len(events))
		}
		for name, text := range texts {
			for _, secret := range secrets {
				if strings.Contains(text, secret) {
					t.Errorf("%s shows %q: %s", name, secret, text)
				}
			}
			if !strings.Contains(text, "REDACTED") {
				t.Errorf("%s hides nothing: %s", name, text)
			}
		}
		if !strings.Contains(body.Error.Message, "key "+key) {
			t.Errorf("DecodeBody hides the idempotency key: %s", body.Error.Message)
		}
	})
}

// failedAs503 is an answer check's error that stands for a 503.
type failedAs503 string

func (f failedAs503) Error() string     { return string(f) }
func (f failedAs503) AnswerStatus() int { return 503 }
