package runtime

import (
	"cmp"
	"encoding/base64"
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
// text still holds a URL (a message quoting a Location header, a CheckRedirect error) or
// one of hide's credentials (a RoundTripper's error quoting a header), or is not one line
// of printable characters within errorTextLimit bytes (a certificate's names, a proxy's
// answer), err is wrapped in an error whose text is redacted and excerpted, and that
// unwraps to err.
func redactError(err error, hide *sentRequest) error {
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
				redactError(inner, nil)
			}
			e = nil
		default:
			e = nil
		}
	}
	text := err.Error()
	if clean := excerpt(redactText(hide.hide(excerpt(text, math.MaxInt), false)), errorTextLimit); clean != text {
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

// sentRequest is what an Error keeps of its request without showing it: the credentials
// the request carried, which Error's text hides wherever the server repeats them, and the
// URL it went to without them, which a redirect's Location is resolved against. An Error
// holds a pointer to one, so that printing the Error with %v or %#v shows neither.
type sentRequest struct {
	secrets []string // as excerpt writes them, longest first; none shorter than minSecret
	url     *url.URL // no user information, fragment or query credential
}

// secrets returns what an Error keeps of req out of sight (see sentRequest). header is
// the header map the request's attempts sent (the call's, with its WithHeader values and
// idempotency key), nil for req's own. The credentials are: the value of every header a
// redirect off the origin would drop (all but redirectSafeHeaders and keyHeader, the
// idempotency key's: Authorization, Cookie, an API key header of any name) and each of its
// words (a token without its scheme, a cookie's values), the user name and password an
// HTTP Basic Authorization carries, every query value (the URL an Error shows has them all
// REDACTED, an API key in an ordinary query parameter included), and the URL's password;
// each also as a URL's query or path would carry it, percent-encoded. The URL kept goes
// without the query parameters named in queryNames (case folded).
func secrets(req *http.Request, header http.Header, keyHeader string, queryNames []string) *sentRequest {
	var c credentials
	if header == nil {
		header = req.Header
	}
	for name, values := range header {
		if name = http.CanonicalHeaderKey(name); !redirectSafeHeaders[name] && (keyHeader == "" || name != http.CanonicalHeaderKey(keyHeader)) {
			for _, v := range values {
				c.add(v)
				c.addBasic(v)
			}
		}
	}
	if req.URL.RawQuery != "" {
		for _, values := range req.URL.Query() {
			for _, v := range values {
				c.add(v)
			}
		}
	}
	if pw, ok := req.URL.User.Password(); ok {
		c.add(pw)
	}
	slices.SortFunc(c, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	u := *req.URL
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	dropQuery(&u, queryNames)
	return &sentRequest{secrets: c, url: &u}
}

// credentials gathers the values Error hides, as excerpt writes them.
type credentials []string

// add keeps v, each of its words and their percent-encoded forms.
func (c *credentials) add(v string) {
	c.addForms(v)
	for _, word := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(` ;,="`, r) }) {
		c.addForms(word)
	}
}

// addBasic keeps the password of v, when it is an HTTP Basic Authorization value
// ("Basic dXNlcjpwYXNz"), and the user name and password joined as they were sent. The
// user name alone is not a secret.
func (c *credentials) addBasic(v string) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || !strings.EqualFold(scheme, "basic") {
		return
	}
	pair, err := base64.StdEncoding.DecodeString(strings.TrimSpace(token))
	if err != nil {
		return
	}
	c.addForms(string(pair))
	if _, pw, ok := strings.Cut(string(pair), ":"); ok {
		c.addForms(pw)
	}
}

// addForms keeps v, and v percent-encoded as a query or a path would carry it, with
// upper- and lower-case hex digits.
func (c *credentials) addForms(v string) {
	for _, form := range [...]string{v, url.QueryEscape(v), url.PathEscape(v)} {
		c.keep(form)
		c.keep(percentLower.ReplaceAllStringFunc(form, strings.ToLower))
	}
}

// percentLower finds a percent-encoded byte, for its hex digits to be written in lower
// case.
var percentLower = regexp.MustCompile(`%[0-9A-F]{2}`)

func (c *credentials) keep(v string) {
	if v = excerpt(v, math.MaxInt); len(v) >= minSecret && !slices.Contains(*c, v) {
		*c = append(*c, v)
	}
}

// hide replaces each of the request's credentials in s, text as excerpt writes it, with
// REDACTED. When s is cut short (cut), an end of s that starts one of them (4 bytes of it
// or more) goes too. A nil r hides nothing.
func (r *sentRequest) hide(s string, cut bool) string {
	if r == nil {
		return s
	}
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	if !cut {
		return s
	}
	for _, secret := range r.secrets {
		for n := min(len(secret), len(s)) - 1; n >= 4; n-- {
			if strings.HasSuffix(s, secret[:n]) {
				return s[:len(s)-n] + redacted
			}
		}
	}
	return s
}
