package wire

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/internal/memnet"
	"github.com/retrygen/retrygen/runtime"
)

const (
	clientSecret = "s3cret-of-the-client"
	refreshOne   = "refresh-token-one"
)

// tokenEndpoint is a token endpoint: it answers each request with answer (n from 1) and
// keeps what each one sent.
type tokenEndpoint struct {
	answer func(n int, w http.ResponseWriter, form url.Values, r *http.Request)

	mu    sync.Mutex
	forms []url.Values
	auths []string
}

func (e *tokenEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	e.mu.Lock()
	e.forms = append(e.forms, r.PostForm)
	e.auths = append(e.auths, r.Header.Get("Authorization"))
	n := len(e.forms)
	e.mu.Unlock()
	e.answer(n, w, r.PostForm, r)
}

func (e *tokenEndpoint) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.forms)
}

// issue answers token n as "tok-n", valid for life.
func issue(life time.Duration) func(n int, w http.ResponseWriter, form url.Values, r *http.Request) {
	return func(n int, w http.ResponseWriter, form url.Values, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"bearer","expires_in":%d}`, n, int(life.Seconds()))
	}
}

func tokenJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// oauthWorld serves an API at api.test and a token endpoint at auth.test on an in-memory
// network, and returns a client of the API with cred for the scheme "oauth".
type oauthWorld struct {
	tokens *tokenEndpoint
	client *Client

	mu    sync.Mutex
	auths []string // the Authorization of each API request
}

func newOAuthWorld(t *testing.T, tokens *tokenEndpoint, api func(auth string, w http.ResponseWriter), cred Credential, opts ...Option) *oauthWorld {
	t.Helper()
	w := &oauthWorld{tokens: tokens}
	n := memnet.New()
	for addr, h := range map[string]http.Handler{
		"auth.test:80": tokens,
		"api.test:80": http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.mu.Lock()
			w.auths = append(w.auths, r.Header.Get("Authorization"))
			w.mu.Unlock()
			api(r.Header.Get("Authorization"), rw)
		}),
	} {
		srv, _, err := n.Serve(addr, h)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
	}
	tr := n.Transport()
	t.Cleanup(tr.CloseIdleConnections)
	opts = append([]Option{WithHTTPClient(&http.Client{Transport: tr}), WithCredential("oauth", cred), WithoutRetryBudget()}, opts...)
	c, err := NewClient("http://api.test/v1", opts...)
	if err != nil {
		t.Fatal(err)
	}
	w.client = c
	return w
}

func (w *oauthWorld) apiAuths() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.auths...)
}

// ok answers 200.
func ok(auth string, w http.ResponseWriter) { tokenJSON(w, 200, `{"ok":true}`) }

// call makes one GET call of the API with the "oauth" scheme.
func (w *oauthWorld) call(ctx context.Context, method string, p *runtime.Policy) error {
	r := NewRequest(method)
	r.Security([]string{"oauth"})
	r.Path("/items")
	if method == "POST" {
		r.JSONBody("application/json", map[string]int{"n": 1})
	}
	resp, err := w.client.Call(ctx, r, p, "", nil)
	if err != nil {
		return err
	}
	return Discard(resp)
}

var clientCreds = OAuth2{TokenURL: "http://auth.test/oauth/token", ClientID: "my client", ClientSecret: clientSecret, Scopes: []string{"read", "write"}}

// A token is fetched at the first call, with the client's credentials in HTTP basic
// authentication and the scopes, kept for every call until 30s before it expires, then
// replaced.
func TestClientCredentialsCachedUntilExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		te := &tokenEndpoint{answer: issue(time.Hour)}
		w := newOAuthWorld(t, te, ok, ClientCredentials(clientCreds))
		for _, at := range []time.Duration{0, 10 * time.Minute, 59*time.Minute + 29*time.Second, 59*time.Minute + 31*time.Second, 70 * time.Minute} {
			time.Sleep(at - time.Since(startOf(t)))
			if err := w.call(t.Context(), "GET", &retrying); err != nil {
				t.Fatal(err)
			}
		}
		if got := strings.Join(w.apiAuths(), ","); got != "Bearer tok-1,Bearer tok-1,Bearer tok-1,Bearer tok-2,Bearer tok-2" {
			t.Errorf("API saw %s", got)
		}
		basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("my+client:"+clientSecret))
		if te.count() != 2 || te.auths[0] != basic || te.forms[0].Encode() != "grant_type=client_credentials&scope=read+write" {
			t.Errorf("%d token requests, first %q %q", te.count(), te.auths[0], te.forms[0].Encode())
		}
	})
}

var starts sync.Map

// startOf returns when the test's bubble started.
func startOf(t *testing.T) time.Time {
	v, _ := starts.LoadOrStore(t.Name(), time.Now())
	return v.(time.Time)
}

// Concurrent calls that all need a token wait for one fetch.
func TestClientCredentialsOneFetch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		te := &tokenEndpoint{answer: func(n int, w http.ResponseWriter, form url.Values, r *http.Request) {
			time.Sleep(time.Second) // a slow endpoint: every call arrives while it works
			issue(time.Hour)(n, w, form, r)
		}}
		w := newOAuthWorld(t, te, ok, ClientCredentials(clientCreds))
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if err := w.call(t.Context(), "GET", &retrying); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if te.count() != 1 || strings.Count(strings.Join(w.apiAuths(), ","), "Bearer tok-1") != 20 {
			t.Errorf("%d token requests; API saw %v", te.count(), w.apiAuths())
		}
	})
}

// A caller whose context ends while it fetches for the others does not fail them: one of
// them fetches in its place.
func TestClientCredentialsLeaderCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		te := &tokenEndpoint{answer: func(n int, w http.ResponseWriter, form url.Values, r *http.Request) {
			if n == 1 {
				<-r.Context().Done()
				return
			}
			issue(time.Hour)(n, w, form, r)
		}}
		w := newOAuthWorld(t, te, ok, ClientCredentials(clientCreds))
		ctx, cancel := context.WithCancel(t.Context())
		first := make(chan error, 1)
		go func() { first <- w.call(ctx, "GET", &retrying) }()
		synctest.Wait() // the first caller's fetch is under way
		second := make(chan error, 1)
		go func() { second <- w.call(t.Context(), "GET", &retrying) }()
		synctest.Wait()
		cancel()
		if err := <-first; !errors.Is(err, context.Canceled) {
			t.Errorf("first call: %v", err)
		}
		if err := <-second; err != nil || te.count() != 2 {
			t.Errorf("second call: %v after %d token requests", err, te.count())
		}
	})
}

// A 401 whose challenge says the token is invalid (revoked before its expiry) makes the
// client fetch a fresh one and repeat the attempt once, for a POST that is not
// retry-safe too, and with no budget to draw from.
func TestClientCredentialsInvalidToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		te := &tokenEndpoint{answer: issue(time.Hour)}
		w := newOAuthWorld(t, te, func(auth string, rw http.ResponseWriter) {
			if auth == "Bearer tok-1" {
				rw.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="revoked"`)
				tokenJSON(rw, 401, `{"error":"invalid_token"}`)
				return
			}
			ok(auth, rw)
		}, ClientCredentials(clientCreds), WithRetryBudget(0, 0))
		if err := w.call(t.Context(), "POST", &runtime.Policy{MaxAttempts: 1}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(w.apiAuths(), ","); got != "Bearer tok-1,Bearer tok-2" || te.count() != 2 {
			t.Errorf("API saw %s after %d token requests", got, te.count())
		}
		// The fresh token is kept for the calls that follow.
		if err := w.call(t.Context(), "GET", &retrying); err != nil || te.count() != 2 {
			t.Errorf("next call: %v after %d token requests", err, te.count())
		}
	})
}

// A token endpoint that fails with 5xx is retried with backoff; one that refuses the
// client fails the call before the API sees it, with the endpoint's error code and
// description and without the secret, even where the endpoint repeats it.
func TestTokenEndpointFailing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		te := &tokenEndpoint{answer: func(n int, w http.ResponseWriter, form url.Values, r *http.Request) {
			if n <= 2 {
				tokenJSON(w, 503, `{"error":"temporarily_unavailable"}`)
				return
			}
			issue(time.Hour)(n, w, form, r)
		}}
		var logs bytes.Buffer
		w := newOAuthWorld(t, te, ok, ClientCredentials(clientCreds), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		if err := w.call(t.Context(), "GET", &retrying); err != nil || te.count() != 3 {
			t.Fatalf("call: %v after %d token requests", err, te.count())
		}
		if strings.Contains(logs.String(), clientSecret) || !strings.Contains(logs.String(), "auth.test") {
			t.Errorf("logs:\n%s", logs.String())
		}
	})
	synctest.Test(t, func(t *testing.T) {
		te := &tokenEndpoint{answer: func(n int, w http.ResponseWriter, form url.Values, r *http.Request) {
			user, pass, _ := r.BasicAuth()
			tokenJSON(w, 401, fmt.Sprintf(`{"error":"invalid_client","error_description":"unknown client %s with secret %s%s"}`,
				user, pass, form.Get("client_secret")))
		}}
		w := newOAuthWorld(t, te, ok, ClientCredentials(clientCreds))
		err := w.call(t.Context(), "GET", &retrying)
		if err == nil || len(w.apiAuths()) != 0 || te.count() != 2 {
			t.Fatalf("err = %v after %d token requests and %d API requests", err, te.count(), len(w.apiAuths()))
		}
		msg := err.Error()
		if strings.Contains(msg, clientSecret) || strings.Contains(msg, url.QueryEscape(clientSecret)) ||
			!strings.Contains(msg, "401 invalid_client: unknown client  with secret REDACTED") {
			t.Errorf("error %q", msg)
		}
		// Tried with the credentials in the form too, as the endpoint refused basic
		// authentication.
		if te.forms[1].Get("client_id") != "my client" || te.auths[1] != "" {
			t.Errorf("second token request %q, Authorization %q", te.forms[1].Encode(), te.auths[1])
		}
	})
}

// An endpoint that takes the client's credentials only in the form is sent them there,
// from then on.
func TestTokenEndpointWantsFormCredentials(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		te := &tokenEndpoint{answer: func(n int, w http.ResponseWriter, form url.Values, r *http.Request) {
			if form.Get("client_secret") != clientSecret {
				tokenJSON(w, 400, `{"error":"invalid_client"}`)
				return
			}
			issue(time.Minute)(n, w, form, r)
		}}
		w := newOAuthWorld(t, te, ok, ClientCredentials(clientCreds))
		for range 2 {
			if err := w.call(t.Context(), "GET", &retrying); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Minute)
		}
		if te.count() != 3 || te.auths[2] != "" {
			t.Errorf("%d token requests, the last with Authorization %q", te.count(), te.auths[2])
		}
	})
}

// A refresh token is exchanged at the refresh URL for each access token, and a new one
// the endpoint gives replaces it; a client credentials grant that got one uses it too,
// and falls back to its credentials when it is refused.
func TestRefreshTokenGrant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		te := &tokenEndpoint{answer: func(n int, w http.ResponseWriter, form url.Values, r *http.Request) {
			if r.URL.Path != "/refresh" {
				tokenJSON(w, 404, `{}`)
				return
			}
			tokenJSON(w, 200, fmt.Sprintf(`{"access_token":"tok-%d","expires_in":"60","refresh_token":"refresh-%d"}`, n, n))
		}}
		cfg := OAuth2{TokenURL: "http://auth.test/token", RefreshURL: "http://auth.test/refresh", ClientID: "c", ClientSecret: clientSecret, RefreshToken: refreshOne}
		w := newOAuthWorld(t, te, ok, RefreshToken(cfg), WithTokenURL("other", "http://elsewhere.test"))
		for range 2 {
			if err := w.call(t.Context(), "GET", &retrying); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Minute)
		}
		if te.count() != 2 || te.forms[0].Get("refresh_token") != refreshOne || te.forms[1].Get("refresh_token") != "refresh-1" ||
			te.forms[0].Get("grant_type") != "refresh_token" {
			t.Errorf("token requests %v", te.forms)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		te := &tokenEndpoint{answer: func(n int, w http.ResponseWriter, form url.Values, r *http.Request) {
			switch form.Get("grant_type") {
			case "refresh_token":
				tokenJSON(w, 400, `{"error":"invalid_grant"}`)
			default:
				tokenJSON(w, 200, fmt.Sprintf(`{"access_token":"tok-%d","expires_in":60,"refresh_token":"refresh-%d"}`, n, n))
			}
		}}
		w := newOAuthWorld(t, te, ok, ClientCredentials(clientCreds))
		for range 2 {
			if err := w.call(t.Context(), "GET", &retrying); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Minute)
		}
		var grants []string
		for _, f := range te.forms {
			grants = append(grants, f.Get("grant_type"))
		}
		if strings.Join(grants, " ") != "client_credentials refresh_token client_credentials" {
			t.Errorf("grants %v", grants)
		}
	})
}

// WithTokenURL replaces the spec's token URL; one that is not http or https fails the
// calls that need it.
func TestTokenURL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		te := &tokenEndpoint{answer: issue(time.Hour)}
		cfg := clientCreds
		cfg.TokenURL = "http://nowhere.test/token"
		w := newOAuthWorld(t, te, ok, ClientCredentials(cfg), WithTokenURL("oauth", "http://auth.test/mine"))
		if err := w.call(t.Context(), "GET", &retrying); err != nil || te.count() != 1 {
			t.Fatalf("call: %v", err)
		}
		w = newOAuthWorld(t, te, ok, ClientCredentials(cfg), WithTokenURL("oauth", "file:///etc/passwd"))
		if err := w.call(t.Context(), "GET", &retrying); err == nil || !strings.Contains(err.Error(), "not an http or https URL") {
			t.Errorf("call with a file token URL: %v", err)
		}
	})
}

// A TokenSource's token is asked for once per call; on a 401 for an invalid token it is
// asked again, and the attempt repeated when it gives another.
func TestTokenSource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var asked int
		source := func() (*Token, error) {
			asked++
			return &Token{AccessToken: fmt.Sprintf("src-%d", min(asked, 2)), Expiry: time.Now().Add(time.Hour)}, nil
		}
		w := newOAuthWorld(t, &tokenEndpoint{}, func(auth string, rw http.ResponseWriter) {
			if auth != "Bearer src-2" {
				rw.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				tokenJSON(rw, 401, `{}`)
				return
			}
			ok(auth, rw)
		}, TokenSource(source))
		if err := w.call(t.Context(), "GET", &retrying); err != nil || asked != 2 {
			t.Fatalf("call: %v after %d tokens", err, asked)
		}
		// src-2 refused now: the source gives src-2 again, so the 401 stands.
		w2 := newOAuthWorld(t, &tokenEndpoint{}, func(auth string, rw http.ResponseWriter) {
			rw.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			tokenJSON(rw, 401, `{}`)
		}, TokenSource(source))
		var re *runtime.Error
		if err := w2.call(t.Context(), "GET", &retrying); !errors.As(err, &re) || re.StatusCode != 401 || len(w2.apiAuths()) != 1 {
			t.Errorf("call: %v, %d API requests", err, len(w2.apiAuths()))
		}
	})
}

// A token response that is not one, or whose token cannot go in a header, fails the call.
func TestTokenResponseRefused(t *testing.T) {
	for _, body := range []string{
		`not json`, `{}`, `{"access_token":""}`, `{"access_token":"a\r\nX-Evil: 1"}`, `{"access_token":"a b"}`,
		`{"access_token":"a","token_type":"Bearer\nX"}`, `{"access_token":"a","expires_in":"soon"}`, `{"access_token":"a","expires_in":-5}`,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tokenJSON(w, 200, body) }))
		cfg := clientCreds
		cfg.TokenURL = srv.URL
		c, err := NewClient(srv.URL, WithCredential("oauth", ClientCredentials(cfg)))
		if err != nil {
			t.Fatal(err)
		}
		r := NewRequest("GET")
		r.Security([]string{"oauth"})
		if _, err := c.Call(t.Context(), r, &retrying, "", nil); err == nil || !strings.Contains(err.Error(), "oauth2 token endpoint") {
			t.Errorf("token response %s: err = %v", body, err)
		}
		srv.Close()
	}
}
