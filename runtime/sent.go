package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/url"

	"github.com/retrygen/retrygen/runtime/internal/sent"
)

func init() {
	sent.URL = func(err error) *url.URL {
		if r := sentOf(err); r != nil {
			u := *r.url
			return &u
		}
		return nil
	}
	sent.HideJSON = func(err error, body []byte) ([]byte, bool) { return sentOf(err).hideJSON(body) }
	sent.Keep = func(err error, req *http.Request) {
		var e *Error
		if errors.As(err, &e) && e.hide == nil && req != nil && req.URL != nil {
			e.hide = allSecrets(req)
		}
	}
	sent.HideRequestJSON = func(req *http.Request, body []byte) ([]byte, bool) {
		if req == nil || req.URL == nil {
			return body, true
		}
		return allSecrets(req).hideJSON(body)
	}
	sent.HideText = func(req *http.Request, text string) string {
		if req == nil || req.URL == nil {
			return text
		}
		return allSecrets(req).hideString(text)
	}
}

// allSecrets returns the credentials req carries (see secrets), with a URL that keeps
// none of its query.
func allSecrets(req *http.Request) *sentRequest {
	var names []string
	for name := range req.URL.Query() {
		names = append(names, name)
	}
	return secrets(req, nil, "", names)
}

// sentOf returns what the *Error in err's chain keeps of its request; nil when none.
func sentOf(err error) *sentRequest {
	var e *Error
	if errors.As(err, &e) {
		return e.hide
	}
	return nil
}

// hideJSON returns body, a JSON text, with r's credentials replaced by REDACTED in its
// strings, member names included, as Error's text hides them in the server's message; a
// string that holds one is written as excerpt writes it. body itself comes back when r
// has no credential, and ok is false when it has some and body is not one JSON value.
// Numbers are kept as written; the rest is written anew, without white space.
func (r *sentRequest) hideJSON(body []byte) (out []byte, ok bool) {
	if r == nil || len(r.secrets) == 0 {
		return body, true
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var b bytes.Buffer
	b.Grow(len(body))
	var open []container // the arrays and objects the next token is in, innermost last
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return b.Bytes(), b.Len() > 0 && len(open) == 0
		}
		if err != nil || len(open) == 0 && b.Len() > 0 {
			return nil, false // not JSON, or a second value after the first
		}
		if tok == json.Delim(']') || tok == json.Delim('}') {
			open = open[:len(open)-1]
			b.WriteString(tok.(json.Delim).String())
			continue
		}
		if n := len(open); n > 0 {
			open[n-1].separate(&b)
		}
		switch t := tok.(type) {
		case json.Delim: // '[' or '{'
			b.WriteString(t.String())
			open = append(open, container{object: t == '{'})
		case string:
			writeJSON(&b, r.hideString(t))
		case json.Number:
			b.WriteString(t.String())
		default: // a bool or null
			writeJSON(&b, t)
		}
	}
}

// container is an array or object being written.
type container struct {
	object  bool
	written int // tokens written in it: in an object, names and values in turn
}

// separate writes what goes before c's next token: nothing before the first, a colon
// after a member's name, a comma otherwise.
func (c *container) separate(b *bytes.Buffer) {
	switch {
	case c.written == 0:
	case c.object && c.written%2 == 1:
		b.WriteByte(':')
	default:
		b.WriteByte(',')
	}
	c.written++
}

// hideString returns s with r's credentials hidden: s itself when it holds none, as
// excerpt writes it, or else its excerpt with them replaced.
func (r *sentRequest) hideString(s string) string {
	x := excerpt(s, math.MaxInt)
	if h := r.hide(x, false); h != x {
		return h
	}
	return s
}

func writeJSON(b *bytes.Buffer, v any) {
	data, _ := json.Marshal(v)
	b.Write(data)
}
