package e2e

// What a client needs besides retries, on the wire: per-operation credentials, event
// streams that resume or report what was delivered, response metadata, servers.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/retrygen/retrygen/e2e/clientapi"
)

const (
	clientAddr = "127.0.0.1:8082"
	filesAddr  = "127.0.0.1:8083"
)

// clientapi returns a clientapi client on e's network; opts come last.
func (e *env) clientapi(baseURL string, opts ...clientapi.Option) *clientapi.Client {
	e.t.Helper()
	c := clientapi.NewClient(append([]clientapi.Option{clientapi.WithBaseURL(baseURL), clientapi.WithHTTPClient(e.hc)}, opts...)...)
	if err := c.Err(); err != nil {
		e.t.Fatal(err)
	}
	return c
}

const itemJSON = `{"id":1,"name":"one"}`

// Secrets the auth tests configure; none may appear in an error, log line or event.
const (
	bearerToken = "b34rer-S3CRET"
	headerKey   = "h3ader-S3CRET"
	queryKey    = "qu3ry-S3CRET"
	cookieKey   = "c00kie-S3CRET"
	oauthToken  = "oauth-S3CRET"
)

func allCredentials() []clientapi.Option {
	return []clientapi.Option{
		clientapi.WithBearerAuth(bearerToken),
		clientapi.WithAPIKeyHeader(headerKey),
		clientapi.WithAPIKeyQuery(queryKey),
		clientapi.WithAPIKeyCookie(cookieKey),
		clientapi.WithBasicAuth("ann", "pa55"),
		clientapi.WithOauth(func(context.Context) (string, error) { return oauthToken, nil }),
	}
}

// sent describes the credentials of one arrival.
func sent(a *arrival) string {
	u, _ := url.Parse(a.URI)
	var parts []string
	if v := a.Header.Get("Authorization"); v != "" {
		parts = append(parts, "Authorization="+v)
	}
	if v := a.Header.Get("X-API-Key"); v != "" {
		parts = append(parts, "X-API-Key="+v)
	}
	if v := u.Query().Get("api_key"); v != "" {
		parts = append(parts, "api_key="+v)
	}
	if v := a.Header.Get("Cookie"); v != "" {
		parts = append(parts, "Cookie="+v)
	}
	return strings.Join(parts, " ")
}

// Each operation sends exactly what its security requirement asks for: the document's
// by default, none for `security: []`, the first alternative whose schemes are all
// configured, all schemes of that alternative together.
func TestAuthPerOperation(t *testing.T) {
	basic := "Authorization=Basic YW5uOnBhNTU="
	cases := []struct {
		name string
		opts []clientapi.Option
		call func(context.Context, *clientapi.Client) error
		want string
	}{
		{"document security", allCredentials(), func(ctx context.Context, c *clientapi.Client) error { _, err := c.ListItems(ctx); return err },
			"Authorization=Bearer " + bearerToken},
		{"security: []", allCredentials(), func(ctx context.Context, c *clientapi.Client) error { _, err := c.GetPublic(ctx); return err },
			""},
		{"first alternative, both schemes", allCredentials(), func(ctx context.Context, c *clientapi.Client) error { _, err := c.GetAlternatives(ctx); return err },
			"X-API-Key=" + headerKey + " api_key=" + queryKey},
		{"second alternative when the first is incomplete", []clientapi.Option{clientapi.WithAPIKeyHeader(headerKey), clientapi.WithBasicAuth("ann", "pa55")},
			func(ctx context.Context, c *clientapi.Client) error { _, err := c.GetAlternatives(ctx); return err }, basic},
		{"no alternative configured", []clientapi.Option{clientapi.WithBearerAuth(bearerToken)},
			func(ctx context.Context, c *clientapi.Client) error { _, err := c.GetAlternatives(ctx); return err }, ""},
		{"cookie", allCredentials(), func(ctx context.Context, c *clientapi.Client) error { _, err := c.GetWithCookie(ctx); return err },
			"Cookie=session=" + cookieKey},
		{"oauth2 token function", allCredentials(), func(ctx context.Context, c *clientapi.Client) error { _, err := c.GetWithOAuth(ctx); return err },
			"Authorization=Bearer " + oauthToken},
		{"anonymous alternative", nil, func(ctx context.Context, c *clientapi.Client) error { _, err := c.GetWithOAuth(ctx); return err }, ""},
		{"key function", []clientapi.Option{clientapi.WithAPIKeyQueryFunc(func(context.Context) (string, error) { return "k-from-func", nil })},
			func(ctx context.Context, c *clientapi.Client) error { _, err := c.GetWithQueryKey(ctx); return err }, "api_key=k-from-func"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bubble(t, func(t *testing.T, e *env) {
				s := e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
					if r.URL.Path == "/v1/items" {
						reply(200, "["+itemJSON+"]")(w, r, a)
						return
					}
					reply(200, itemJSON)(w, r, a)
				})
				c := e.clientapi(clientapi.ServerURL, tc.opts...)
				if err := tc.call(t.Context(), c); err != nil {
					t.Fatal(err)
				}
				if got := sent(s.got(0)); got != tc.want {
					t.Errorf("sent %q, want %q", got, tc.want)
				}
			})
		})
	}
}

// A token function that fails ends the call before anything is sent, and the error
// names the scheme, not a secret.
func TestAuthFunctionError(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, reply(200, itemJSON))
		c := e.clientapi(clientapi.ServerURL, clientapi.WithBearerAuthFunc(func(context.Context) (string, error) {
			return "", errors.New("token endpoint down")
		}))
		_, err := c.ListItems(t.Context())
		if err == nil || !strings.Contains(err.Error(), "bearerAuth") || !strings.Contains(err.Error(), "token endpoint down") {
			t.Fatalf("err = %v; want it to name the scheme and the cause", err)
		}
		if n := s.count(); n != 0 {
			t.Errorf("%d requests sent", n)
		}
	})
}

// A key in the query does not follow a redirect to another host, even when the
// Location repeats it; on the same host it stays.
func TestAuthQueryKeyNotRedirected(t *testing.T) {
	t.Run("another host", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			e.serve(clientAddr, redirect(307, "http://"+otherAddr+"/elsewhere?x=1&api_key="+queryKey))
			other := e.serve(otherAddr, reply(200, itemJSON))
			if _, err := e.clientapi(clientapi.ServerURL, allCredentials()...).GetWithQueryKey(t.Context()); err != nil {
				t.Fatal(err)
			}
			if a := other.got(0); strings.Contains(a.URI, queryKey) || !strings.Contains(a.URI, "x=1") {
				t.Errorf("other host got %s", a.URI)
			}
		})
	})
	t.Run("same host", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			s := e.serve(clientAddr, redirect(307, "/v1/again?api_key="+queryKey), reply(200, itemJSON))
			if _, err := e.clientapi(clientapi.ServerURL, allCredentials()...).GetWithQueryKey(t.Context()); err != nil {
				t.Fatal(err)
			}
			if a := s.got(1); !strings.Contains(a.URI, queryKey) {
				t.Errorf("same host got %s", a.URI)
			}
		})
	})
}

// Credentials appear in no error, log record or retry event, the query key included.
func TestAuthSecretsNotShown(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, status(503), status(503), status(503), status(503), drop)
		var logs bytes.Buffer
		var events []string
		opts := append(allCredentials(),
			clientapi.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
			clientapi.WithOnRetry(func(ev clientapi.RetryEvent) { events = append(events, fmt.Sprintf("%+v", ev)) }))
		c := e.clientapi(clientapi.ServerURL, opts...)
		_, err := c.GetAlternatives(t.Context())
		if err == nil {
			t.Fatal("want an error")
		}
		var info clientapi.ResponseInfo
		_, err2 := c.GetWithQueryKey(t.Context(), clientapi.WithResponseInfo(&info))
		all := err.Error() + err2.Error() + logs.String() + strings.Join(events, "\n") + fmt.Sprintf("%+v", info)
		if len(events) == 0 || logs.Len() == 0 {
			t.Fatal("no retries observed")
		}
		for _, secret := range []string{bearerToken, headerKey, queryKey, cookieKey, oauthToken, "YW5uOnBhNTU="} {
			if strings.Contains(all, secret) {
				t.Errorf("%q shown in:\n%s", secret, all)
			}
		}
	})
}

// sse writes events to w, flushing each.
func sse(w http.ResponseWriter, events ...string) {
	for _, ev := range events {
		fmt.Fprint(w, ev)
		http.NewResponseController(w).Flush()
	}
}

// tick is the event of tick n with id n.
func tick(n int) string { return fmt.Sprintf("id: %d\ndata: {\"n\":%d}\n\n", n, n) }

// cut ends the response abruptly, as a connection reset would.
func cut() { panic(http.ErrAbortHandler) }

func streamHeader(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
}

// readTicks reads every tick of s.
func readTicks(s *clientapi.EventStream[clientapi.Tick]) []int64 {
	var got []int64
	for s.Next() {
		got = append(got, s.Current().N)
	}
	return got
}

// A GET stream cut after 3 events resumes with Last-Event-ID after the server's retry
// interval, and no event is delivered twice.
func TestStreamResumesGet(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr,
			func(w http.ResponseWriter, r *http.Request, a *arrival) {
				streamHeader(w)
				sse(w, "retry: 1500\n\n", tick(1), ": a comment\n\n", tick(2), tick(3), "id: 4\ndata: {\"n\":")
				cut()
			},
			func(w http.ResponseWriter, r *http.Request, a *arrival) {
				streamHeader(w)
				sse(w, tick(4), tick(5))
			})
		c := e.clientapi(clientapi.ServerURL)
		stream, err := c.WatchTicks(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		got := readTicks(stream)
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != "[1 2 3 4 5]" {
			t.Errorf("events %v, want [1 2 3 4 5]", got)
		}
		if id := s.got(1).Header.Get("Last-Event-ID"); id != "3" {
			t.Errorf("Last-Event-ID %q, want 3", id)
		}
		if id := s.got(0).Header.Get("Last-Event-ID"); id != "" {
			t.Errorf("first request sent Last-Event-ID %q", id)
		}
		if gap := s.gaps()[0]; gap < 1500*time.Millisecond {
			t.Errorf("reconnected after %v; the server asked for 1.5s", gap)
		}
		if a := s.got(1); a.Header.Get("Accept") != "text/event-stream" {
			t.Errorf("Accept %q", a.Header.Get("Accept"))
		}
	})
}

// A POST stream that is not retry-safe is never sent again: its error says how many
// events were delivered.
func TestStreamPostNotResent(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			streamHeader(w)
			sse(w, "data: {\"text\":\"a\"}\n\n", "data: {\"text\":\"b\"}\n\n")
			cut()
		})
		stream, err := e.clientapi(clientapi.ServerURL, allCredentials()...).ChatStream(t.Context(), clientapi.ChatRequest{Prompt: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		n := 0
		for stream.Next() {
			n++
		}
		var se *clientapi.StreamError
		if !errors.As(stream.Err(), &se) || se.Delivered != 2 || n != 2 {
			t.Fatalf("err = %v after %d events; want a StreamError with 2 delivered", stream.Err(), n)
		}
		if !strings.Contains(se.Error(), "2 events delivered") {
			t.Errorf("error %q does not say how many events were delivered", se.Error())
		}
		if c := s.count(); c != 1 {
			t.Errorf("the POST was sent %d times", c)
		}
		if a := s.got(0); a.Header.Get("Authorization") != "Bearer "+bearerToken || string(a.Body) != `{"prompt":"hi","stream":true}` {
			t.Errorf("sent %q with body %s", a.Header.Get("Authorization"), a.Body)
		}
	})
}

// The declared sentinel ends the stream: nothing after it is delivered, and the stream
// ends without error. A malformed event ends it with an error that numbers the event.
func TestStreamSentinelAndMalformed(t *testing.T) {
	t.Run("sentinel", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
				streamHeader(w)
				sse(w, "data: {\"text\":\"a\"}\r\n\r\n", "data: [DONE]\n\n", "data: [END]\n\n", "data: {\"text\":\"late\"}\n\n")
			})
			stream, err := e.clientapi(clientapi.ServerURL).ChatStream(t.Context(), clientapi.ChatRequest{Prompt: "hi"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for stream.Next() {
				got = append(got, *stream.Current().Text)
			}
			// "[DONE]" is not this operation's sentinel: it is data, and not JSON.
			if stream.Err() == nil || !strings.Contains(stream.Err().Error(), "event 2") {
				t.Fatalf("err = %v, want a decode error at event 2", stream.Err())
			}
			if fmt.Sprint(got) != "[a]" {
				t.Errorf("got %v", got)
			}
		})
	})
	t.Run("own sentinel", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
				streamHeader(w)
				sse(w, "data: {\"text\":\"a\"}\n\n", "data: [END]\n\n", "data: {\"text\":\"late\"}\n\n")
			})
			stream, err := e.clientapi(clientapi.ServerURL).ChatStream(t.Context(), clientapi.ChatRequest{Prompt: "hi"})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for stream.Next() {
				n++
			}
			if stream.Err() != nil || n != 1 || stream.Next() {
				t.Fatalf("%d events, err %v; want 1 and none", n, stream.Err())
			}
		})
	})
}

// A failure before the first event is retried like any call, and a status the spec
// declares comes back as its typed error.
func TestStreamOpenRetriedAndTyped(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, status(503), func(w http.ResponseWriter, r *http.Request, a *arrival) {
			streamHeader(w)
			sse(w, tick(1))
		})
		var info clientapi.ResponseInfo
		stream, err := e.clientapi(clientapi.ServerURL).WatchTicks(t.Context(), clientapi.WithResponseInfo(&info))
		if err != nil {
			t.Fatal(err)
		}
		if got := readTicks(stream); len(got) != 1 || stream.Err() != nil {
			t.Fatalf("got %v, err %v", got, stream.Err())
		}
		if s.count() != 2 || info.Attempts != 2 || info.StatusCode != 200 {
			t.Errorf("%d arrivals, info %+v", s.count(), info)
		}
	})
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, reply(400, `{"message":"no"}`))
		_, err := e.clientapi(clientapi.ServerURL).ChatStream(t.Context(), clientapi.ChatRequest{})
		var p *clientapi.Problem
		if !errors.As(err, &p) || p.Message == nil || *p.Message != "no" {
			t.Fatalf("err = %v; want the typed Problem", err)
		}
	})
}

// Closing a stream, or cancelling its context, mid-way ends it at once; goleak (in
// TestMain) and the bubble check that no goroutine is left.
func TestStreamCloseAndCancel(t *testing.T) {
	endless := func(w http.ResponseWriter, r *http.Request, a *arrival) {
		streamHeader(w)
		for i := 1; ; i++ {
			if _, err := fmt.Fprint(w, tick(i)); err != nil {
				return
			}
			http.NewResponseController(w).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
			}
		}
	}
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, endless)
		stream, err := e.clientapi(clientapi.ServerURL).WatchTicks(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3 && stream.Next(); i++ {
		}
		if err := stream.Close(); err != nil {
			t.Fatal(err)
		}
		if stream.Next() {
			t.Error("Next after Close")
		}
	})
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, endless)
		ctx, cancel := context.WithCancel(t.Context())
		stream, err := e.clientapi(clientapi.ServerURL).WatchTicks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		stream.Next()
		cancel()
		for stream.Next() {
		}
		if !errors.Is(stream.Err(), context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", stream.Err())
		}
	})
}

// WithResponseInfo reports, for a success too, the status, headers, attempts and the
// Retry-After the server sent.
func TestResponseInfo(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, status(503, "Retry-After", "2"), func(w http.ResponseWriter, r *http.Request, a *arrival) {
			w.Header().Set("X-Rate-Limit-Remaining", "5")
			reply(200, "["+itemJSON+"]")(w, r, a)
		})
		var info clientapi.ResponseInfo
		items, err := e.clientapi(clientapi.ServerURL).ListItems(t.Context(), clientapi.WithResponseInfo(&info))
		if err != nil || len(items) != 1 {
			t.Fatalf("%v, %v", items, err)
		}
		if info.StatusCode != 200 || info.Attempts != 2 || info.RetryAfter != 2*time.Second || info.Header.Get("X-Rate-Limit-Remaining") != "5" {
			t.Errorf("info %+v", info)
		}
		var h clientapi.ListItemsHeaders
		if err := h.From(&info); err != nil || h.XRateLimitRemaining == nil || *h.XRateLimitRemaining != 5 {
			t.Errorf("typed headers %+v, %v", h, err)
		}
	})
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, status(404))
		var info clientapi.ResponseInfo
		_, err := e.clientapi(clientapi.ServerURL).ListItems(t.Context(), clientapi.WithResponseInfo(&info))
		if err == nil || info.StatusCode != 404 || info.Attempts != 1 {
			t.Errorf("err %v, info %+v", err, info)
		}
	})
}

// Servers: the spec's first server is the default; an operation with servers of its
// own goes there unless the caller chose a base URL the spec does not list; server
// variables are checked against their enum.
func TestServers(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		main := e.serve(clientAddr, reply(200, "["+itemJSON+"]"))
		files := e.serve(filesAddr, reply(200, itemJSON))
		if _, err := e.clientapi("").GetFile(t.Context(), "a.txt"); err != nil {
			t.Fatal(err)
		}
		if a := files.got(0); a.URI != "/files/a.txt" {
			t.Errorf("file server got %s", a.URI)
		}
		if _, err := e.clientapi("").ListItems(t.Context()); err != nil {
			t.Fatal(err)
		}
		if a := main.got(0); a.URI != "/v1/items" {
			t.Errorf("default server got %s", a.URI)
		}
		other := e.serve(otherAddr, reply(200, itemJSON))
		if _, err := e.clientapi("http://"+otherAddr+"/base").GetFile(t.Context(), "b.txt"); err != nil {
			t.Fatal(err)
		}
		if a := other.got(0); a.URI != "/base/files/b.txt" {
			t.Errorf("overriding base URL got %s", a.URI)
		}
	})
	if u, err := clientapi.ServerURL2For(""); err != nil || u != "http://127.0.0.1:8082/v1" {
		t.Errorf("default: %q, %v", u, err)
	}
	if u, err := clientapi.ServerURL2For("localhost"); err != nil || u != "http://localhost:8082/v1" {
		t.Errorf("localhost: %q, %v", u, err)
	}
	if _, err := clientapi.ServerURL2For("evil.example"); err == nil || !strings.Contains(err.Error(), "host") {
		t.Errorf("a value outside the enum: %v", err)
	}
}

// One method per request content type: JSON keeps the plain name, the others are named
// after theirs, and each sends its own Content-Type, body and Accept.
func TestMediaTypeMethods(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, reply(200, `{"text":"ok"}`))
		c := e.clientapi(clientapi.ServerURL)
		ctx := t.Context()
		if _, err := c.Chat(ctx, clientapi.ChatRequest{Prompt: "hi"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ChatForm(ctx, clientapi.ChatRequest{Prompt: "hi there"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ChatText(ctx, strings.NewReader("hi")); err != nil {
			t.Fatal(err)
		}
		want := []struct{ ct, body string }{
			{"application/json", `{"prompt":"hi"}`},
			{"application/x-www-form-urlencoded", `prompt=hi+there`},
			{"text/plain", `hi`},
		}
		for i, w := range want {
			a := s.got(i)
			if a.Header.Get("Content-Type") != w.ct || string(a.Body) != w.body || a.Header.Get("Accept") != "application/json" {
				t.Errorf("call %d sent %s %q, Accept %q; want %s %q", i+1, a.Header.Get("Content-Type"), a.Body, a.Header.Get("Accept"), w.ct, w.body)
			}
		}
	})
}

// Credential headers the options add stay on their host: the engine's redirect guard
// strips them on a redirect to another host.
func TestAuthHeadersNotRedirected(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, redirect(307, "http://"+otherAddr+"/elsewhere"))
		other := e.serve(otherAddr, reply(200, itemJSON))
		c := e.clientapi(clientapi.ServerURL, allCredentials()...)
		if _, err := c.GetWithOAuth(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetAlternatives(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetWithCookie(t.Context()); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if got := sent(other.got(i)); got != "" {
				t.Errorf("redirect %d carried %s", i+1, got)
			}
		}
	})
}

// A stream is a call like any other for the circuit breaker: while it is open, the
// stream does not open and nothing is sent.
func TestStreamCircuitBreaker(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, status(500))
		c := e.clientapi(clientapi.ServerURL, clientapi.WithCircuitBreaker(1, time.Minute))
		if _, err := c.WatchTicks(t.Context(), clientapi.WithoutRetry()); err == nil {
			t.Fatal("want the 500")
		}
		_, err := c.WatchTicks(t.Context())
		if !errors.Is(err, clientapi.ErrCircuitOpen) {
			t.Fatalf("err = %v, want ErrCircuitOpen", err)
		}
		if n := s.count(); n != 1 {
			t.Errorf("%d requests sent", n)
		}
	})
}

// A method that hands the body over unread asks for every content type its responses
// declare.
func TestRawResponseAccept(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			w.Header().Set("Content-Type", "text/csv")
			fmt.Fprint(w, "id,name\n1,one\n")
		})
		body, err := e.clientapi(clientapi.ServerURL).ExportItems(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer body.Close()
		data, _ := io.ReadAll(body)
		if string(data) != "id,name\n1,one\n" {
			t.Errorf("body %q", data)
		}
		if got := s.got(0).Header.Get("Accept"); got != "application/pdf, text/csv" {
			t.Errorf("Accept %q", got)
		}
	})
}

// A discriminated variant goes out with the discriminator value the spec allows it, the
// only value of its single-value enum, whatever the caller left in the field; and that
// value selects the variant on the way back.
func TestDiscriminatorWritten(t *testing.T) {
	for _, c := range []struct {
		msg  clientapi.Message
		want string
	}{
		{clientapi.Message{UserMessage: &clientapi.UserMessage{Content: "hi"}}, `{"content":"hi","role":"user"}`},
		{clientapi.Message{UserMessage: &clientapi.UserMessage{Role: "system", Content: "hi"}}, `{"content":"hi","role":"user"}`},
		{clientapi.Message{SystemMessage: &clientapi.SystemMessage{Content: "be brief"}}, `{"content":"be brief","role":"system"}`},
	} {
		got, err := json.Marshal(c.msg)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("Marshal = %s, want %s", got, c.want)
		}
		var back clientapi.Message
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if (back.UserMessage != nil) != (c.msg.UserMessage != nil) || (back.SystemMessage != nil) != (c.msg.SystemMessage != nil) {
			t.Errorf("Unmarshal(%s) = %+v, want the variant sent", got, back)
		}
	}
}

// An operation whose only declared answer is a redirect returns the redirect's Location,
// resolved, without following it, so that neither the result nor a credential goes
// missing; another answer is an error, the declared 404 typed.
func TestRedirectOnlyOperation(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, status(302, "Location", "/files/1.tar.gz?sig=abc"))
		loc, err := e.clientapi(clientapi.ServerURL, clientapi.WithBearerAuth(bearerToken)).GetItemArchive(t.Context(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := "http://" + clientAddr + "/files/1.tar.gz?sig=abc"; loc.String() != want {
			t.Errorf("Location %s, want %s", loc, want)
		}
		if s.count() != 1 {
			t.Errorf("%d requests: the redirect was followed", s.count())
		}
	})
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, reply(404, `{"message":"no such item"}`))
		_, err := e.clientapi(clientapi.ServerURL, clientapi.WithBearerAuth(bearerToken)).GetItemArchive(t.Context(), 1)
		var p *clientapi.Problem
		if !errors.As(err, &p) || p.Message == nil || *p.Message != "no such item" {
			t.Errorf("err %v, want the typed 404", err)
		}
	})
	bubble(t, func(t *testing.T, e *env) {
		e.serve(clientAddr, reply(200, "the archive itself"))
		loc, err := e.clientapi(clientapi.ServerURL, clientapi.WithBearerAuth(bearerToken)).GetItemArchive(t.Context(), 1)
		if loc != nil || err == nil || !errors.Is(err, clientapi.ErrUndeclaredStatus) {
			t.Errorf("%v, %v: want the undeclared 200 as an error", loc, err)
		}
	})
}

// A union of primitives and objects is built from a plain value, New<Union>(v), sent as
// that value, and decoded into the variant the JSON's kind gives.
func TestUnionOfPrimitives(t *testing.T) {
	req := clientapi.IssueRequest{
		Title: clientapi.NewIssueRequestTitle("bug"),
		Labels: []clientapi.IssueRequestLabel{
			clientapi.NewIssueRequestLabel("urgent"),
			clientapi.NewIssueRequestLabel(clientapi.IssueRequestLabelObject{Name: clientapi.Ptr("ui")}),
		},
	}
	got, err := json.Marshal(req)
	if want := `{"labels":["urgent",{"name":"ui"}],"title":"bug"}`; err != nil || string(got) != want {
		t.Fatalf("Marshal = %s, %v; want %s", got, err, want)
	}
	var back clientapi.IssueRequest
	if err := json.Unmarshal([]byte(`{"title":7,"labels":[{"name":"ui","color":"red"},"x"]}`), &back); err != nil {
		t.Fatal(err)
	}
	if back.Title.Int64 == nil || *back.Title.Int64 != 7 || back.Title.String != nil {
		t.Errorf("title %+v, want the integer 7", back.Title)
	}
	if l := back.Labels; len(l) != 2 || l[0].Object == nil || *l[0].Object.Color != "red" || l[1].String == nil || *l[1].String != "x" {
		t.Errorf("labels %+v", l)
	}
	if _, err := json.Marshal(clientapi.IssueRequest{}); !errors.Is(err, clientapi.ErrNoVariant) {
		t.Errorf("a required union left unset: %v, want ErrNoVariant", err)
	}
}

// The stream method asks for the stream: it sends the body's "stream" property true when
// the caller left it out; the JSON method leaves it out even when the caller set it, so
// that its answer is JSON.
func TestStreamFlag(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"text\":\"hi\"}\n\ndata: [END]\n\n")
		}, reply(200, `{"text":"ok"}`))
		c := e.clientapi(clientapi.ServerURL)
		stream, err := c.ChatStream(t.Context(), clientapi.ChatRequest{Prompt: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		for stream.Next() {
		}
		if err := stream.Err(); err != nil || stream.Delivered() != 1 {
			t.Fatalf("%d events, %v", stream.Delivered(), err)
		}
		req := clientapi.ChatRequest{Prompt: "hi", Stream: clientapi.Ptr(true)}
		if _, err := c.Chat(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		if got := string(s.got(0).Body); got != `{"prompt":"hi","stream":true}` {
			t.Errorf("ChatStream sent %s", got)
		}
		if got := string(s.got(1).Body); got != `{"prompt":"hi"}` {
			t.Errorf("Chat sent %s", got)
		}
		if !*req.Stream {
			t.Error("Chat changed the caller's body")
		}
	})
}
