package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// reply returns a response with status, header pairs and body.
func reply(r *http.Request, status int, body string, header ...string) *http.Response {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Add(header[i], header[i+1])
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r}
}

const expired = `Bearer realm="api", error="invalid_token", error_description="The access token expired"`

// tokenRefresh returns a WithTokenRefresh that hands out the tokens in order, and counts
// its calls.
func tokenRefresh(calls *int, tokens ...string) CallOption {
	return WithTokenRefresh(func(context.Context) (http.Header, error) {
		*calls++
		if len(tokens) == 0 {
			return nil, errors.New("no token")
		}
		t := tokens[0]
		tokens = tokens[1:]
		return http.Header{"Authorization": {"Bearer " + t}}, nil
	})
}

func postWith(t *testing.T, token, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("POST", "https://api.test/orders", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

// A POST that is not retry-safe, refused with 401 invalid_token, is sent once more with
// a fresh token and the same body: not a retry, so no budget is drawn and one attempt is
// all the policy allows.
func TestTokenRefreshRepeatsOnce(t *testing.T) {
	s := &stub{fn: func(n int, r *http.Request) (*http.Response, error) {
		if r.Header.Get("Authorization") != "Bearer fresh-token-2" {
			return reply(r, 401, `{"error":"invalid_token"}`, "WWW-Authenticate", expired), nil
		}
		return reply(r, 201, `{}`), nil
	}}
	e := &Engine{HTTPClient: &http.Client{Transport: s}, Budget: NewBudget(0, 0)}
	calls := 0
	var out Outcome
	resp, err := e.Do(t.Context(), postWith(t, "stale-token-1", `{"n":1}`), &Policy{MaxAttempts: 1},
		tokenRefresh(&calls, "fresh-token-2"), WithOutcome(&out))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if calls != 1 || s.count() != 2 || out.Attempts != 2 || string(s.bodies[1]) != `{"n":1}` {
		t.Errorf("%d refreshes, %d requests (outcome %d), second body %q", calls, s.count(), out.Attempts, s.bodies[1])
	}
}

// The repeat is made once per call: a fresh token refused too ends the call with that
// 401, and the error shows neither token.
func TestTokenRefreshOnce(t *testing.T) {
	s := &stub{fn: func(n int, r *http.Request) (*http.Response, error) {
		return reply(r, 401, "token "+r.Header.Get("Authorization")+" and stale-token-1 refused", "WWW-Authenticate", expired), nil
	}}
	e := &Engine{HTTPClient: &http.Client{Transport: s}}
	calls := 0
	_, err := e.Do(t.Context(), postWith(t, "stale-token-1", "x"), &Policy{MaxAttempts: 3, Idempotent: true},
		tokenRefresh(&calls, "fresh-token-2", "fresh-token-3"))
	var re *Error
	if !errors.As(err, &re) || re.StatusCode != 401 || calls != 1 || s.count() != 2 {
		t.Fatalf("err = %v after %d refreshes and %d requests", err, calls, s.count())
	}
	if msg := err.Error(); strings.Contains(msg, "stale-token-1") || strings.Contains(msg, "fresh-token-2") {
		t.Errorf("error shows a token: %s", msg)
	}
}

// No repeat without a challenge that says the token is invalid, when the refresh gives
// nothing, for a body that cannot be sent again, or for a 401 from another origin a
// redirect went to.
func TestTokenRefreshNotMade(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		body   io.Reader
		tokens []string
		origin string
	}{
		{"no challenge", nil, strings.NewReader("x"), []string{"t2"}, ""},
		{"other error", []string{"WWW-Authenticate", `Bearer error="insufficient_scope"`}, strings.NewReader("x"), []string{"t2"}, ""},
		{"basic challenge", []string{"WWW-Authenticate", `Basic realm="a", error="invalid_token"`}, strings.NewReader("x"), []string{"t2"}, ""},
		{"refresh fails", []string{"WWW-Authenticate", expired}, strings.NewReader("x"), nil, ""},
		{"body not replayable", []string{"WWW-Authenticate", expired}, io.MultiReader(strings.NewReader("x")), []string{"t2"}, ""},
		{"other origin", []string{"WWW-Authenticate", expired}, strings.NewReader("x"), []string{"t2"}, "https://other.test/orders"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &stub{fn: func(n int, r *http.Request) (*http.Response, error) {
				if tc.origin != "" {
					r, _ = http.NewRequest("POST", tc.origin, nil)
				}
				return reply(r, 401, "no", tc.header...), nil
			}}
			e := &Engine{HTTPClient: &http.Client{Transport: s}}
			req, _ := http.NewRequest("POST", "https://api.test/orders", tc.body)
			calls := 0
			_, err := e.Do(t.Context(), req, &Policy{MaxAttempts: 1}, tokenRefresh(&calls, tc.tokens...))
			if s.count() != 1 || err == nil {
				t.Errorf("%d requests, err %v; want one", s.count(), err)
			}
		})
	}
}

// invalidToken reads the Bearer challenge among others, in any case, quoted or not.
func TestInvalidTokenChallenge(t *testing.T) {
	for v, want := range map[string]bool{
		expired:                      true,
		`bearer error=invalid_token`: true,
		`Basic realm="x", Bearer error="invalid_token"`: true,
		`Bearer realm="a,b", error="invalid_token"`:     true,
		`Bearer error="invalid_request"`:                false,
		`Bearer error_description="invalid_token"`:      false,
		`Basic error="invalid_token"`:                   false,
		`Bearer realm="error=\"invalid_token\""`:        false,
		``:                                              false,
	} {
		if got := invalidToken(http.Header{"Www-Authenticate": {v}}); got != want {
			t.Errorf("invalidToken(%q) = %v, want %v", v, got, want)
		}
	}
}
