package wire

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/runtime"
)

func textResponse(ct, body string) (*http.Response, *closeTracker) {
	resp, tracker := response(200, body)
	resp.Header = http.Header{}
	if ct != "" {
		resp.Header.Set("Content-Type", ct)
	}
	return resp, tracker
}

func TestDecodeText(t *testing.T) {
	for _, tc := range []struct {
		ct    string
		types []string
	}{
		{"text/csv", []string{"text/csv"}},
		{"text/csv; charset=utf-8", []string{"text/plain", "text/csv"}},
		{"TEXT/CSV", []string{"text/csv"}},
		{"", []string{"text/csv"}},
		{"text/markdown", []string{"text/*"}},
		{"application/xml", []string{"*/*"}},
		{"application/xml", nil},
		{"text/csv; charset", []string{"text/csv"}},
		{`text/csv; charset="utf-8`, []string{"text/csv"}},
	} {
		resp, tracker := textResponse(tc.ct, "a,b\n1,2\n")
		var out string
		if err := DecodeText(resp, &out, tc.types...); err != nil || out != "a,b\n1,2\n" || !tracker.closed {
			t.Errorf("%q as %q: %q, %v, closed %v", tc.ct, tc.types, out, err, tracker.closed)
		}
	}
}

// A Content-Type the method does not take is ErrContentType, naming the type on one
// bounded line, and the result is left alone.
func TestDecodeTextRefusesOtherTypes(t *testing.T) {
	for _, ct := range []string{"text/html", "application/json", "text/csvx", "not a type", "text/plain\nX: " + strings.Repeat("y", 500)} {
		resp, tracker := textResponse("", "<html>")
		resp.Header["Content-Type"] = []string{ct}
		out := "unset"
		err := DecodeText(resp, &out, "text/csv", "text/plain")
		if !errors.Is(err, ErrContentType) || out != "unset" || !tracker.closed {
			t.Errorf("%q: %q, %v, closed %v", ct, out, err, tracker.closed)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || len(msg) > 250 || !strings.Contains(msg, "text/csv or text/plain") {
			t.Errorf("%q: message %q is not one bounded line naming the types", ct, msg)
		}
		if first := strings.SplitN(ct, "\n", 2)[0]; !strings.Contains(msg, first[:min(len(first), 20)]) {
			t.Errorf("%q: message %q does not name the type", ct, msg)
		}
	}
}

// Text in another charset comes back byte for byte, not converted.
func TestDecodeTextKeepsOtherCharsets(t *testing.T) {
	latin1 := "caf\xe9\n"
	resp, _ := textResponse("text/plain; charset=iso-8859-1", latin1)
	var out string
	if err := DecodeText(resp, &out, "text/plain"); err != nil || out != latin1 {
		t.Errorf("got %q, %v; want the bytes %q", out, err, latin1)
	}
}

// An error model is decoded only from a JSON body; a text body stays in Error.Body.
func TestDecodeErrorOnlyFromJSON(t *testing.T) {
	pick := func(int) any { return new(model) }
	for _, ct := range []string{"application/json", "application/problem+json; charset=utf-8", "", "application/json;;"} {
		apiErr := &runtime.Error{StatusCode: 404, Header: http.Header{}, Body: []byte(`{"Msg":"gone"}`)}
		if ct != "" {
			apiErr.Header.Set("Content-Type", ct)
		}
		if _ = DecodeError(apiErr, pick); apiErr.Model == nil {
			t.Errorf("%q: no model", ct)
		}
	}
	for _, ct := range []string{"text/plain", "text/html; charset=utf-8"} {
		apiErr := &runtime.Error{StatusCode: 404, Header: http.Header{"Content-Type": {ct}}, Body: []byte(`{"Msg":"gone"}`)}
		if _ = DecodeError(apiErr, pick); apiErr.Model != nil || string(apiErr.Body) != `{"Msg":"gone"}` {
			t.Errorf("%q: model %v, body %q", ct, apiErr.Model, apiErr.Body)
		}
	}
}

func TestDecodeJSONNamesTypeBounded(t *testing.T) {
	resp, _ := textResponse("text/html; x="+strings.Repeat("a", 1000), "<html>")
	var v any
	err := DecodeJSON(resp, &v)
	if !errors.Is(err, ErrContentType) || len(err.Error()) > 250 || !strings.Contains(err.Error(), "text/html") {
		t.Errorf("err = %v", err)
	}
}

// DecodeJSONStrict refuses text/plain, which DecodeJSON takes as JSON mislabelled.
func TestDecodeJSONStrict(t *testing.T) {
	resp, tracker := textResponse("text/plain", `{"Msg":"hi"}`)
	var m model
	if err := DecodeJSONStrict(resp, &m); !errors.Is(err, ErrContentType) || m.Msg != "" || !tracker.closed || !strings.Contains(err.Error(), `"text/plain"`) {
		t.Errorf("text/plain: %v, %+v, closed %v", err, m, tracker.closed)
	}
	for _, ct := range []string{"application/json", "application/vnd.x+json; charset=utf-8", ""} {
		resp, tracker := textResponse(ct, `{"Msg":"hi"}`)
		var m model
		if err := DecodeJSONStrict(resp, &m); err != nil || m.Msg != "hi" || !tracker.closed {
			t.Errorf("%q: %v, %+v, closed %v", ct, err, m, tracker.closed)
		}
	}
	resp, _ = textResponse("text/plain", `{"Msg":"hi"}`)
	if err := DecodeJSON(resp, &m); err != nil || m.Msg != "hi" {
		t.Errorf("DecodeJSON no longer takes text/plain: %v", err)
	}
}
