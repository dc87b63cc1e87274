package wire

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/retrygen/retrygen/runtime"
)

// Token is an OAuth 2 access token as a token endpoint gives it (RFC 6749 §5.1), with the
// fields of golang.org/x/oauth2's Token that a request needs. Generated packages declare
// a twin with the same fields.
type Token struct {
	// AccessToken is sent as "Authorization: <TokenType> <AccessToken>".
	AccessToken string
	// TokenType is the token's type, "Bearer" when empty.
	TokenType string
	// RefreshToken, when the endpoint gave one, gets the next access token.
	RefreshToken string
	// Expiry is when the access token expires; zero when the endpoint did not say.
	Expiry time.Time
}

// OAuth2 is an OAuth 2 token endpoint and the client's registration with it, for
// ClientCredentials and RefreshToken.
type OAuth2 struct {
	// TokenURL is the token endpoint (the spec's tokenUrl), absolute or relative to the
	// client's base URL; WithTokenURL replaces it.
	TokenURL string
	// RefreshURL is where a refresh token is exchanged (the spec's refreshUrl); ""
	// means TokenURL.
	RefreshURL string
	// ClientID and ClientSecret authenticate the client to the endpoint: HTTP basic
	// authentication (RFC 6749 §2.3.1), or the request's form when the endpoint refuses
	// that.
	ClientID, ClientSecret string
	// Scopes are asked for with each client credentials grant; none asks for the
	// endpoint's default.
	Scopes []string
	// RefreshToken is the refresh token to start from, for RefreshToken.
	RefreshToken string
}

// ClientCredentials authenticates with access tokens of the client credentials grant
// (RFC 6749 §4.4) from cfg's token endpoint: fetched at the first call that needs one,
// kept until shortly before they expire (30s before, or half their life when that is
// shorter), and shared by all the client's calls, concurrent ones waiting for one fetch.
// When the endpoint also gives a refresh token, the next token is got with it. A 401
// whose challenge says the token is invalid makes the client fetch a fresh one and repeat
// the attempt once (see runtime.WithTokenRefresh). The token request is retried on a 429,
// a 5xx or a connection failure under the engine's backoff, and neither the secret nor a
// token appears in an error, event or log.
func ClientCredentials(cfg OAuth2) Credential {
	return Credential{in: "header", name: "Authorization", oauth: &cfg, grant: "client_credentials"}
}

// RefreshToken is ClientCredentials for a client that holds a refresh token (from an
// authorization code or password grant it made itself): each access token is got by
// exchanging the refresh token (RFC 6749 §6) at cfg's RefreshURL, else its TokenURL, and
// a new refresh token the endpoint gives replaces the old one.
func RefreshToken(cfg OAuth2) Credential {
	return Credential{in: "header", name: "Authorization", oauth: &cfg, grant: "refresh_token"}
}

// TokenSource authenticates with the tokens get returns, once per call, as
// golang.org/x/oauth2's TokenSource gives them (wrap one in oauth2.ReuseTokenSource to
// cache them). On a 401 whose challenge says the token is invalid, get is asked again,
// and the attempt repeated once when it gives another token.
func TokenSource(get func() (*Token, error)) Credential {
	return Credential{in: "header", name: "Authorization", source: get}
}

// WithTokenURL makes the client get the access tokens of the security scheme scheme
// from tokenURL instead of the spec's tokenUrl and refreshUrl.
func WithTokenURL(scheme, tokenURL string) Option {
	return func(c *Client) {
		if c.tokenURLs == nil {
			c.tokenURLs = map[string]string{}
		}
		c.tokenURLs[scheme] = tokenURL
	}
}

// tokens is the access token of one credential of one client: the cache and the fetch
// of a ClientCredentials or RefreshToken, or the TokenSource.
type tokens struct {
	cfg    OAuth2 // for a grant; its URLs absolute once bound
	grant  string // "client_credentials" or "refresh_token"
	source func() (*Token, error)
	engine *runtime.Engine // sends the token requests
	err    error           // a token URL that cannot be used, reported at the first call

	mu        sync.Mutex
	tok       *Token
	refreshAt time.Time // when tok is to be replaced
	refresh   string    // the refresh token to use next
	inBody    bool      // the endpoint refused HTTP basic authentication: credentials go in the form
	flight    *flight   // the fetch under way
}

// flight is one fetch of a token, which the calls that need a token meanwhile wait for.
type flight struct {
	done     chan struct{}
	tok      *Token
	err      error
	canceled bool // the fetch ended with its own caller's cancellation: another may fetch
}

// newTokens returns the tokens of cred for one client.
func newTokens(cred *Credential) *tokens {
	t := &tokens{grant: cred.grant, source: cred.source}
	if cred.oauth != nil {
		t.cfg = *cred.oauth
		t.cfg.Scopes = append([]string(nil), cred.oauth.Scopes...)
		t.refresh = cred.oauth.RefreshToken
	}
	return t
}

// bind makes t send its token requests with c's HTTP client and logger, to its token
// URL resolved against c's base URL (or the one WithTokenURL gave scheme).
func (t *tokens) bind(c *Client, scheme string) {
	if t.source != nil {
		return
	}
	if u, ok := c.tokenURLs[scheme]; ok {
		t.cfg.TokenURL, t.cfg.RefreshURL = u, ""
	}
	resolve := func(raw string) string {
		if raw == "" {
			return ""
		}
		u, err := c.baseURL.Parse(raw)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
			t.err = fmt.Errorf("security scheme %s: token URL %q is not an http or https URL", scheme, raw)
			return ""
		}
		u.Fragment = ""
		return u.String()
	}
	t.cfg.TokenURL, t.cfg.RefreshURL = resolve(t.cfg.TokenURL), resolve(t.cfg.RefreshURL)
	if t.cfg.TokenURL == "" && t.err == nil {
		t.err = fmt.Errorf("security scheme %s: no token URL", scheme)
	}
	t.engine = &runtime.Engine{HTTPClient: c.engine.HTTPClient, Logger: c.engine.Logger, Rand: c.engine.Rand, MaxBodySize: maxTokenResponse}
}

// maxTokenResponse caps a token endpoint's answer: a token response is a few KiB.
const maxTokenResponse = 1 << 20

// tokenPolicy retries a token request on 429, 5xx and connection failures: asking again
// for a token does no harm the first ask did not.
var tokenPolicy = runtime.Policy{
	MaxAttempts:      4,
	InitialDelay:     500 * time.Millisecond,
	MaxDelay:         10 * time.Second,
	StatusCodes:      []runtime.StatusCode{429, runtime.Class5XX},
	ConnectionErrors: true,
	RetryAfter:       true,
	MaxRetryAfter:    time.Minute,
	Idempotent:       true,
	ReadBody:         true,
}

// authorization returns the Authorization value of the call: the cached token, else one
// fetched.
func (t *tokens) authorization(ctx context.Context) (string, error) {
	tok, err := t.token(ctx, "")
	if err != nil {
		return "", err
	}
	return authValue(tok)
}

// token returns a token other than stale ("" for any): the cached one while it is fresh
// and not stale, else one fetched, or the one a fetch under way gets.
func (t *tokens) token(ctx context.Context, stale string) (*Token, error) {
	if t.err != nil {
		return nil, t.err
	}
	if t.source != nil {
		tok, err := t.source()
		switch {
		case err != nil:
			return nil, err
		case tok == nil || tok.AccessToken == "":
			return nil, errNoCredential
		case tok.AccessToken == stale:
			return nil, errors.New("the token source gave the token the server refused")
		}
		return tok, nil
	}
	for {
		t.mu.Lock()
		if t.tok != nil && t.tok.AccessToken != stale && time.Now().Before(t.refreshAt) {
			tok := t.tok
			t.mu.Unlock()
			return tok, nil
		}
		f := t.flight
		if f == nil {
			f = &flight{done: make(chan struct{})}
			t.flight = f
			t.mu.Unlock()
			t.fetch(ctx, f)
			return f.tok, f.err
		}
		t.mu.Unlock()
		select {
		case <-f.done:
			if !f.canceled {
				return f.tok, f.err
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// fetch gets a token from the endpoint for f, caches it and tells f's waiters.
func (t *tokens) fetch(ctx context.Context, f *flight) {
	tok, refresh, err := t.request(ctx)
	t.mu.Lock()
	if err == nil {
		now := time.Now()
		t.tok, t.refreshAt = tok, now.Add(365*24*time.Hour)
		if !tok.Expiry.IsZero() {
			life := tok.Expiry.Sub(now)
			t.refreshAt = tok.Expiry.Add(-min(30*time.Second, life/2))
		}
		if refresh != "" {
			t.refresh = refresh
		}
	}
	f.tok, f.err, f.canceled = tok, err, err != nil && ctx.Err() != nil
	t.flight = nil
	t.mu.Unlock()
	close(f.done)
}

// request asks the endpoint for a token: with the refresh token when there is one, else
// (or when a client credentials grant's refresh token is refused) with the client's
// credentials. It returns the refresh token the endpoint gave with it, if any.
func (t *tokens) request(ctx context.Context) (*Token, string, error) {
	t.mu.Lock()
	refresh := t.refresh
	t.mu.Unlock()
	if refresh != "" {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}
		endpoint := t.cfg.RefreshURL
		if endpoint == "" {
			endpoint = t.cfg.TokenURL
		}
		tok, err := t.post(ctx, endpoint, form, refresh)
		var te *tokenError
		if err == nil || t.grant == "refresh_token" || !errors.As(err, &te) || te.code != "invalid_grant" {
			return tok, tokRefresh(tok), err
		}
		t.mu.Lock()
		t.refresh = "" // refused: the client's own credentials get the next one
		t.mu.Unlock()
	}
	if t.grant == "refresh_token" {
		return nil, "", errors.New("oauth2: no refresh token")
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	if len(t.cfg.Scopes) > 0 {
		form.Set("scope", strings.Join(t.cfg.Scopes, " "))
	}
	tok, err := t.post(ctx, t.cfg.TokenURL, form, "")
	return tok, tokRefresh(tok), err
}

func tokRefresh(tok *Token) string {
	if tok == nil {
		return ""
	}
	return tok.RefreshToken
}

// post sends form to the token endpoint and reads the token it answers. The client
// authenticates with HTTP basic authentication; when the endpoint refuses that as
// invalid_client, once, with its credentials in the form, as the endpoint then wants
// from then on. refresh is the refresh token sent, hidden like the secret.
func (t *tokens) post(ctx context.Context, endpoint string, form url.Values, refresh string) (*Token, error) {
	t.mu.Lock()
	inBody := t.inBody
	t.mu.Unlock()
	tok, err := t.send(ctx, endpoint, form, inBody, refresh)
	var te *tokenError
	if !inBody && errors.As(err, &te) && te.code == "invalid_client" && t.cfg.ClientSecret != "" {
		if tok, err = t.send(ctx, endpoint, form, true, refresh); err == nil {
			t.mu.Lock()
			t.inBody = true
			t.mu.Unlock()
		}
	}
	return tok, err
}

// send makes one token request, through the engine.
func (t *tokens) send(ctx context.Context, endpoint string, form url.Values, inBody bool, refresh string) (*Token, error) {
	body := url.Values{}
	for k, v := range form {
		body[k] = v
	}
	header := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}}
	switch {
	case inBody || t.cfg.ClientSecret == "":
		body.Set("client_id", t.cfg.ClientID)
		if t.cfg.ClientSecret != "" {
			body.Set("client_secret", t.cfg.ClientSecret)
		}
	default:
		pair := url.QueryEscape(t.cfg.ClientID) + ":" + url.QueryEscape(t.cfg.ClientSecret)
		header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(pair)))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body.Encode()))
	if err != nil {
		return nil, t.hidden(&tokenError{endpoint: endpoint, err: err}, refresh)
	}
	req.Header = header
	resp, err := t.engine.Do(ctx, req, &tokenPolicy)
	if err != nil {
		te := answerError(endpoint, err)
		if te.cause == nil {
			te.cause = ctx.Err() // the caller's own cancellation, which the engine leaves as it is
		}
		return nil, t.hidden(te, refresh)
	}
	tok, err := readToken(resp)
	if err != nil {
		return nil, t.hidden(&tokenError{endpoint: endpoint, status: resp.StatusCode, err: err}, refresh)
	}
	return tok, nil
}

// readToken reads a token response (RFC 6749 §5.1), JSON or, as some endpoints still
// send it, a form.
func readToken(resp *http.Response) (*Token, error) {
	var data []byte
	if err := ReadBody(resp, &data); err != nil {
		return nil, err
	}
	var raw struct {
		AccessToken  string      `json:"access_token"`
		TokenType    string      `json:"token_type"`
		RefreshToken string      `json:"refresh_token"`
		ExpiresIn    json.Number `json:"expires_in"`
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/x-www-form-urlencoded" || mt == "text/plain" && !json.Valid(data) {
		v, err := url.ParseQuery(string(data))
		if err != nil {
			return nil, fmt.Errorf("token response: %w", err)
		}
		raw.AccessToken, raw.TokenType, raw.RefreshToken = v.Get("access_token"), v.Get("token_type"), v.Get("refresh_token")
		raw.ExpiresIn = json.Number(v.Get("expires_in"))
	} else if err := json.Unmarshal(data, &raw); err != nil {
		return nil, errors.New("token response is not a token: not JSON with the fields of RFC 6749 §5.1")
	}
	switch {
	case raw.AccessToken == "":
		return nil, errors.New("token response has no access_token")
	case len(raw.AccessToken) > 64<<10 || !validHeaderValue(raw.AccessToken) || strings.ContainsAny(raw.AccessToken, " ,"):
		return nil, errors.New("token response's access_token cannot be sent in a header")
	case !validHeaderValue(raw.TokenType) || strings.ContainsAny(raw.TokenType, " ,"):
		return nil, errors.New("token response's token_type cannot be sent in a header")
	}
	tok := &Token{AccessToken: raw.AccessToken, TokenType: raw.TokenType, RefreshToken: raw.RefreshToken}
	if s := raw.ExpiresIn.String(); s != "" {
		secs, err := strconv.ParseFloat(s, 64)
		if err != nil || secs < 0 {
			return nil, fmt.Errorf("token response's expires_in %q is not a number of seconds", excerptPath(s))
		}
		if secs > 0 {
			tok.Expiry = time.Now().Add(time.Duration(min(secs, 10*365*24*3600) * float64(time.Second)))
		}
	}
	return tok, nil
}

// authValue returns the Authorization value of tok: its type (Bearer when it has none,
// in the case RFC 6750 writes it) and its access token.
func authValue(tok *Token) (string, error) {
	typ := tok.TokenType
	switch strings.ToLower(typ) {
	case "", "bearer":
		typ = "Bearer"
	case "mac":
		typ = "MAC"
	case "basic":
		typ = "Basic"
	}
	v := typ + " " + tok.AccessToken
	if !validHeaderValue(v) {
		return "", errors.New("token cannot be sent in a header: it has a control character")
	}
	return v, nil
}

// tokenError is why a token could not be had from an endpoint: its answer (the status,
// and the error code and description RFC 6749 §5.2 has it send) or the call's failure.
// It keeps no body or header of the answer, and its text no secret.
type tokenError struct {
	endpoint    string
	status      int
	code        string // e.g. "invalid_client"
	description string
	attempts    int
	cause       error // why the engine stopped (runtime.ErrExhausted, ...), or a context's error
	err         error // the failure besides the answer, hidden
}

func (e *tokenError) Error() string {
	var b strings.Builder
	b.WriteString("oauth2 token endpoint ")
	b.WriteString(runtime.RedactURL(e.endpoint))
	b.WriteString(": ")
	switch {
	case e.status != 0 && e.code != "":
		fmt.Fprintf(&b, "%d %s", e.status, e.code)
		if e.description != "" {
			b.WriteString(": " + e.description)
		}
	case e.status != 0:
		fmt.Fprintf(&b, "%d %s", e.status, http.StatusText(e.status))
	}
	if e.err != nil {
		if e.status != 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.err.Error())
	}
	if e.attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.attempts)
	}
	return b.String()
}

// Unwrap returns why the call stopped, for errors.Is: runtime.ErrExhausted, a context's
// error.
func (e *tokenError) Unwrap() error { return e.cause }

// answerError makes err, a failed token request, a tokenError: an answer's error code and
// description are kept, its body and header are not.
func answerError(endpoint string, err error) *tokenError {
	te := &tokenError{endpoint: endpoint}
	var re *runtime.Error
	if !errors.As(err, &re) {
		te.err = err
		return te
	}
	te.status, te.attempts, te.cause = re.StatusCode, re.Attempts, re.Cause
	if re.StatusCode == 0 {
		te.err = re.Err
	}
	var body struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(re.Body, &body) == nil {
		te.code, te.description = oneLine(body.Error, 64), oneLine(body.Description, 200)
	}
	return te
}

// hidden returns te with the client's secret and the refresh token taken out of its
// text, in case the endpoint repeats them.
func (t *tokens) hidden(te *tokenError, refresh string) error {
	hide := func(s string) string {
		for _, secret := range []string{t.cfg.ClientSecret, refresh} {
			if len(secret) >= 4 {
				s = strings.ReplaceAll(s, secret, "REDACTED")
				s = strings.ReplaceAll(s, url.QueryEscape(secret), "REDACTED")
			}
		}
		return s
	}
	te.code, te.description = hide(te.code), hide(te.description)
	if te.err != nil {
		te.err = errors.New(hide(te.err.Error()))
	}
	return te
}

// oneLine returns s cut to n bytes, its control characters made spaces.
func oneLine(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return ' '
		}
		return r
	}, s)
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "..."
	}
	return s
}

// refresher returns the runtime.WithTokenRefresh of a call whose Authorization sent was
// sent, from t: a token other than the one refused.
func (t *tokens) refresher(sent string) runtime.CallOption {
	return runtime.WithTokenRefresh(func(ctx context.Context) (http.Header, error) {
		_, stale, _ := strings.Cut(sent, " ")
		tok, err := t.token(ctx, stale)
		if err != nil {
			return nil, err
		}
		v, err := authValue(tok)
		if err != nil {
			return nil, err
		}
		return http.Header{"Authorization": {v}}, nil
	})
}
