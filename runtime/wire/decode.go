package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/internal/membody"
	"github.com/retrygen/retrygen/runtime/internal/sent"
	"github.com/retrygen/retrygen/runtime/internal/shown"
)

// ErrContentType is the cause of the error a call returns when a response's
// Content-Type is not one the method decodes (an HTML error page from a proxy where JSON
// was declared, say), rather than a JSON syntax error.
var ErrContentType = runtime.ErrContentType

// isJSON reports whether the media type ct may be JSON: application/json, a type with a
// +json suffix, or text/plain, which servers that write JSON without naming it send (Go's
// own sniffs it so). An absent Content-Type counts too.
func isJSON(ct string) bool {
	if ct == "" {
		return true
	}
	mt := mediaType(ct)
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "/json") || mt == "text/plain"
}

// isJSONType reports whether the media type ct is JSON: application/json or a type with
// a +json suffix, such as application/problem+json.
func isJSONType(ct string) bool {
	mt := mediaType(ct)
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "/json")
}

// DecodeJSON decodes resp's body into v and closes it. An empty body leaves v unset. A
// Content-Type that is not JSON is an error wrapping ErrContentType; a body that holds
// more than one JSON value (text other than white space after the first) is an error
// wrapping ErrTrailingData, as its values would otherwise be dropped in silence.
func DecodeJSON(resp *http.Response, v any) error {
	if ct := resp.Header.Get("Content-Type"); !isJSON(ct) {
		closeBody(resp)
		return fmt.Errorf("decode %d response: %w: %s, not JSON", resp.StatusCode, ErrContentType, quoteMedia(ct))
	}
	if err := decodeOne(resp.Body, v); err != nil && err != io.EOF {
		return fmt.Errorf("decode %d response: %w", resp.StatusCode, err)
	}
	return nil
}

// ErrTrailingData is the cause of the error a call returns when a JSON response holds
// text after its value: a second value (a stream of JSON values the spec did not declare
// as one), or garbage.
var ErrTrailingData = runtime.ErrTrailingData

// trailingLimit is how much of a body that was not read whole is read after its value, to
// find text there; white space beyond it is not looked at.
const trailingLimit = 64 << 10

// decodeOne decodes the JSON value of body into v and closes body; a body with no value
// is io.EOF, and one with more than white space after the value an error wrapping
// ErrTrailingData. A body the engine read whole is decoded where it lies, by
// json.Unmarshal; only one that Unmarshal rejects goes through a Decoder, to tell an empty
// body or a second value from bad JSON. The rest of another body is drained as Drain
// does, bounded in bytes and time.
func decodeOne(body io.ReadCloser, v any) error {
	mem, ok := body.(*membody.Body)
	if !ok {
		dec := json.NewDecoder(body)
		err := dec.Decode(v)
		rest := runtime.Drain(body, trailingLimit)
		if err != nil {
			return err
		}
		buffered, _ := io.ReadAll(dec.Buffered())
		return trailing(dec.InputOffset(), buffered, rest)
	}
	data := mem.Unread()
	err := json.Unmarshal(data, v)
	if _, syntax := err.(*json.SyntaxError); syntax && !json.Valid(data) {
		dec := json.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(v); err != nil {
			return err
		}
		return trailing(dec.InputOffset(), data[dec.InputOffset():])
	}
	return err
}

// trailing returns an error wrapping ErrTrailingData when rest, the text that follows a
// value ending at byte off, holds more than JSON white space.
func trailing(off int64, rest ...[]byte) error {
	for _, part := range rest {
		for i, c := range part {
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				return fmt.Errorf("%w, at byte %d (a stream of JSON values is read by a stream method)", ErrTrailingData, off+int64(i))
			}
		}
		off += int64(len(part))
	}
	return nil
}

// ReadBody reads resp's whole body into *out and closes it.
func ReadBody(resp *http.Response, out *[]byte) error {
	defer resp.Body.Close()
	data, err := readWhole(resp.Body)
	if err != nil {
		return fmt.Errorf("read %d response: %w", resp.StatusCode, err)
	}
	*out = data
	return nil
}

// readWhole reads body to its end, as io.ReadAll does; the bytes of a body the engine read
// whole are returned where they lie.
func readWhole(body io.Reader) ([]byte, error) {
	if mem, ok := body.(*membody.Body); ok {
		return mem.Next(math.MaxInt64), nil
	}
	return io.ReadAll(body)
}

// Discard closes a response whose body the operation does not declare, after draining a
// little of it (for runtime.DrainTimeout at most) so that the connection can be reused.
// It returns nil.
func Discard(resp *http.Response) error {
	closeBody(resp)
	return nil
}

// closeBody drains a little of resp's body, so that the connection can be reused, and
// closes it, for runtime.DrainTimeout at most: a body that stalls is cut.
func closeBody(resp *http.Response) {
	runtime.Drain(resp.Body, 64<<10)
}

// ErrUndeclaredStatus is the cause of the error a call returns when the response has a
// 2xx status the operation does not declare: reachable with errors.Is, and the response
// (status, headers, body) is in the *runtime.Error, with the `default` response's model
// when the spec declares one.
var ErrUndeclaredStatus = runtime.ErrUndeclaredStatus

// Undeclared closes resp, a 2xx response whose status the operation does not declare, and
// returns a *runtime.Error that holds it (with up to runtime.ErrorBodyLimit bytes of body,
// read for runtime.DrainTimeout at most) and has ErrUndeclaredStatus as its cause, so that
// no undeclared status yields a nil error with an empty result. pick, when not nil, gives
// the model to decode the body into.
func Undeclared(resp *http.Response, pick func(status int) any) error {
	body := runtime.Drain(resp.Body, runtime.ErrorBodyLimit)
	e := &runtime.Error{StatusCode: resp.StatusCode, Header: resp.Header, Body: body, Cause: ErrUndeclaredStatus}
	if req := resp.Request; req != nil && req.URL != nil {
		e.Method, e.URL = req.Method, RedactURL(req.URL.String())
		sent.Keep(e, req)
	}
	if pick == nil {
		return e
	}
	return DecodeError(e, pick)
}

// DecodeDeclared is DecodeJSON for a response whose status must be one of declared, the
// operation's 2xx statuses: another status is Undeclared(resp, pick).
func DecodeDeclared(resp *http.Response, v any, pick func(status int) any, declared ...int) error {
	if !slices.Contains(declared, resp.StatusCode) {
		return Undeclared(resp, pick)
	}
	return DecodeJSON(resp, v)
}

// Expect is Discard for a response whose status must be one of declared, the operation's
// 2xx statuses: another status is Undeclared(resp, pick).
func Expect(resp *http.Response, pick func(status int) any, declared ...int) error {
	if !slices.Contains(declared, resp.StatusCode) {
		return Undeclared(resp, pick)
	}
	return Discard(resp)
}

// Model is the error-model picker of an operation whose every error status has the
// model T: it returns a new T for any status.
func Model[T any](status int) any {
	return new(T)
}

// DecodeError decodes the body of a failed call's response into the error model pick
// returns for its status, and attaches it to the *runtime.Error as Model, so that
// errors.As reaches it. Only a JSON body is decoded: a response whose Content-Type is
// not JSON (a text or HTML error page) keeps its text in Error.Body and gets no model,
// and so does a model that does not decode. err is returned either way.
//
// The credentials the request carried are hidden in the model as in the error's text:
// a string of the body that repeats one (a token, an API key, a Basic password) is
// decoded with REDACTED in its place. Error.Body keeps the body as the server sent it.
func DecodeError(err error, pick func(status int) any) error {
	var apiErr *runtime.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode == 0 || len(apiErr.Body) == 0 {
		return err
	}
	if ct := apiErr.Header.Get("Content-Type"); ct != "" && !isJSONType(ct) {
		return err
	}
	m := pick(apiErr.StatusCode)
	if m == nil {
		return err
	}
	if body, ok := sent.HideJSON(apiErr, apiErr.Body); ok && json.Unmarshal(body, m) == nil {
		apiErr.Model = m
	}
	return err
}

// errorTextLimit is the most of an error model's JSON that its Error text shows, in
// bytes before the "…" that marks a cut.
const errorTextLimit = 512

// ErrorText is the Error text of an error model: its JSON on one line of printable
// characters (no control, bidi or zero-width character), cut between runes after 512
// bytes. A model that DecodeError decoded holds none of the request's credentials.
func ErrorText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "error response"
	}
	return shown.Excerpt(string(data), errorTextLimit)
}
