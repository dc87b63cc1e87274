package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/retrygen/retrygen/internal/memnet"
)

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.test/pets":                               "https://api.test/pets",
		"https://tok3n@api.test/pets":                         "https://api.test/pets",
		"https://user:pa55@api.test/pets?limit=1":             "https://api.test/pets?limit=REDACTED",
		"https://api.test/pets?api_key=s3cr3t&page=2":         "https://api.test/pets?api_key=REDACTED&page=REDACTED",
		"https://api.test/pets?flag&k=":                       "https://api.test/pets?flag&k=REDACTED",
		"https://api.test/o?X-Amz-Signature=abc%2Fdef#tok=1":  "https://api.test/o?X-Amz-Signature=REDACTED",
		"http://[::1]:8080/p?token=x":                         "http://[::1]:8080/p?token=REDACTED",
		"https://api.test/a%2Fb?q=1;r=2":                      "https://api.test/a%2Fb?q=REDACTED",
		"https://api.test/pets?":                              "https://api.test/pets",
		"https://api.test/p?%E2%9C%93=%E2%9C%93&api%5Fkey=v1": "https://api.test/p?%E2%9C%93=REDACTED&api%5Fkey=REDACTED",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := redactURL(u); got != want {
			t.Errorf("redactURL(%s) = %s, want %s", in, got, want)
		}
	}
	if got := redactText(`Get "https://a.test/x?sig=s3cr3t": failed to parse Location header "http://t0k@b.test/?k=v": bad`); strings.Contains(got, "s3cr3t") || strings.Contains(got, "t0k") || strings.Contains(got, "=v") {
		t.Errorf("redactText left a secret: %s", got)
	}
}

// F3: a URL shown in Error(), Error.URL, a RetryEvent or the log carries no user information
// and no query value, whatever the failure: a status, a transport error quoting the URL, or
// one quoting a signed redirect target.
func TestSecretsInURLsStayOut(t *testing.T) {
	secrets := []string{"tok3n", "k3y-s3cr3t", "s1gn3d", "AKIAs3cr3t", "pa55"}
	for _, tc := range []struct {
		name, url string
		want      string // in Error() or Err's text
	}{
		{"status", "http://tok3n@api.test/pets?api_key=k3y-s3cr3t", "http://api.test/pets?api_key=REDACTED: 503"},
		{"transport error", "http://tok3n:pa55@nowhere.test/pets?api_key=k3y-s3cr3t", "connection refused"},
		{"signed redirect", "http://api.test/go?api_key=k3y-s3cr3t", "X-Amz-Signature=REDACTED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := memnet.New()
				srv, _, err := n.Serve("api.test:80", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/go" {
						http.Redirect(w, r, "http://cdn.test/obj?X-Amz-Signature=s1gn3d&X-Amz-Credential=AKIAs3cr3t", http.StatusTemporaryRedirect)
						return
					}
					w.WriteHeader(503)
				}))
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				tr := n.Transport()
				defer tr.CloseIdleConnections()
				var logs bytes.Buffer
				var events []RetryEvent
				e := &Engine{
					HTTPClient: &http.Client{Transport: tr},
					Logger:     slog.New(slog.NewTextHandler(&logs, nil)),
					OnRetry:    func(ev RetryEvent) { events = append(events, ev) },
					Rand:       func() float64 { return 0 },
				}
				_, err = e.Do(t.Context(), newRequest(t, t.Context(), "GET", tc.url, nil), idempotent())
				ee := mustError(t, err)
				if ee.Attempts != 3 || len(events) != 2 {
					t.Fatalf("%v: %d attempts, %d events; want 3 and 2", err, ee.Attempts, len(events))
				}
				if shown := err.Error() + " | " + fmt.Sprint(ee.Err); !strings.Contains(shown, tc.want) {
					t.Errorf("Error() | Err = %s, want it to contain %q", shown, tc.want)
				}
				texts := map[string]string{
					"Error()": err.Error(),
					"%+v":     fmt.Sprintf("%+v", err),
					"URL":     ee.URL,
					"Err":     fmt.Sprint(ee.Err),
					"log":     logs.String(),
					"event":   fmt.Sprintf("%+v", events),
					"event.Err": func() string {
						var b strings.Builder
						for _, ev := range events {
							fmt.Fprint(&b, ev.Err, " ")
						}
						return b.String()
					}(),
				}
				var ue *url.Error
				if errors.As(err, &ue) {
					texts["url.Error.URL"] = ue.URL
				}
				for where, text := range texts {
					for _, s := range secrets {
						if strings.Contains(text, s) {
							t.Errorf("%s leaks %q: %s", where, s, text)
						}
					}
				}
				if !strings.Contains(logs.String(), "api_key=REDACTED") {
					t.Errorf("log does not show the query's keys:\n%s", logs.String())
				}
			})
		})
	}
}

// An attempt's error is redacted when it is shown, in a retry's event or log record or in
// the call's error, not before: the error of an attempt that a retry made good, with no
// observer, is left as net/http returned it, and costs no redaction.
func TestAttemptErrorRedactedWhenShown(t *testing.T) {
	for _, tc := range []struct {
		name     string
		observe  bool // an OnRetry hook sees the failed attempt
		succeeds bool // the retry succeeds
		want     bool // the attempt's error is redacted
	}{
		{"made good, unseen", false, true, false},
		{"made good, seen", true, true, true},
		{"final", false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var failed *url.Error // the first attempt's transport error, as the transport made it
				tr := &stub{fn: func(n int, r *http.Request) (*http.Response, error) {
					if n == 1 || !tc.succeeds {
						failed = &url.Error{Op: "Get", URL: r.URL.String(), Err: errors.New("connection reset")}
						return nil, failed
					}
					return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
				}}
				e := &Engine{HTTPClient: &http.Client{Transport: tr}}
				var events []RetryEvent
				if tc.observe {
					e.OnRetry = func(ev RetryEvent) { events = append(events, ev) }
				}
				p := idempotent()
				p.MaxAttempts = 2
				resp, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/pets?api_key=s3cr3t", nil), p)
				if tc.succeeds != (err == nil) {
					t.Fatalf("Do: %v", err)
				}
				if resp != nil {
					resp.Body.Close()
				}
				if redacted := !strings.Contains(failed.URL, "s3cr3t"); redacted != tc.want {
					t.Errorf("the attempt's error %q redacted: %v; want %v", failed.URL, redacted, tc.want)
				}
				for _, ev := range events {
					if strings.Contains(ev.Err.Error(), "s3cr3t") {
						t.Errorf("the retry's event shows %q", ev.Err)
					}
				}
				if err != nil && strings.Contains(err.Error(), "s3cr3t") {
					t.Errorf("the call's error shows %q", err)
				}
			})
		})
	}
}
