package runtime

import (
	"cmp"
	"errors"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// redacted replaces each query value in a URL that the engine shows.
const redacted = "REDACTED"

// redactURL returns u as the engine shows it in errors, logs and events: without user
// information or fragment, and with each query value replaced by REDACTED while the keys
// stay, so that "https://tok@api.test/x?api_key=s3cr3t&page=2" reads
// "https://api.test/x?api_key=REDACTED&page=REDACTED". An API key in the query, a token
// in the user name and a signed URL's signature all stay out.
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User = nil
	c.Fragment, c.RawFragment = "", ""
	c.ForceQuery = false
	c.RawQuery = redactQuery(u.RawQuery)
	if c.Opaque != "" { // "mailto:x?y" and the like: nothing in it is worth showing
		c.Opaque = redacted
	}
	return c.String()
}

// redactQuery keeps the keys of a raw query and replaces every value with REDACTED.
func redactQuery(raw string) string {
	if raw == "" {
		return ""
	}
	var b strings.Builder
	for i, part := range strings.Split(raw, "&") {
		if i > 0 {
			b.WriteByte('&')
		}
		key, _, hasValue := strings.Cut(part, "=")
		b.WriteString(key)
		if hasValue {
			b.WriteString("=" + redacted)
		}
	}
	return b.String()
}

// RedactURL returns the URL s as the engine shows it in errors, logs and events: no user
// information, no fragment, each query value replaced by REDACTED (the keys stay). Text
// that does not parse as a URL is replaced whole.
func RedactURL(s string) string { return redactURLString(s) }

// redactURLString redacts a URL given as text; text that does not parse as a URL is
// replaced whole.
func redactURLString(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return redacted
	}
	return redactURL(u)
}

// urlInText finds URLs with a scheme and authority in free text, such as an error message
// that quotes a redirect's Location.
var urlInText = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>`]+")

// redactText redacts every URL in s.
func redactText(s string) string {
	if strings.Contains(s, "://") {
		s = urlInText.ReplaceAllStringFunc(s, redactURLString)
	}
	// A relative URL ("/next?sig=..."), or the rest of one the pattern above stopped
	// short of (at a space): every query value goes too.
	if strings.ContainsRune(s, '?') {
		s = queryInText.ReplaceAllString(s, "${1}"+redacted)
	}
	return s
}

// queryInText finds the values of a query in free text: ?key=value and &key=value.
var queryInText = regexp.MustCompile(`([?&][^=\s"'<>&?` + "`" + `]*=)[^&\s"'<>` + "`" + `]+`)

// redactError returns err ready to be shown: every *url.Error in its chain gets its URL
// redacted (net/http's own text, Get "https://...": EOF, quotes the URL), and when the
// text still holds a URL (a message quoting a Location header, a CheckRedirect error), err
// is wrapped in an error whose text is redacted and that unwraps to err.
func redactError(err error) error {
	if err == nil {
		return nil
	}
	for e := err; e != nil; {
		if ue, ok := e.(*url.Error); ok {
			ue.URL = redactURLString(ue.URL)
		}
		switch x := e.(type) {
		case interface{ Unwrap() error }:
			e = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range x.Unwrap() {
				redactError(inner)
			}
			e = nil
		default:
			e = nil
		}
	}
	text := err.Error()
	if clean := redactText(text); clean != text {
		return &redactedError{err: err, text: clean}
	}
	return err
}

// redactedError shows err's text with its URLs redacted; errors.Is and errors.As see err.
type redactedError struct {
	err  error
	text string
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

// unwrapURLError returns what a *url.Error at the head of err's chain wraps, or err.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// minSecret is the length, in bytes, below which a value is not taken for a credential
// when Error hides the call's credentials: shorter ones are common words and numbers.
const minSecret = 8

// secrets returns a function that hides the credentials req carries (see hideSecrets)
// from the server's message and request id, or nil when it carries none. They are: the value of every header a redirect off the origin would drop
// (all but redirectSafeHeaders: Authorization, Cookie, an API key header of any name) and
// each of its words (a token without its scheme, a cookie's values), the values of the
// query parameters named in queryNames (case folded), and the URL's password. Each is
// written as excerpt writes text, longest first; none is shorter than minSecret.
func secrets(req *http.Request, queryNames []string) func(text string, cut bool) string {
	var out []string
	keep := func(v string) {
		if v = excerpt(v, math.MaxInt); len(v) >= minSecret && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	add := func(v string) {
		keep(v)
		for _, word := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(` ;,="`, r) }) {
			keep(word)
		}
	}
	for name, values := range req.Header {
		if !redirectSafeHeaders[http.CanonicalHeaderKey(name)] {
			for _, v := range values {
				add(v)
			}
		}
	}
	if len(queryNames) > 0 && req.URL.RawQuery != "" {
		for name, values := range req.URL.Query() {
			if slices.ContainsFunc(queryNames, func(n string) bool { return strings.EqualFold(n, name) }) {
				for _, v := range values {
					add(v)
				}
			}
		}
	}
	if pw, ok := req.URL.User.Password(); ok {
		add(pw)
	}
	if len(out) == 0 {
		return nil
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	return func(text string, cut bool) string { return hideSecrets(text, out, cut) }
}

// hideSecrets replaces each of secrets in s, text as excerpt writes it, with REDACTED.
// When s is cut short (cut), an end of s that starts one of them (4 bytes of it or more)
// goes too.
func hideSecrets(s string, secrets []string, cut bool) string {
	for _, secret := range secrets {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	if !cut {
		return s
	}
	for _, secret := range secrets {
		for n := min(len(secret), len(s)) - 1; n >= 4; n-- {
			if strings.HasSuffix(s, secret[:n]) {
				return s[:len(s)-n] + redacted
			}
		}
	}
	return s
}
