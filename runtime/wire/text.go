package wire

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// DecodeText reads resp's whole body into *out as text and closes it. types are the media
// types the method takes, as its Accept header lists them ("text/csv", "text/*"); a
// Content-Type that matches none of them is an error wrapping ErrContentType, and an
// absent one is taken as the method's. With no types any Content-Type is taken.
//
// The body's bytes are kept as they are: a charset other than UTF-8 (say
// "text/csv; charset=iso-8859-1") is not converted, so the string holds the bytes the
// server sent. The size of the body is bounded by the client's MaxBodySize, which the
// retry engine applies when it reads the body within the attempt.
func DecodeText(resp *http.Response, out *string, types ...string) error {
	defer closeBody(resp)
	if ct := resp.Header.Get("Content-Type"); ct != "" && len(types) > 0 && !matchesMedia(ct, types) {
		return fmt.Errorf("decode %d response: %w: %s, not %s", resp.StatusCode, ErrContentType, quoteMedia(ct), strings.Join(types, " or "))
	}
	data, err := readWhole(resp.Body)
	if err != nil {
		return fmt.Errorf("read %d response: %w", resp.StatusCode, err)
	}
	*out = string(data)
	return nil
}

// matchesMedia reports whether the media type ct is one of types, parameters ignored and
// case folded; a type may be a range such as "text/*" or "*/*".
func matchesMedia(ct string, types []string) bool {
	got := mediaType(ct)
	if got == "" {
		return false
	}
	for _, t := range types {
		want := mediaType(t)
		switch {
		case want == got, want == "*/*":
			return true
		case strings.HasSuffix(want, "/*") && strings.HasPrefix(got, strings.TrimSuffix(want, "*")):
			return true
		}
	}
	return false
}

// mediaType is ct without parameters, in lower case; "" when its type does not parse. A
// parameter that does not parse ("application/json; charset", "text/plain;;") leaves
// the type as it is: the type is what the decoder goes by.
func mediaType(ct string) string {
	if simpleMediaType(ct) {
		return ct // what mime.ParseMediaType would make of it, without its parameter map
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil && !errors.Is(err, mime.ErrInvalidMediaParameter) {
		return ""
	}
	return mt
}

// quoteMedia quotes a Content-Type the server sent for an error message: on one line, and
// cut after 100 bytes, since a server can send a header of any length.
func quoteMedia(ct string) string {
	const max = 100
	if len(ct) > max {
		return fmt.Sprintf("%q…", ct[:max])
	}
	return fmt.Sprintf("%q", ct)
}

// DecodeJSONStrict is DecodeJSON for a method whose operation also offers text/plain:
// such a body is the text form, not JSON a server labelled text/plain, so a Content-Type
// that is not JSON (text/plain included) is an error wrapping ErrContentType.
func DecodeJSONStrict(resp *http.Response, v any) error {
	if ct := resp.Header.Get("Content-Type"); ct != "" && !isJSONType(ct) {
		closeBody(resp)
		return fmt.Errorf("decode %d response: %w: %s, not JSON", resp.StatusCode, ErrContentType, quoteMedia(ct))
	}
	return DecodeJSON(resp, v)
}

// simpleMediaType reports whether ct is a bare type/subtype of lower-case letters,
// digits and ".+-_", such as "application/json" or "application/problem+json": a media
// type that mime.ParseMediaType returns unchanged.
func simpleMediaType(ct string) bool {
	slash := strings.IndexByte(ct, '/')
	if slash <= 0 || slash == len(ct)-1 {
		return false
	}
	for i := 0; i < len(ct); i++ {
		switch c := ct[i]; {
		case i == slash:
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '.', c == '+', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}
