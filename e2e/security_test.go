package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/e2e/faultapi"
	"github.com/retrygen/retrygen/examples/petstore/client"
)

// B12: a header value with CR or LF fails the call before anything is sent: no
// connection, no arrival, no retry. Both a declared header parameter and the declared
// Idempotency-Key parameter.
func TestHeaderInjectionRefusedBeforeSending(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(t *testing.T, e *env) error
	}{
		{"header parameter", func(t *testing.T, e *env) error {
			_, err := e.faultapi().GetItem(t.Context(), "a", &faultapi.GetItemParams{XNote: ptr("a\r\nX-Evil: 1")})
			return err
		}},
		{"header parameter, LF only", func(t *testing.T, e *env) error {
			_, err := e.faultapi().GetItem(t.Context(), "a", &faultapi.GetItemParams{XNote: ptr("a\nX-Evil: 1")})
			return err
		}},
		{"Idempotency-Key parameter", func(t *testing.T, e *env) error {
			_, err := e.petstoreAt(faultURL).PlaceOrder(t.Context(), &client.PlaceOrderParams{IdempotencyKey: "k\r\nX-Evil: 1"},
				client.Order{PetID: 1, Quantity: 1})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble(t, func(t *testing.T, e *env) {
				srv := e.serve(faultAddr, reply(200, "{}"))
				err := tc.call(t, e)
				if err == nil {
					t.Fatal("the call succeeded")
				}
				if n, d, ev := srv.count(), e.net.Dials(faultAddr), e.events(); n != 0 || d != 0 || len(ev) != 0 {
					t.Errorf("%d arrivals, %d connections, %d retries; want none (err %v)", n, d, len(ev), err)
				}
			})
		})
	}
}

// B13: path and query values are escaped: a path value stays one segment, whatever it
// holds, and reaches the declared operation; a query value stays one value.
func TestPathAndQueryEscaping(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		srv := e.serve(faultAddr, echo)
		c := e.faultapi()
		for value, want := range map[string]string{
			"../admin": "..%2Fadmin",
			"a/b?c#d":  "a%2Fb%3Fc%23d",
			"%2e%2e":   "%252e%252e",
			".":        "%2E",
			"..":       "%2E%2E",
			"a b+c":    "a%20b+c",
		} {
			before := srv.count()
			if _, err := c.GetItem(t.Context(), value, nil); err != nil {
				t.Errorf("%q: %v", value, err)
				continue
			}
			uri := srv.got(before).URI
			if uri != "/items/"+want {
				t.Errorf("%q was sent as %s, want /items/%s", value, uri, want)
			}
			if u, err := url.Parse(uri); err != nil || strings.Count(u.EscapedPath(), "/") != 2 {
				t.Errorf("%q: %s is not one segment under /items/", value, uri)
			}
		}
		before := srv.count()
		if _, err := c.GetItem(t.Context(), "a", &faultapi.GetItemParams{Q: ptr("x&admin=true#f")}); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(srv.got(before).URI)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		if got := q["q"]; len(got) != 1 || got[0] != "x&admin=true#f" || q.Has("admin") || u.Fragment != "" {
			t.Errorf("query %q, want q=[x&admin=true#f] alone", u.RawQuery)
		}
	})
}

// credentials adds the credentials of B14 and B16 the way a user does: with a request
// editor, before the first attempt, never in a RoundTripper.
func credentials(ctx context.Context, req *http.Request) error {
	req.Header.Set("Authorization", "Bearer s3cr3t-TOKEN")
	req.Header.Set("Proxy-Authorization", "Basic cHJveHk6cGE1NQ==")
	req.Header.Set("Cookie", "session=c00kie-S3CRET")
	req.Header.Set("X-Api-Key", "k3y-S3CRET")
	return nil
}

var sensitive = []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key"}

// B14: a redirect to another host carries no Authorization, Proxy-Authorization, Cookie
// or API key header of the API's own; one to the same host keeps them; a chain that leaves the host and comes back
// never gets them back (CVE-2023-45289, CVE-2024-45336). A redirect is no retry.
func TestRedirectsStripCredentials(t *testing.T) {
	run := func(t *testing.T, a []step, b []step) (*server, *server) {
		var sa, sb *server
		bubble(t, func(t *testing.T, e *env) {
			sa = e.serve(petstoreAddr, a...)
			sb = e.serve(otherAddr, b...)
			if _, err := e.petstore(client.WithRequestEditor(credentials)).GetPet(t.Context(), 7); err != nil {
				t.Fatal(err)
			}
			if ev := e.events(); len(ev) != 0 {
				t.Errorf("%d retries: a redirect is not a retry", len(ev))
			}
		})
		return sa, sb
	}
	has := func(t *testing.T, a *arrival, want bool) {
		t.Helper()
		for _, h := range sensitive {
			if got := a.Header.Get(h) != ""; got != want {
				t.Errorf("%s %s: %s present = %v, want %v", a.Method, a.URI, h, got, want)
			}
		}
	}
	t.Run("to another host", func(t *testing.T) {
		sa, sb := run(t,
			[]step{redirect(307, "http://"+otherAddr+"/v1/pets/7")},
			[]step{reply(200, petJSON)})
		has(t, sa.got(0), true)
		has(t, sb.got(0), false)
	})
	t.Run("same host", func(t *testing.T) {
		sa, _ := run(t,
			[]step{redirect(307, "/v1/pets/8"), reply(200, petJSON)},
			nil)
		has(t, sa.got(0), true)
		has(t, sa.got(1), true)
	})
	t.Run("away and back", func(t *testing.T) {
		sa, sb := run(t,
			[]step{redirect(307, "http://"+otherAddr+"/v1/pets/7"), reply(200, petJSON)},
			[]step{redirect(307, "http://"+petstoreAddr+"/v1/pets/9")})
		has(t, sa.got(0), true)
		has(t, sb.got(0), false)
		if a := sa.got(1); a.URI != "/v1/pets/9" {
			t.Fatalf("second arrival at the first host: %s", a.URI)
		}
		has(t, sa.got(1), false)
	})
}

// B15: redirects are followed by net/http inside one engine attempt. A 307 on a POST
// sends the same body and key again; a redirect loop stops after 10 redirects and is not
// retried.
func TestRedirectsAreNotRetries(t *testing.T) {
	t.Run("307 on POST", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, redirect(307, "/v1/pets-new"), reply(201, petJSON))
			if _, err := e.petstore().CreatePet(t.Context(), client.NewPet{Name: "Rex", Species: client.SpeciesDog}); err != nil {
				t.Fatal(err)
			}
			if n := srv.count(); n != 2 {
				t.Fatalf("%d arrivals, want 2", n)
			}
			a, b := srv.got(0), srv.got(1)
			if b.Method != "POST" || b.URI != "/v1/pets-new" || !bytes.Equal(a.Body, b.Body) || len(a.Body) == 0 {
				t.Errorf("redirected request: %s %s %q; want POST /v1/pets-new %q", b.Method, b.URI, b.Body, a.Body)
			}
			if k := a.Header.Get("Idempotency-Key"); k == "" || b.Header.Get("Idempotency-Key") != k {
				t.Errorf("keys %q then %q, want one", k, b.Header.Get("Idempotency-Key"))
			}
			if ev := e.events(); len(ev) != 0 {
				t.Errorf("%d retries, want none", len(ev))
			}
		})
	})
	t.Run("redirect loop", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, redirect(302, "/v1/pets/7"))
			_, err := e.petstore().GetPet(t.Context(), 7)
			apiErr := mustAPIError(t, err)
			if apiErr.Attempts != 1 || !strings.Contains(err.Error(), "stopped after 10 redirects") {
				t.Errorf("err = %v, want the redirect limit after 1 attempt", err)
			}
			if n, ev := srv.count(), e.events(); n != 10 || len(ev) != 0 {
				t.Errorf("%d arrivals and %d retries, want 10 and 0", n, len(ev))
			}
		})
	})
}

// B16: secrets in the Authorization header, an API key header, the URL's user information
// (name and password) and its query values never show in the error (Error, %+v, %#v), in
// the retry events or in the log, whether the call ends on statuses or on transport errors.
func TestSecretsRedacted(t *testing.T) {
	secrets := []string{"s3cr3t-TOKEN", "k3y-S3CRET", "pa55", "c00kie-S3CRET", "cHJveHk6cGE1NQ==", "t0k3n-USER", "q-S3CRET"}
	for _, tc := range []struct {
		name  string
		fault step
	}{
		{"after exhaustion", status(503)},
		{"after transport errors", drop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble(t, func(t *testing.T, e *env) {
				e.serve(petstoreAddr, tc.fault)
				var logs bytes.Buffer
				c := e.petstoreAt("http://t0k3n-USER:pa55@"+petstoreAddr+"/v1",
					client.WithRequestEditor(credentials),
					client.WithRequestEditor(func(ctx context.Context, req *http.Request) error {
						req.Header.Set("X-Api-Key", "k3y-S3CRET")
						q := req.URL.Query()
						q.Set("api_key", "q-S3CRET")
						req.URL.RawQuery = q.Encode()
						return nil
					}),
					client.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
				_, err := c.ListPets(t.Context(), nil)
				apiErr := mustAPIError(t, err)
				if !errors.Is(err, client.ErrExhausted) || apiErr.Attempts != 3 {
					t.Errorf("err = %v, want exhaustion after 3 attempts", err)
				}
				if want := "http://" + petstoreAddr + "/v1/pets?api_key=REDACTED"; apiErr.URL != want {
					t.Errorf("URL %q, want %q: no user information, no query value", apiErr.URL, want)
				}
				texts := map[string]string{
					"Error()": err.Error(),
					"%+v":     fmt.Sprintf("%+v", err),
					"%#v":     fmt.Sprintf("%#v", apiErr),
					"log":     logs.String(),
				}
				for i, ev := range e.events() {
					texts[fmt.Sprintf("retry event %d", i+1)] = fmt.Sprintf("%+v %v", ev, ev.Err)
				}
				if len(e.events()) != 2 || !strings.Contains(logs.String(), "retrying") {
					t.Errorf("%d retry events, log %q: the check below would see too little", len(e.events()), logs.String())
				}
				for where, text := range texts {
					for _, s := range secrets {
						if strings.Contains(text, s) {
							t.Errorf("%s shows the secret %q: %s", where, s, text)
						}
					}
				}
			})
		})
	}
}
