package wire

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/retrygen/retrygen/runtime"
)

// problem is an error model as retrygen generates one: its Error is ErrorText.
type problem struct {
	Message string         `json:"message"`
	Detail  *string        `json:"detail,omitzero"`
	Extra   map[string]any `json:"extra,omitzero"`
}

func (p problem) Error() string { return ErrorText(p) }

// As lets errors.As fill a problem value as well as a *problem, as generated models do.
func (p problem) As(target any) bool {
	t, ok := target.(*problem)
	if ok {
		*t = p
	}
	return ok
}

// answering is a RoundTripper that answers every request with status and the JSON body.
type answering struct {
	status int
	body   string
}

func (a answering) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{StatusCode: a.status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(a.body)), Request: req}, nil
}

// callWithModel makes a call whose every error status has the model problem, with
// credentials creds (each of its own kind) on the operation, and returns the model the
// error holds.
func callWithModel(t *testing.T, body string, creds ...Credential) (problem, error) {
	t.Helper()
	opts := []Option{WithHTTPClient(&http.Client{Transport: answering{401, body}}), WithoutRetryBudget()}
	var names []string
	for i, c := range creds {
		name := "c" + string(rune('0'+i))
		opts = append(opts, WithCredential(name, c))
		names = append(names, name)
	}
	c, err := NewClient("https://api.example.com/v1", opts...)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRequest("GET")
	r.Path("/items")
	r.Security(names)
	_, err = c.Fetch(context.Background(), r, &pagePolicy, "", nil)
	err = DecodeError(err, Model[problem])
	var p problem
	if !errors.As(err, &p) {
		t.Fatalf("%v: no model", err)
	}
	return p, err
}

// An error model's Error text is one printable line, cut between runes, and holds none
// of the credentials the request carried, even where the server repeats them; the model
// itself has them REDACTED, while Error.Body keeps what the server sent.
func TestErrorModelTextHidesCredentials(t *testing.T) {
	const password, token, key = "hunter2-correct-horse", "sk_live_T0KENT0KEN", "k3y/with+plus"
	basic, bearer, apiKey := Basic("alice", password), Bearer(token), APIKey("query", "api_key", key)
	for _, tc := range []struct {
		name, body string
		cred       Credential
	}{
		{"password", `{"message":"wrong password hunter2-correct-horse for user alice"}`, basic},
		{"password and user", `{"message":"denied","detail":"alice:hunter2-correct-horse"}`, basic},
		{"token, nested", `{"message":"denied","extra":{"echo":["Authorization: Bearer sk_live_T0KENT0KEN"]}}`, bearer},
		{"token as a name", `{"message":"denied","extra":{"sk_live_T0KENT0KEN":true}}`, bearer},
		{"token, escaped", `{"message":"denied sk_live_\u0054\u0030KENT0KEN"}`, bearer},
		{"token past the cut", `{"message":"` + strings.Repeat("x", 500) + ` sk_live_T0KENT0KEN"}`, bearer},
		{"key, percent-encoded", `{"message":"bad api_key=` + url.QueryEscape(key) + `"}`, apiKey},
		{"key split by a ZWSP", `{"message":"bad k3y/\u200bwith+plus"}`, apiKey},
	} {
		p, err := callWithModel(t, tc.body, tc.cred)
		text := p.Error()
		for _, secret := range []string{"hunter2", "correct-horse", "T0KEN", "k3y", "with+plus", "with%2Bplus", "sk_live_T0K"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s: the model's text %q shows %q", tc.name, text, secret)
			}
			if data, _ := json.Marshal(p); strings.Contains(string(data), secret) {
				t.Errorf("%s: the model %s holds %q", tc.name, data, secret)
			}
		}
		if e, _ := errors.AsType[*runtime.Error](err); e == nil || string(e.Body) != tc.body {
			t.Errorf("%s: Error.Body is not the body the server sent", tc.name)
		}
	}
	// With no credential, the model is the body's.
	if p, _ := callWithModel(t, `{"message":"sk_live_T0KENT0KEN is not yours"}`); p.Message != "sk_live_T0KENT0KEN is not yours" {
		t.Errorf("model %+v, want the body's message", p)
	}
}

// An error model's Error text has no control, bidi, zero-width or separator character,
// and a cut falls between runes.
func TestErrorModelTextIsOneLine(t *testing.T) {
	for name, msg := range map[string]string{
		"bidi":       "safe\u202egpj.exe\u202c\u2066x\u2069\u200f\u061c",
		"separators": "a\u2028b\u2029c\u0085d",
		"cut in é":   "x" + strings.Repeat("\u00e9", 600),
		"cut in 😀":   strings.Repeat("\U0001F600", 300),
		"invalid":    "bad \xff\xfe",
	} {
		text := problem{Message: msg}.Error()
		if !utf8.ValidString(text) || len(text) > errorTextLimit+len("…") {
			t.Errorf("%s: %d bytes, valid UTF-8 %v: %q", name, len(text), utf8.ValidString(text), text)
		}
		for _, r := range text {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
				t.Errorf("%s: %q holds %U", name, text, r)
			}
		}
	}
}

// The model of an undeclared 2xx status hides the request's credentials too: its
// header's, and its query's values.
func TestUndeclaredModelHidesCredentials(t *testing.T) {
	req, _ := http.NewRequest("GET", "https://api.test/x?sig=s1gn4tur3s1gn4tur3", nil)
	req.Header.Set("Authorization", "Bearer sk_live_T0KENT0KEN")
	resp := &http.Response{StatusCode: 203, Header: http.Header{"Content-Type": {"application/json"}}, Request: req,
		Body: io.NopCloser(strings.NewReader(`{"message":"echo sk_live_T0KENT0KEN s1gn4tur3s1gn4tur3"}`))}
	err := Undeclared(resp, Model[problem])
	var p problem
	if !errors.As(err, &p) || strings.Contains(p.Error(), "T0KEN") || strings.Contains(p.Error(), "s1gn4tur3") {
		t.Errorf("model %q of %v", p.Error(), err)
	}
}
