package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// jsonResponse is a JSON answer with the header pairs given.
func jsonResponse(code int, body string, kv ...string) *http.Response {
	h := header(kv...)
	h.Set("Content-Type", "application/json")
	return response(code, h, body)
}

// A failed call's text carries the server's message and the request id, as openai-go's
// and stripe-go's errors do.
func TestErrorShowsServerMessageAndRequestID(t *testing.T) {
	s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
		return jsonResponse(400, `{"error":{"type":"invalid_request_error","message":"No such customer: cus_1"}}`, "Request-Id", "req_123"), nil
	}}
	_, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", "https://api.test/v1/customers/cus_1?expand=x", nil), idempotent())
	want := "GET https://api.test/v1/customers/cus_1?expand=REDACTED: 400 Bad Request: No such customer: cus_1 (request id req_123)"
	if err == nil || err.Error() != want {
		t.Errorf("message\n%v\nwant\n%s", err, want)
	}
	if e := mustError(t, err); e.Attempts != 1 || !errors.Is(err, ErrStatusNotRetried) || e.StatusCode != 400 {
		t.Errorf("fields changed: %+v", e)
	}
}

// The message comes from the first of the common places that holds a non-empty string,
// in a fixed order, whatever the order of the members in the body.
func TestErrorServerMessagePrecedence(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"message":"plain"}`, "plain"},
		{`{"Message":"AWS spells it so"}`, "AWS spells it so"},
		{`{"error":{"message":"stripe"}}`, "stripe"},
		{`{"error":{"code":404,"message":"google","status":"NOT_FOUND"}}`, "google"},
		{`{"error":"invalid_grant","error_description":"the code has expired"}`, "the code has expired"},
		{`{"ok":false,"error":"channel_not_found"}`, "channel_not_found"},
		{`{"type":"about:blank","title":"Not Acceptable Here","detail":"the balance is 30, the cost 50"}`, "the balance is 30, the cost 50"},
		{`{"type":"about:blank","title":"Out of credit"}`, "Out of credit"},
		{`{"detail":"Not found."}`, "Not found."},
		{`{"data":null,"errors":[{"message":"Cannot query field \"x\""},{"message":"second"}]}`, `Cannot query field "x"`},
		{`{"documentation_url":"https://docs","errors":[{"code":"missing"}],"message":"Validation Failed"}`, "Validation Failed"},
		{`{"error":{"message":"in error"},"message":"top"}`, "top"},
		{`{"title":"t","error_description":"d","detail":"x"}`, "d"},
		{`{"error":"code","detail":"x"}`, "code"},
		{`{"error":"Unprocessable Entity","detail":"the status text falls through"}`, "the status text falls through"},
		{`{"error":{"message":""},"detail":"falls through an empty message"}`, "falls through an empty message"},
		{`{"message":"  \n "," detail":"x","title":"blank messages fall through"}`, "blank messages fall through"},
		{" \t\n\ufeff{\"message\":\"leading space and a BOM\"}", "leading space and a BOM"},
		// Cut short (a body over ErrorBodyLimit, or drained during a wait): what came
		// before the cut still counts.
		{`{"message":"before the cut","items":[1,2,3`, "before the cut"},
		{`{"detail":"d","message":"cut inside`, "cut inside…"},
		{`{"message":"cut in an escape \u00`, "cut in an escape…"},
		{`{"message":"cut in a pair \ud83d\ude`, "cut in a pair…"},
		{"{\"message\":\"cut in a rune caf\xc3", "cut in a rune caf…"},
		{`{"detail":"before the cut","message":"`, "before the cut"},
		{`{"detail":"before the cut","message":  `, "before the cut"},
		{`{"detail":"before the cut","error":{"message":"cut`, "before the cut"},
	} {
		e := &Error{Method: "GET", URL: "https://api.test/x", Attempts: 1, StatusCode: 422, Body: []byte(tc.body), Cause: ErrStatusNotRetried}
		want := "GET https://api.test/x: 422 Unprocessable Entity: " + tc.want
		if got := e.Error(); got != want {
			t.Errorf("body %s\ngot  %s\nwant %s", tc.body, got, want)
		}
	}
}

// No excerpt where there is no message: a body that is not a JSON object, a message that
// is not a string, a 2xx body (a success body's "title" is not an error message), or a
// message that only repeats the status text.
func TestErrorServerMessageAbsent(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 1000) + `"x"` + strings.Repeat("}", 1000)
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"html", `<html><title>502 Bad Gateway</title></html>`, 502},
		{"text", "upstream connect error", 503},
		{"string", `"message"`, 500},
		{"array", `[{"message":"x"}]`, 500},
		{"number message", `{"message":42}`, 500},
		{"array message", `{"message":["a","b"]}`, 500},
		{"object message", `{"message":{"text":"x"}}`, 500},
		{"null everything", `{"message":null,"error":null,"detail":null,"title":null,"errors":null,"error_description":null}`, 500},
		{"error object without message", `{"error":{"code":"E1"}}`, 500},
		{"errors not objects", `{"errors":["x","y"]}`, 500},
		{"errors empty", `{"errors":[]}`, 500},
		{"deep message", `{"message":` + deep + `}`, 500},
		{"deep error", `{"error":` + deep + `}`, 500},
		{"deep errors", `{"errors":[` + deep + `]}`, 500},
		{"beyond the JSON nesting limit", `{"x":` + strings.Repeat("[", 100000), 500},
		{"other member", `{"msg":"x","description":"y"}`, 500},
		{"syntax error first", `{"a" 1, "message":"x"}`, 500},
		{"status text", `{"message":"service unavailable"}`, 503},
		{"success body", `{"id":1,"title":"Mr. Fluffy"}`, 203},
		{"no status", `{"message":"x"}`, 0},
	} {
		e := &Error{Method: "GET", URL: "https://api.test/x", Attempts: 1, StatusCode: tc.status, Body: []byte(tc.body), Cause: ErrStatusNotRetried}
		got := e.Error()
		var want string
		switch tc.status {
		case 0:
			want = "GET https://api.test/x: no status code"
		default:
			want = "GET https://api.test/x: " + statusLine(tc.status)
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", tc.name, got, want)
		}
	}
}

func statusLine(code int) string { return strconv.Itoa(code) + " " + http.StatusText(code) }

// The request id comes from X-Request-Id, Request-Id or X-GitHub-Request-Id, in that order;
// no other header value appears.
func TestErrorRequestID(t *testing.T) {
	for _, tc := range []struct {
		h    http.Header
		want string
	}{
		{header("X-Request-Id", "a1"), " (request id a1)"},
		{header("Request-Id", "req_1"), " (request id req_1)"},
		{header("X-GitHub-Request-Id", "CAFE:1:2"), " (request id CAFE:1:2)"},
		{header("X-GitHub-Request-Id", "gh", "Request-Id", "r", "X-Request-Id", "x"), " (request id x)"},
		{http.Header{"X-Request-Id": {"", " ", "second"}}, " (request id second)"},
		{header("X-Request-Id", ""), ""},
		{header("Authorization", "Bearer sk_live_S3CRET", "Set-Cookie", "s=S3CRET", "X-Amzn-Requestid", "S3CRET"), ""},
		{nil, ""},
	} {
		e := &Error{Method: "GET", URL: "https://api.test/x", Attempts: 1, StatusCode: 404, Header: tc.h, Cause: ErrStatusNotRetried}
		if got, want := e.Error(), "GET https://api.test/x: 404 Not Found"+tc.want; got != want {
			t.Errorf("header %v\ngot  %s\nwant %s", tc.h, got, want)
		}
	}
}

// A status the operation's policy does not retry, answered on the first attempt, reads as
// the response alone: no attempt count, no reason for not retrying. Where retries happened,
// or a retryable outcome was stopped, the text still says so.
func TestErrorRetryWording(t *testing.T) {
	body := []byte(`{"message":"No such key"}`)
	id := header("X-Request-Id", "req_1")
	const prefix = "GET https://api.test/v1/x: "
	for _, tc := range []struct {
		name string
		e    Error
		want string
	}{
		{"401 not retried", Error{Attempts: 1, StatusCode: 401, Header: id, Body: body, Cause: ErrStatusNotRetried},
			"401 Unauthorized: No such key (request id req_1)"},
		{"404 not retried", Error{Attempts: 1, StatusCode: 404, Cause: ErrStatusNotRetried}, "404 Not Found"},
		{"429 outside the list keeps no hint", Error{Attempts: 1, StatusCode: 429, RetryAfter: 30e9, Cause: ErrStatusNotRetried},
			"429 Too Many Requests"},
		{"not retried after retries", Error{Attempts: 3, StatusCode: 400, Header: id, Body: body, Cause: ErrStatusNotRetried},
			"400 Bad Request: No such key (request id req_1) after 3 attempts: status not retried by the operation's policy"},
		{"exhausted", Error{Attempts: 3, StatusCode: 503, Header: id, Body: body, Cause: ErrExhausted},
			"503 Service Unavailable: No such key (request id req_1) after 3 attempts: retry attempts exhausted"},
		{"retries off", Error{Attempts: 1, StatusCode: 503, Cause: ErrRetriesOff},
			"503 Service Unavailable after 1 attempt: not retried: one attempt allowed"},
		{"budget", Error{Attempts: 1, StatusCode: 503, Cause: ErrBudgetExhausted},
			"503 Service Unavailable after 1 attempt: retry budget exhausted"},
		{"not retry-safe", Error{Attempts: 1, StatusCode: 503, Cause: ErrNotRetrySafe},
			"503 Service Unavailable after 1 attempt: not retried: the operation is not idempotent and its policy has no idempotency key"},
		{"hint too long", Error{Attempts: 1, StatusCode: 429, RetryAfter: 3600e9, Cause: ErrRetryAfterTooLong},
			"429 Too Many Requests after 1 attempt: server asked to retry later than allowed (Retry-After 1h0m0s)"},
		{"breaker", Error{Cause: ErrCircuitOpen}, "no attempt made: circuit breaker open"},
		{"cancelled", Error{Attempts: 1, Err: context.Canceled}, "context canceled after 1 attempt"},
	} {
		tc.e.Method, tc.e.URL = "GET", "https://api.test/v1/x"
		if got := tc.e.Error(); got != prefix+tc.want {
			t.Errorf("%s\ngot  %s\nwant %s", tc.name, got, prefix+tc.want)
		}
	}
}

// The same through the engine: a 401 ends the call on its first attempt.
func TestErrorNotRetriedStatusThroughEngine(t *testing.T) {
	s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
		h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}}
		return response(http.StatusUnauthorized, h, `{"error":{"message":"No such key"}}`), nil
	}}
	e := engineFor(s, 0)
	_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", "https://api.test/v1/x", nil), idempotent())
	if want := "GET https://api.test/v1/x: 401 Unauthorized: No such key (request id req_1)"; err == nil || err.Error() != want {
		t.Errorf("message\n%v\nwant\n%s", err, want)
	}
	if !errors.Is(err, ErrStatusNotRetried) || mustError(t, err).Attempts != 1 {
		t.Errorf("err = %#v", err)
	}
}

// The attempt count and "no attempt made" never contradict each other: a response with no
// status code is not "no attempt".
func TestErrorAttemptWordingAgrees(t *testing.T) {
	e := engineFor(&stub{fn: status(0)}, 0)
	_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", "https://api.test/v1/x", nil), idempotent())
	if want := "GET https://api.test/v1/x: no status code"; err == nil || err.Error() != want {
		t.Errorf("Status(0): %v, want %s", err, want)
	}

	for _, attempts := range []int{0, 1, 2} {
		for _, code := range []int{0, 503} {
			for _, cause := range []error{nil, ErrStatusNotRetried, ErrExhausted, ErrCircuitOpen, context.DeadlineExceeded} {
				for _, last := range []error{nil, errors.New("EOF")} {
					e := &Error{Method: "GET", URL: "https://api.test/x", Attempts: attempts, StatusCode: code, Err: last, Cause: cause}
					text := e.Error()
					if attempts > 0 && strings.Contains(text, "no attempt") {
						t.Errorf("%d attempts: %q", attempts, text)
					}
					if attempts == 0 && strings.Contains(text, "after") {
						t.Errorf("no attempt: %q", text)
					}
				}
			}
		}
	}
}

// Whatever the server sends, the text stays short, on one line, free of controls and
// bidi overrides, valid UTF-8, and holds nothing of the body but its message.
func TestErrorTextResistsHostileServers(t *testing.T) {
	huge := strings.Repeat("é", 512<<10) // 1 MiB of two-byte runes: a cut falls inside one
	for _, tc := range []struct {
		name   string
		body   string
		h      http.Header
		want   string // in the text
		absent string // not in the text
	}{
		{"1 MiB message", `{"message":"` + huge + `"}`, nil, strings.Repeat("é", 100) + "…", ""},
		{"1 MiB message cut at an odd limit", `{"message":"x` + huge + `"}`, nil, "x" + strings.Repeat("é", 99) + "…", ""},
		{"bidi controls only, cut by the limit", `{"message":"` + strings.Repeat("\u202e", 30000) + `x"}`, nil, "500 Internal Server Error", "…"},
		{"CRLF", `{"message":"line one\r\nX-Injected: yes\r\n\r\nline three"}`, nil, ": line one X-Injected: yes line three", ""},
		{"controls", `{"message":"a\u0000b\u0007c\u001b[31md\u007fe\u0085f\u009bg"}`, nil, ": a b c [31md e f g", ""},
		{"separators", `{"message":"a\u2028b\u2029c\tb"}`, nil, ": a b c b", ""},
		{"bidi", `{"message":"safe\u202e` + "gpj.exe" + `\u202c\u2066x\u2069\u200f\u061c"}`, nil, ": safegpj.exex", ""},
		{"zero width", `{"message":"a\u200bb\ufeffc"}`, nil, ": abc", ""},
		{"invalid UTF-8", "{\"message\":\"bad \xff\xfe byte\"}", nil, ": bad \ufffd\ufffd byte", ""},
		{"lone surrogate", `{"message":"half \ud800 pair"}`, nil, ": half \ufffd pair", ""},
		{"secret beside the message", `{"message":"denied","authorization":"Bearer sk_live_S3CRET","api_key":"S3CRET"}`, nil, ": denied", "S3CRET"},
		{"secret in an error object", `{"error":{"message":"denied","token":"S3CRET"}}`, nil, ": denied", "S3CRET"},
		{"query in the message", `{"message":"Cannot GET /v1/x?api_key=S3CRET&page=2"}`, nil, ": Cannot GET /v1/x?api_key=REDACTED&page=REDACTED", "S3CRET"},
		{"many query values", `{"message":"?` + strings.Repeat("a=b&", 100) + `"}`, nil, ": ?" + strings.Repeat("a=REDACTED&", 18) + "a…", ""},
		{"URL in the message", `{"message":"moved to https://user:S3CRET@api.test/y?sig=S3CRET"}`, nil, ": moved to https://api.test/y?sig=REDACTED", "S3CRET"},
		{"secret, no message", `{"Authorization":"Bearer S3CRET","access_token":"S3CRET"}`, nil, "500 Internal Server Error", "S3CRET"},
		{"10 KB request id", `{}`, header("X-Request-Id", strings.Repeat("r", 10<<10)), " (request id " + strings.Repeat("r", 100) + "…)", ""},
		{"request id with CRLF", `{}`, header("X-Request-Id", "req_1\r\nSet-Cookie: a=b"), " (request id req_1 Set-Cookie: a=b)", ""},
		{"request id, bidi", `{}`, header("X-Request-Id", "req\u202e_1"), " (request id req_1)", ""},
		{"request id, invalid UTF-8", `{}`, header("X-Request-Id", "req\xff"), " (request id req\ufffd)", ""},
		{"credential headers", `{}`, header("Authorization", "Bearer S3CRET", "Cookie", "S3CRET", "X-Api-Key", "S3CRET"), "500 Internal Server Error", "S3CRET"},
	} {
		e := &Error{Method: "GET", URL: "https://api.test/x", Attempts: 1, StatusCode: 500, Header: tc.h, Body: []byte(tc.body), Cause: ErrStatusNotRetried}
		got := e.Error()
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q does not hold %q", tc.name, got, tc.want)
		}
		if tc.absent != "" && strings.Contains(got, tc.absent) {
			t.Errorf("%s: %q holds %q", tc.name, got, tc.absent)
		}
		if !utf8.ValidString(got) || len(got) > 500 {
			t.Errorf("%s: %d bytes, valid UTF-8 %v", tc.name, len(got), utf8.ValidString(got))
		}
		for _, r := range got {
			if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
				t.Errorf("%s: %q holds %U", tc.name, got, r)
			}
		}
	}
}

// Formatting an error reads its body but does not change it, and the error can be shown
// from several goroutines at once.
func TestErrorTextLeavesTheErrorAlone(t *testing.T) {
	body := []byte(`{"error":{"message":"No such customer: cus_1"}}`)
	e := &Error{Method: "GET", URL: "https://api.test/x", Attempts: 1, StatusCode: 400, Body: body, Cause: ErrStatusNotRetried}
	done := make(chan string)
	for range 4 {
		go func() { done <- e.Error() }()
	}
	for range 4 {
		if got := <-done; !strings.HasSuffix(got, ": No such customer: cus_1") {
			t.Error(got)
		}
	}
	if string(e.Body) != `{"error":{"message":"No such customer: cus_1"}}` {
		t.Errorf("Body changed: %s", e.Body)
	}
}

// Whatever the body and the request id, Error's text is valid UTF-8 on one line, holds no
// control, format or separator character, and stays within its bounds.
func FuzzErrorText(f *testing.F) {
	f.Add(`{"error":{"message":"No such customer: cus_1"}}`, "req_123")
	f.Add(`{"message":"a\r\nb\u202e","errors":[{"message":"x"}]}`, "id\r\nx")
	f.Add("{\"detail\":\"\xff\xfe\",\"title\":\"t\"}", "\u2066")
	f.Add(`{"error":"invalid_grant","error_description":"expired"`, "")
	f.Fuzz(func(t *testing.T, body, id string) {
		e := &Error{Method: "GET", URL: "https://api.test/x", Attempts: 1, StatusCode: 400,
			Header: http.Header{"X-Request-Id": {id}}, Body: []byte(body), Cause: ErrStatusNotRetried}
		got := e.Error()
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		for _, r := range got {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("%q holds %U", got, r)
			}
		}
		if max := len("GET https://api.test/x: 400 Bad Request: …") + messageLimit + len(" (request id …)") + requestIDLimit; len(got) > max {
			t.Fatalf("%d bytes: %q", len(got), got)
		}
	})
}

// A message longer than what the engine keeps of a body (ErrorBodyLimit) is shown by its
// start: the body is cut inside the string.
func TestErrorMessageOfABodyOverTheLimit(t *testing.T) {
	long := strings.Repeat("Traceback line; ", ErrorBodyLimit/8)
	s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
		return jsonResponse(400, `{"message":"`+long+`","id":"x"}`, "X-Request-Id", "r1"), nil
	}}
	_, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "POST", "https://api.test/v1/jobs", nil), idempotent())
	e := mustError(t, err)
	want := "POST https://api.test/v1/jobs: 400 Bad Request: " + long[:messageLimit] + "… (request id r1)"
	if len(e.Body) != ErrorBodyLimit || err.Error() != want {
		t.Errorf("%d bytes of body; message\n%s\nwant\n%s", len(e.Body), err, want)
	}
}

// A server that repeats the credentials the request carried, in its message or its
// request id, does not get them into the text: the values of the headers a redirect off
// the origin would drop (Authorization, Cookie, an API key header), a token without its
// scheme, and the query credentials' values are redacted, even when the server splits
// them with characters the text drops.
func TestErrorTextHidesEchoedCredentials(t *testing.T) {
	const secret = "sk_live_S3CRETS3CRET"
	for _, tc := range []struct {
		name, message, id string
		set               func(r *http.Request)
	}{
		{"bearer token", `invalid token Bearer ` + secret, "", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+secret) }},
		{"token alone", `token ` + secret + ` expired`, "", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+secret) }},
		{"API key header", `key ` + secret + ` is not valid`, "", func(r *http.Request) { r.Header.Set("X-Partner", secret) }},
		{"cookie", `session ` + secret + ` unknown`, "", func(r *http.Request) { r.Header.Set("Cookie", "theme=dark; sid="+secret) }},
		{"query credential", `api_key=` + secret + ` is not valid`, "", func(r *http.Request) {}},
		{"split by a zero-width space", `key sk_live_\u200bS3CRETS3CRET`, "", func(r *http.Request) { r.Header.Set("X-Api-Key", secret) }},
		{"request id", `denied`, secret, func(r *http.Request) { r.Header.Set("X-Api-Key", secret) }},
	} {
		s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
			return jsonResponse(401, `{"message":"`+tc.message+`"}`, "X-Request-Id", tc.id), nil
		}}
		e := engineFor(s, 0.5)
		e.QueryCredentials = []string{"API_KEY"}
		req := newRequest(t, t.Context(), "GET", "https://api.test/v1/x?api_key="+secret, nil)
		tc.set(req)
		_, err := e.Do(t.Context(), req, idempotent())
		if err == nil || strings.Contains(err.Error(), "S3CRET") || !strings.Contains(err.Error(), "REDACTED") {
			t.Errorf("%s: %v", tc.name, err)
		}
		// Printed whole, the error shows the server's header (the request id case) but
		// nothing of the request's.
		if text := fmt.Sprintf("%+v %#v", err, err); tc.id == "" && strings.Contains(text, "S3CRET") {
			t.Errorf("%s: printed, the error shows the credential: %s", tc.name, text)
		}
	}
	// A body cut inside a repeated credential (the engine keeps ErrorBodyLimit bytes)
	// shows none of its start either.
	head := `{"pad":"` + strings.Repeat("x", ErrorBodyLimit-100) + `","message":"bad key `
	s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
		return jsonResponse(401, head+strings.Repeat("y", ErrorBodyLimit-len(head)-10)+secret+`"}`), nil
	}}
	req := newRequest(t, t.Context(), "GET", "https://api.test/v1/x", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	if _, err := engineFor(s, 0.5).Do(t.Context(), req, idempotent()); err == nil || strings.Contains(err.Error(), "sk_live") || !strings.Contains(err.Error(), "yREDACTED…") {
		t.Errorf("cut: %v", err)
	}

	// Short values and those of content headers are not taken for credentials.
	s = &stub{fn: func(int, *http.Request) (*http.Response, error) {
		return jsonResponse(406, `{"message":"application/xml is not offered to client 42"}`), nil
	}}
	req = newRequest(t, t.Context(), "GET", "https://api.test/v1/x", nil)
	req.Header.Set("Accept", "application/xml")
	req.Header.Set("X-Client", "42")
	_, err := engineFor(s, 0.5).Do(t.Context(), req, idempotent())
	if want := "GET https://api.test/v1/x: 406 Not Acceptable: application/xml is not offered to client 42"; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
