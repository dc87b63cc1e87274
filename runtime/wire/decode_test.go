package wire

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/runtime"
)

type model struct{ Msg string }

func (m model) Error() string { return m.Msg }

func TestDecodeError(t *testing.T) {
	apiErr := &runtime.Error{StatusCode: 404, Body: []byte(`{"Msg":"gone"}`)}
	err := DecodeError(apiErr, func(status int) any {
		if status == 404 {
			return new(model)
		}
		return nil
	})
	var m *model
	if !errors.As(err, &m) || m.Msg != "gone" {
		t.Errorf("errors.As(*model) = %v for %v", m, err)
	}
	transport := &runtime.Error{Err: io.ErrUnexpectedEOF}
	if err := DecodeError(transport, func(int) any { return new(model) }); !errors.Is(err, io.ErrUnexpectedEOF) || transport.Model != nil {
		t.Errorf("a failure without a response got a model: %v", transport.Model)
	}
	notJSON := &runtime.Error{StatusCode: 500, Body: []byte("<html>")}
	if _ = DecodeError(notJSON, func(int) any { return new(model) }); notJSON.Model != nil {
		t.Errorf("a body that does not decode got a model: %v", notJSON.Model)
	}
}

func TestModel(t *testing.T) {
	for _, status := range []int{400, 404, 500} {
		err := DecodeError(&runtime.Error{StatusCode: status, Body: []byte(`{"Msg":"no"}`)}, Model[model])
		var m *model
		if !errors.As(err, &m) || m.Msg != "no" {
			t.Errorf("status %d: errors.As(*model) = %v for %v", status, m, err)
		}
	}
	if a, b := Model[model](400), Model[model](400); a == b {
		t.Error("Model returned the same model twice")
	}
}

// closeTracker reports whether it was closed.
type closeTracker struct {
	io.Reader
	closed bool
}

func (c *closeTracker) Close() error { c.closed = true; return nil }

func response(status int, body string) (*http.Response, *closeTracker) {
	ct := &closeTracker{Reader: strings.NewReader(body)}
	return &http.Response{StatusCode: status, Body: ct}, ct
}

func TestDecodeJSON(t *testing.T) {
	resp, ct := response(200, `{"Msg":"hi"}`)
	var m model
	if err := DecodeJSON(resp, &m); err != nil || m.Msg != "hi" || !ct.closed {
		t.Errorf("decode: %v %+v closed %v", err, m, ct.closed)
	}
	resp, ct = response(204, "")
	if err := DecodeJSON(resp, &m); err != nil || !ct.closed {
		t.Errorf("empty body: %v", err)
	}
	resp, _ = response(201, "{")
	if err := DecodeJSON(resp, &m); err == nil || !strings.Contains(err.Error(), "decode 201 response") {
		t.Errorf("bad JSON: %v", err)
	}
}

func TestReadBodyAndDiscard(t *testing.T) {
	resp, ct := response(200, "text")
	var out []byte
	if err := ReadBody(resp, &out); err != nil || string(out) != "text" || !ct.closed {
		t.Errorf("ReadBody: %v %q closed %v", err, out, ct.closed)
	}
	resp, ct = response(204, "ignored")
	if err := Discard(resp); err != nil || !ct.closed {
		t.Errorf("Discard: %v closed %v", err, ct.closed)
	}
}

func TestErrorText(t *testing.T) {
	if got := ErrorText(model{Msg: "x"}); got != `{"Msg":"x"}` {
		t.Errorf("ErrorText = %s", got)
	}
	long := ErrorText(model{Msg: strings.Repeat("a", 600)})
	if !strings.HasSuffix(long, "…") || len(long) != 512+len("…") {
		t.Errorf("long ErrorText has %d bytes", len(long))
	}
	if got := ErrorText(func() {}); got != "error response" {
		t.Errorf("ErrorText of a func = %q", got)
	}
}

func TestUndeclared(t *testing.T) {
	u, _ := url.Parse("https://api.test/pets?secret=x")
	resp := &http.Response{
		StatusCode: 203,
		Header:     http.Header{"X-A": {"1"}},
		Body:       io.NopCloser(strings.NewReader(`{"message":"mirror"}`)),
		Request:    &http.Request{Method: "GET", URL: u},
	}
	err := Undeclared(resp, func(int) any { return new(map[string]string) })
	var e *runtime.Error
	if !errors.As(err, &e) || !errors.Is(err, ErrUndeclaredStatus) {
		t.Fatalf("err %v", err)
	}
	if e.StatusCode != 203 || string(e.Body) != `{"message":"mirror"}` || e.Header.Get("X-A") != "1" {
		t.Errorf("error %+v", e)
	}
	if m, ok := e.Model.(*map[string]string); !ok || (*m)["message"] != "mirror" {
		t.Errorf("model %#v", e.Model)
	}
	if strings.Contains(err.Error(), "secret=x") {
		t.Errorf("the error shows the query: %v", err)
	}
}

func TestExpectAndDecodeDeclared(t *testing.T) {
	resp := func(status int) *http.Response {
		return &http.Response{StatusCode: status, Body: io.NopCloser(strings.NewReader(`{"Msg":"x"}`))}
	}
	if err := Expect(resp(204), nil, 200, 204); err != nil {
		t.Errorf("declared 204: %v", err)
	}
	if err := Expect(resp(203), nil, 200, 204); !errors.Is(err, ErrUndeclaredStatus) {
		t.Errorf("undeclared 203: %v", err)
	}
	var m model
	if err := DecodeDeclared(resp(200), &m, nil, 200); err != nil || m.Msg != "x" {
		t.Errorf("declared 200: %v %+v", err, m)
	}
	if err := DecodeDeclared(resp(203), &m, nil, 200); !errors.Is(err, ErrUndeclaredStatus) {
		t.Errorf("undeclared 203: %v", err)
	}
}

// A JSON method given an HTML page says so, rather than failing on a syntax error.
func TestDecodeJSONChecksContentType(t *testing.T) {
	for ct, ok := range map[string]bool{
		"":                                  true,
		"application/json":                  true,
		"application/json; charset=utf-8":   true,
		"application/problem+json":          true,
		"application/json; charset":         true,
		"application/json;;":                true,
		"text/html; charset":                false,
		"text/html; charset=utf-8":          false,
		"application/x-www-form-urlencoded": false,
	} {
		resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"a":1}`))}
		if ct != "" {
			resp.Header.Set("Content-Type", ct)
		}
		var v map[string]int
		err := DecodeJSON(resp, &v)
		if ok && (err != nil || v["a"] != 1) || !ok && !errors.Is(err, ErrContentType) {
			t.Errorf("Content-Type %q: %v, %v", ct, v, err)
		}
	}
}

// An undeclared status's error shows the URL as the engine does: no user name (a token
// may stand there) and no query values.
func TestUndeclaredRedactsURL(t *testing.T) {
	req, _ := http.NewRequest("GET", "https://tok3n@api.test/x?key=s3cret", nil)
	resp := &http.Response{StatusCode: 203, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}")), Request: req}
	err := Undeclared(resp, nil)
	if s := err.Error(); strings.Contains(s, "tok3n") || strings.Contains(s, "s3cret") || !strings.Contains(s, "key=REDACTED") {
		t.Errorf("error %q", s)
	}
}
