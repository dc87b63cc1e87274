package wire

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/retrygen/retrygen/runtime"
)

// Credential is how one security scheme of the spec authenticates a request: an API key
// in a header, query parameter or cookie, a bearer token, or a user name and password.
// Build one with APIKey, APIKeyFunc, Bearer, BearerFunc or Basic and give it to the
// client with WithCredential.
type Credential struct {
	in    string // "header", "query" or "cookie"
	name  string // the header, parameter or cookie name
	value string // a fixed value, already with its prefix ("Bearer ...")
	fn    func(ctx context.Context) (string, error)
	pre   string // the prefix of fn's value, e.g. "Bearer "

	// An OAuth 2 grant's endpoint and the grant (ClientCredentials, RefreshToken), or a
	// TokenSource; tok is their tokens for one client, made by WithCredential.
	oauth  *OAuth2
	grant  string
	source func() (*Token, error)
	tok    *tokens
}

// APIKey sends key as the header, query parameter or cookie name; in is "header",
// "query" or "cookie". An empty key counts as not configured.
func APIKey(in, name, key string) Credential {
	return Credential{in: in, name: name, value: key}
}

// APIKeyFunc is APIKey with a key that fn returns, once per call.
func APIKeyFunc(in, name string, fn func(ctx context.Context) (string, error)) Credential {
	return Credential{in: in, name: name, fn: fn}
}

// Bearer sends "Authorization: Bearer token". An empty token counts as not configured.
func Bearer(token string) Credential {
	c := Credential{in: "header", name: "Authorization"}
	if token != "" {
		c.value = "Bearer " + token
	}
	return c
}

// BearerFunc is Bearer with a token that fn returns, once per call: a token that
// changes, or an OAuth 2 or OpenID Connect access token.
func BearerFunc(fn func(ctx context.Context) (string, error)) Credential {
	return Credential{in: "header", name: "Authorization", fn: fn, pre: "Bearer "}
}

// Basic sends HTTP basic authentication (RFC 7617) with user and password.
func Basic(user, password string) Credential {
	return Credential{in: "header", name: "Authorization",
		value: "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))}
}

func (c Credential) configured() bool {
	return c.fn != nil || c.value != "" || c.oauth != nil || c.source != nil
}

// WithCredential makes the client authenticate the operations whose security
// requirements name scheme (the key under components.securitySchemes) with cred. A
// later option for the same scheme replaces an earlier one.
func WithCredential(scheme string, cred Credential) Option {
	return func(c *Client) {
		if c.creds == nil {
			c.creds = map[string]Credential{}
		}
		if cred.oauth != nil || cred.source != nil {
			cred.tok = newTokens(&cred) // the client's own cache
		}
		c.creds[scheme] = cred
		if cred.in == "query" {
			c.queryCreds = append(c.queryCreds, cred.name)
		}
	}
}

// Security records an operation's security requirement: alternatives in the spec's
// order, each a list of scheme names sent together. Client.Call sends the credentials of
// the first alternative whose schemes are all configured; an empty alternative (the
// spec's `{}`, anonymous access) matches with no credentials. When no alternative
// matches, the request goes out without credentials and the server decides. An
// operation that never calls Security (`security: []`, or none declared) sends none.
func (r *Request) Security(alternatives ...[]string) { r.security = alternatives }

// errNoCredential is the cause of a credential function that returned an empty value.
var errNoCredential = errors.New("credential function returned an empty value")

// authenticate adds the credentials r's security requirement asks for, and returns the
// runtime.WithTokenRefresh of an OAuth 2 token among them (nil for none). A credential's
// value never appears in the error.
func (c *Client) authenticate(ctx context.Context, r *Request, header http.Header) (refresh runtime.CallOption, err error) {
	if len(r.security) == 0 || len(c.creds) == 0 {
		return nil, nil
	}
	var chosen []string
	found := false
	for _, alt := range r.security {
		ok := true
		for _, s := range alt {
			if cred, has := c.creds[s]; !has || !cred.configured() {
				ok = false
				break
			}
		}
		if ok {
			chosen, found = alt, true
			break
		}
	}
	if !found {
		return nil, nil
	}
	for _, s := range chosen {
		cred := c.creds[s]
		v := cred.value
		switch {
		case cred.tok != nil:
			if v, err = cred.tok.authorization(ctx); err != nil {
				return nil, fmt.Errorf("credential %s: %w", s, err)
			}
			if refresh == nil {
				refresh = cred.tok.refresher(v)
			}
		case cred.fn != nil:
			got, err := cred.fn(ctx)
			if err != nil {
				return nil, fmt.Errorf("credential %s: %w", s, err)
			}
			if got == "" {
				return nil, fmt.Errorf("credential %s: %w", s, errNoCredential)
			}
			v = cred.pre + got
		}
		if !validHeaderValue(v) {
			return nil, fmt.Errorf("credential %s: value contains a control character", s)
		}
		switch cred.in {
		case "query":
			r.query.Set(cred.name, v)
		case "cookie":
			if strings.Contains(v, ";") {
				return nil, fmt.Errorf("credential %s: cookie value contains a semicolon", s)
			}
			r.cookies = append(r.cookies, cred.name+"="+v)
		default:
			header.Set(cred.name, v)
		}
	}
	return refresh, nil
}
