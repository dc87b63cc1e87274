package wire

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// WithSpecServers tells the client the server URLs the spec declares at its top level,
// the first being the default. NewClient with an empty base URL uses the first; a base
// URL that is none of them overrides the spec's servers, operation-level ones included.
// Generated NewClient functions pass it before the caller's options.
func WithSpecServers(urls ...string) Option {
	return func(c *Client) { c.specServers = urls }
}

// Server makes the request go to the operation's own server (a path- or
// operation-level servers entry) instead of the client's base URL, unless the caller
// chose a base URL the spec does not list.
func (r *Request) Server(baseURL string) { r.server = baseURL }

// base returns the URL r goes to before its path.
func (c *Client) base(r *Request) (*url.URL, error) {
	if r.server == "" || c.overridden {
		return c.baseURL, nil
	}
	u, err := parseBase(r.server)
	if err != nil {
		return nil, fmt.Errorf("operation server: %w", err)
	}
	return u, nil
}

// parseBase checks and normalizes a base URL: absolute http or https, no query or
// fragment, no trailing slash.
func parseBase(baseURL string) (*url.URL, error) {
	// The messages show the URL redacted: a query or a user name may hold a credential.
	u, err := url.Parse(baseURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // *url.Error quotes the whole URL
		}
		return nil, fmt.Errorf("base URL: not a valid URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: want an absolute http or https URL", RedactURL(baseURL))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("base URL %q: must not have a query or fragment", RedactURL(baseURL))
	}
	u.RawPath = strings.TrimSuffix(u.EscapedPath(), "/")
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// ServerVariable is one variable of a server URL template: its value, or its default
// when the value is empty, checked against its enum when the spec gives one.
type ServerVariable struct {
	Name    string
	Value   string
	Default string
	Enum    []string
}

// ServerURL fills the {variables} of template, e.g. "https://{region}.example.com/v1".
// A value outside a variable's enum is an error that names the variable and the allowed
// values.
func ServerURL(template string, vars ...ServerVariable) (string, error) {
	out := template
	for _, v := range vars {
		val := v.Value
		if val == "" {
			val = v.Default
		}
		if len(v.Enum) > 0 && !slices.Contains(v.Enum, val) {
			return "", fmt.Errorf("server variable %s: %q is not one of %s", v.Name, val, strings.Join(v.Enum, ", "))
		}
		out = strings.ReplaceAll(out, "{"+v.Name+"}", val)
	}
	return out, nil
}
