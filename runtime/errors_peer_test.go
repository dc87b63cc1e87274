package runtime

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode"
	"unicode/utf8"
)

// assertOneLine fails t unless text is valid UTF-8 on one line of printable characters
// (no control, format, separator or bidi character), at most limit bytes, without any
// of absent.
func assertOneLine(t *testing.T, name, text string, limit int, absent ...string) {
	t.Helper()
	if !utf8.ValidString(text) || len(text) > limit {
		t.Errorf("%s: %d bytes (at most %d), valid UTF-8 %v: %.300q", name, len(text), limit, utf8.ValidString(text), text)
	}
	for _, r := range text {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029' {
			t.Errorf("%s: %.300q holds %U", name, text, r)
			break
		}
	}
	for _, s := range absent {
		if strings.Contains(text, s) {
			t.Errorf("%s: %.300q holds %q", name, text, s)
		}
	}
}

// tlsServerWithNames starts a TLS server on loopback whose certificate, trusted by the
// client returned, is valid for names only; the client dials it for any host.
func tlsServerWithNames(t *testing.T, names ...string) *http.Client {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "test"},
		DNSNames:              names,
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the client's refusal of the handshake
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	addr := srv.Listener.Addr().String()
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// wholeTextLimit bounds the whole text of an Error: method, URL, outcome, cause.
const wholeTextLimit = 1200

// A certificate's names reach the error text of a failed handshake on one printable
// line, cut short: a name with ESC, BEL, CR or LF neither drives the terminal nor forges
// a log line, and a hundred long names do not make a long error.
func TestErrorTextOfAHostileCertificate(t *testing.T) {
	long := make([]string, 99)
	for i := range long {
		long[i] = strings.Repeat("a", 60) + ".example"
	}
	for _, tc := range []struct {
		name  string
		names []string
	}{
		{"escapes", []string{"\x1b]0;pwned\aevil.example", "x.example\r\n2024-01-01 INFO forged line", "\x1b[2J\x1b[31mred.example"}},
		{"a hundred long names", long},
	} {
		hc := tlsServerWithNames(t, tc.names...)
		e := &Engine{HTTPClient: hc}
		_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", "https://api.test/x", nil), idempotent())
		var cerr *tls.CertificateVerificationError
		if !errors.As(err, &cerr) {
			t.Fatalf("%s: %v, want a certificate verification error", tc.name, err)
		}
		text := err.Error()
		assertOneLine(t, tc.name, text, wholeTextLimit, "\x1b", "\a", "\r", "\n")
		if !strings.Contains(text, "x509: certificate is valid for") {
			t.Errorf("%s: %q does not say why", tc.name, text)
		}
		assertOneLine(t, tc.name+", Err", mustError(t, err).Err.Error(), errorTextLimit+len("…"), "\x1b", "\a", "\r", "\n")
	}
}

// A transport error of any text (a RoundTripper's, a proxy's) and a cause that quotes a
// peer are shown on one printable line, cut short; the credentials the request carried
// are hidden in them too.
func TestErrorTextOfHostileTransportErrors(t *testing.T) {
	const secret = "sk_live_T0KENT0KEN"
	for name, text := range map[string]string{
		"controls":       "dial: \x1b]8;;http://evil\x07click\x1b]8;;\x07\r\nlevel=INFO msg=forged",
		"C1 and bidi":    "read: \u0085next\u009b31m \u202egpj.exe\u2066x\u2069 \u2028sep\u2029",
		"1 MiB":          "proxy said: " + strings.Repeat("\u00e9", 512<<10),
		"echoed token":   "proxy refused Bearer " + secret,
		"invalid UTF-8":  "bad \xff\xfe bytes",
		"URL with token": `Get "https://u:` + secret + `@api.test/x?k=v": EOF`,
	} {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: func(int, *http.Request) (*http.Response, error) { return nil, errors.New(text) }}
			req := newRequest(t, t.Context(), "GET", "https://api.test/x", nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			e := engineFor(s, 0.5)
			var events []RetryEvent
			e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
			_, err := e.Do(t.Context(), req, idempotent())
			assertOneLine(t, name, err.Error(), wholeTextLimit, "T0KEN", "\x1b", "\r", "\n")
			assertOneLine(t, name+", Err", mustError(t, err).Err.Error(), errorTextLimit+len("…"), "\x1b", "\r", "\n")
			for _, ev := range events {
				assertOneLine(t, name+", event", ev.Err.Error(), errorTextLimit+len("…"), "\x1b", "\r", "\n")
			}
		})
	}
	// A cause that quotes what the server sent.
	e := &Error{Method: "GET", URL: "https://api.test/x", Attempts: 1, StatusCode: 302,
		Cause: errors.New("redirect without a Location: \x1b[31m" + strings.Repeat("x\u202e", 1<<20))}
	assertOneLine(t, "cause", e.Error(), wholeTextLimit, "\x1b")
	// A URL of 1 MiB (a next link the server gave) is cut too.
	e = &Error{Method: "GET", URL: "https://api.test/" + strings.Repeat("p", 1<<20), StatusCode: 500, Attempts: 1, Cause: ErrStatusNotRetried}
	assertOneLine(t, "URL", e.Error(), wholeTextLimit)
}

// A server that repeats the credentials the request carried gets none of them into the
// text, in whatever form it repeats them: an HTTP Basic password (the user name may stay),
// a token or key percent-encoded as a URL would carry it.
func TestErrorTextHidesEchoedCredentialsInOtherForms(t *testing.T) {
	const password, key = "hunter2-correct-horse", "k3y/with+plus&more"
	for _, tc := range []struct {
		name, message string
		set           func(r *http.Request)
	}{
		{"basic password", "wrong password " + password + " for user alice", func(r *http.Request) { r.SetBasicAuth("alice", password) }},
		{"basic pair", "bad credentials alice:" + password, func(r *http.Request) { r.SetBasicAuth("alice", password) }},
		{"basic header by hand", "wrong password " + password, func(r *http.Request) {
			r.Header.Set("Authorization", "basic  "+base64.StdEncoding.EncodeToString([]byte("alice:"+password)))
		}},
		{"URL password", "wrong password " + password, func(r *http.Request) { r.URL.User = url.UserPassword("alice", password) }},
		{"query key, query-escaped", "no key " + url.QueryEscape(key), func(r *http.Request) {}},
		{"query key, path-escaped", "no key " + url.PathEscape(key), func(r *http.Request) {}},
		{"query key, raw", "no key " + key, func(r *http.Request) {}},
		{"header key, escaped", "no key " + url.QueryEscape(key), func(r *http.Request) { r.Header.Set("X-Api-Key", key) }},
	} {
		s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
			return jsonResponse(401, `{"message":"`+tc.message+`"}`, "X-Request-Id", tc.message), nil
		}}
		e := engineFor(s, 0.5)
		e.QueryCredentials = []string{"api_key"}
		req := newRequest(t, t.Context(), "GET", "https://api.test/v1/x?api_key="+url.QueryEscape(key), nil)
		tc.set(req)
		_, err := e.Do(t.Context(), req, idempotent())
		assertOneLine(t, tc.name, err.Error(), wholeTextLimit, "hunter2", "correct-horse", "k3y", "with+plus", "with%2Bplus")
		if !strings.Contains(err.Error(), "REDACTED") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// hideJSON rewrites a JSON body with the credentials hidden in its strings, keeping its
// numbers as written; a body that is not one JSON value is refused, and one with no
// credential to hide is given back as it is.
func TestHideJSON(t *testing.T) {
	req := newRequest(t, t.Context(), "GET", "https://api.test/x", nil)
	req.Header.Set("X-Api-Key", "k3y-k3y-k3y")
	r := secrets(req, nil, "", nil)
	for in, want := range map[string]string{
		`{"a": [1, 2.50, -3e10, 12345678901234567890], "b": {"c": null, "d": true}, "e": "x"}`: `{"a":[1,2.50,-3e10,12345678901234567890],"b":{"c":null,"d":true},"e":"x"}`,
		`{"k3y-k3y-k3y": "is k3y-k3y-k3y", "list": ["k3y-k3y-k3y\r\n", {}, []]}`:               `{"REDACTED":"is REDACTED","list":["REDACTED",{},[]]}`,
		`"k3y-k\u0033y-k3y"`: `"REDACTED"`,
		`[]`:                 `[]`,
	} {
		if got, ok := r.hideJSON([]byte(in)); !ok || string(got) != want {
			t.Errorf("hideJSON(%s) = %s, %v; want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{``, `{`, `{"a":1} {"b":2}`, `{"a":1} x`, `{"a":}`, `[1,]`} {
		if got, ok := r.hideJSON([]byte(in)); ok {
			t.Errorf("hideJSON(%s) = %s, want a refusal", in, got)
		}
	}
	if got, ok := secrets(newRequest(t, t.Context(), "GET", "https://api.test/x", nil), nil, "", nil).hideJSON([]byte(`{ "a" : 1 } x`)); !ok || string(got) != `{ "a" : 1 } x` {
		t.Errorf("no credential: %s, %v", got, ok)
	}
}

// Whatever the body, hideJSON refuses it when it is not one JSON value, and otherwise
// gives a JSON text that decodes to the same value, the credential hidden.
func FuzzHideJSON(f *testing.F) {
	f.Add(`{"a":[1,"k3y-k3y-k3y",{"b":null}],"c":true}`)
	f.Add(`"x\u2028y"`)
	f.Add(`[1, 2] [3]`)
	f.Add(`{"a":1e400}`)
	f.Fuzz(func(t *testing.T, body string) {
		req, _ := http.NewRequest("GET", "https://api.test/x", nil)
		req.Header.Set("X-Api-Key", "k3y-k3y-k3y")
		out, ok := secrets(req, nil, "", nil).hideJSON([]byte(body))
		if ok != json.Valid([]byte(body)) {
			t.Fatalf("hideJSON(%q): ok %v, json.Valid %v", body, ok, !ok)
		}
		if !ok || strings.Contains(body, "k3y") {
			return
		}
		var want, got any
		errWant := json.Unmarshal([]byte(body), &want)
		errGot := json.Unmarshal(out, &got)
		if (errWant == nil) != (errGot == nil) || !reflect.DeepEqual(want, got) {
			t.Fatalf("hideJSON(%q) = %q: %v, %v; %v, %v", body, out, want, errWant, got, errGot)
		}
	})
}

// DecodeBody reads a failed call's JSON body, the server's message and code, into the
// caller's type, with the credentials the request carried hidden where the server repeats
// them; a body that is not JSON, or empty, is an error and leaves the value alone.
func TestErrorDecodeBody(t *testing.T) {
	const key = "sk-live-0123456789"
	for _, tc := range []struct {
		name, body    string
		message, code string
		ok            bool
	}{
		{"openai", `{"error":{"message":"Incorrect API key provided: ` + key + `","type":"invalid_request_error","code":"invalid_api_key"}}`, "Incorrect API key provided: REDACTED", "invalid_api_key", true},
		{"plain", `{"error":{"message":"Bad credentials","code":"401"}}`, "Bad credentials", "401", true},
		{"html", `<html>401 Authorization Required</html>`, "", "", false},
		{"empty", ``, "", "", false},
		{"cut", `{"error":{"message":"Bad`, "", "", false},
	} {
		s := &stub{fn: func(int, *http.Request) (*http.Response, error) { return jsonResponse(401, tc.body), nil }}
		req := newRequest(t, t.Context(), "GET", "https://api.test/v1/models", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		_, err := engineFor(s, 0.5).Do(t.Context(), req, idempotent())
		var body struct {
			Error struct{ Message, Code string }
		}
		body.Error.Code = "unset"
		derr := mustError(t, err).DecodeBody(&body)
		switch {
		case tc.ok && (derr != nil || body.Error.Message != tc.message || body.Error.Code != tc.code):
			t.Errorf("%s: DecodeBody = %v, %+v", tc.name, derr, body)
		case !tc.ok && (derr == nil || body.Error.Code != "unset"):
			t.Errorf("%s: DecodeBody = %v, %+v; want an error and the value left alone", tc.name, derr, body)
		}
	}
	// A JSON value the caller's type cannot hold is json.Unmarshal's error.
	e := &Error{StatusCode: 401, Body: []byte(`{"error":"invalid_grant"}`)}
	var wrong struct{ Error struct{ Message string } }
	var typeErr *json.UnmarshalTypeError
	if err := e.DecodeBody(&wrong); !errors.As(err, &typeErr) {
		t.Errorf("DecodeBody into the wrong type = %v", err)
	}
}
