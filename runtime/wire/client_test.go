package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/retrytest"
)

// recorder answers each attempt with the next status of statuses (then 200) and keeps
// what each attempt sent.
type recorder struct {
	mu       sync.Mutex
	statuses []int
	reqs     []*http.Request
	bodies   []string
}

func (rt *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.reqs = append(rt.reqs, req)
	rt.bodies = append(rt.bodies, string(body))
	status := http.StatusOK
	if len(rt.statuses) > 0 {
		status, rt.statuses = rt.statuses[0], rt.statuses[1:]
	}
	return &http.Response{
		StatusCode: status,
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(strings.NewReader(`{"ok":true}`)),
		Request:    req,
	}, nil
}

var retrying = runtime.Policy{MaxAttempts: 3, StatusCodes: []runtime.StatusCode{503}, Idempotent: true}

func newTestClient(t *testing.T, rt *recorder, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithHTTPClient(&http.Client{Transport: rt}), WithoutRetryBudget()}, opts...)
	c, err := NewClient("https://api.example.com/v1/", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewClientRejects(t *testing.T) {
	for _, u := range []string{"", "api.example.com", "ftp://x/", "https://", "https://x/?a=1", "https://x/#f", "https://u:secret@x/?k=v", "%zz"} {
		_, err := NewClient(u)
		if err == nil {
			t.Errorf("NewClient(%q) accepted", u)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("NewClient error shows the password: %v", err)
		}
	}
}

func TestDoBuildsTheRequest(t *testing.T) {
	rt := &recorder{}
	var edits int
	c := newTestClient(t, rt, WithUserAgent("ua/1"), WithRequestEditor(func(_ context.Context, req *http.Request) error {
		edits++
		req.Header.Set("Authorization", "Bearer t")
		return nil
	}))
	r := NewRequest("POST")
	r.Path("/pets/")
	r.PathParam("petId", PathSimple, "a/b")
	r.Path("/feed")
	r.QueryParam("q", QueryForm, "x y")
	r.HeaderParam("X-Req", HeaderSimple, "1")
	r.CookieParam("s", CookieForm, "c1")
	r.CookieParam("t", CookieForm, "c2")
	r.JSONBody("application/json", map[string]int{"n": 1})
	resp, err := c.Do(context.Background(), r, &retrying, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = Discard(resp)
	req := rt.reqs[0]
	if got := req.URL.String(); got != "https://api.example.com/v1/pets/a%2Fb/feed?q=x+y" {
		t.Errorf("URL %s", got)
	}
	want := map[string]string{
		"Content-Type": "application/json", "Accept": "application/json", "X-Req": "1",
		"Cookie": "s=c1; t=c2", "User-Agent": "ua/1", "Authorization": "Bearer t",
	}
	for k, v := range want {
		if got := req.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if rt.bodies[0] != `{"n":1}` || edits != 1 {
		t.Errorf("body %q, %d edits", rt.bodies[0], edits)
	}
}

func TestDoFailsBeforeSending(t *testing.T) {
	rt := &recorder{}
	c := newTestClient(t, rt)
	r := NewRequest("GET")
	r.Path("/x")
	r.HeaderParam("X-A", HeaderSimple, "a\r\nInjected: 1")
	if _, err := c.Do(context.Background(), r, &retrying, "", nil); err == nil || !strings.Contains(err.Error(), "GET /x: header parameter") {
		t.Errorf("err = %v", err)
	}
	editErr := errors.New("no token")
	c = newTestClient(t, rt, WithRequestEditor(func(context.Context, *http.Request) error { return editErr }))
	if _, err := c.Do(context.Background(), NewRequest("GET"), &retrying, "", nil); !errors.Is(err, editErr) {
		t.Errorf("editor error: %v", err)
	}
	if len(rt.reqs) != 0 {
		t.Errorf("%d requests sent", len(rt.reqs))
	}
}

// A declared idempotency key is sent on every attempt; a key passed as an option wins.
func TestDoIdempotencyKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := runtime.Policy{MaxAttempts: 2, StatusCodes: []runtime.StatusCode{503}, Idempotent: true, IdempotencyKey: "Idempotency-Key"}
		for _, tt := range []struct {
			declared string
			opts     []runtime.CallOption
			want     string
		}{
			{"k1", nil, "k1"},
			{"k1", []runtime.CallOption{runtime.WithIdempotencyKey("k2")}, "k2"},
			{"", nil, ""},
		} {
			rt := &recorder{statuses: []int{503}}
			c := newTestClient(t, rt)
			r := NewRequest("POST")
			r.IdempotencyKey(tt.declared)
			resp, err := c.Do(context.Background(), r, &p, "", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			_ = Discard(resp)
			if len(rt.reqs) != 2 {
				t.Fatalf("%d attempts", len(rt.reqs))
			}
			k0, k1 := rt.reqs[0].Header.Get("Idempotency-Key"), rt.reqs[1].Header.Get("Idempotency-Key")
			if k0 != k1 || k0 == "" || tt.want != "" && k0 != tt.want {
				t.Errorf("declared %q: keys %q and %q, want %q", tt.declared, k0, k1, tt.want)
			}
		}
	})
}

// seekOnly can seek but not ReadAt, so a retry must seek back.
type seekOnly struct{ r *bytes.Reader }

func (s *seekOnly) Read(p []byte) (int, error)                { return s.r.Read(p) }
func (s *seekOnly) Seek(off int64, whence int) (int64, error) { return s.r.Seek(off, whence) }

func TestReplayable(t *testing.T) {
	body := &seekOnly{bytes.NewReader([]byte("0123456789"))}
	_, _ = body.Seek(4, io.SeekStart)
	req, err := http.NewRequest("PUT", "http://x", body)
	if err != nil {
		t.Fatal(err)
	}
	if err := replayable(req, body, NewRequest("PUT")); err != nil {
		t.Fatal(err)
	}
	if req.ContentLength != 6 || req.GetBody == nil {
		t.Fatalf("ContentLength %d, GetBody set %v", req.ContentLength, req.GetBody != nil)
	}
	for range 2 {
		b, _ := io.ReadAll(req.Body)
		if string(b) != "456789" {
			t.Fatalf("attempt body = %q", b)
		}
		req.Body, _ = req.GetBody()
	}
	pipe := io.MultiReader(strings.NewReader("x"))
	req, _ = http.NewRequest("PUT", "http://x", pipe)
	if err := replayable(req, pipe, NewRequest("PUT")); err != nil || req.GetBody != nil {
		t.Errorf("a plain reader must stay single-use: %v", err)
	}
}

// Every body kind is sent byte-identical on each attempt; a reader that cannot seek is
// sent once.
func TestDoReplaysBodies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp := NewMultipart()
		mp.Field("name", "rex")
		mp.File("photo", "", &File{Body: strings.NewReader("png")})
		readerAt := bytes.NewReader([]byte("xxraw"))
		_, _ = readerAt.Seek(2, io.SeekStart)
		bodies := map[string]func(r *Request){
			"json":      func(r *Request) { r.JSONBody("application/json", []int{1}) },
			"form":      func(r *Request) { r.FormBody("application/x-www-form-urlencoded", map[string]string{"a": "b"}) },
			"multipart": func(r *Request) { r.MultipartBody(mp) },
			"readerAt":  func(r *Request) { r.RawBody("application/octet-stream", readerAt) },
			"seeker":    func(r *Request) { r.RawBody("text/plain", &seekOnly{bytes.NewReader([]byte("seek"))}) },
			"empty":     func(r *Request) { r.RawBody("text/plain", strings.NewReader("")) },
			"small":     func(r *Request) { r.RawBody("text/plain", io.MultiReader(strings.NewReader("small"))) },
			"reopened": func(r *Request) {
				r.RawBody("text/plain", Reopen(func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("again")), nil }))
			},
		}
		for name, set := range bodies {
			rt := &recorder{statuses: []int{503, 503}}
			c := newTestClient(t, rt)
			r := NewRequest("PUT")
			set(r)
			resp, err := c.Do(context.Background(), r, &retrying, "", nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			_ = Discard(resp)
			if len(rt.bodies) != 3 || rt.bodies[0] != rt.bodies[1] || rt.bodies[1] != rt.bodies[2] {
				t.Errorf("%s: attempts sent %q", name, rt.bodies)
			}
		}
		rt := &recorder{statuses: []int{503}}
		c := newTestClient(t, rt)
		r := NewRequest("PUT")
		r.RawBody("text/plain", io.MultiReader(strings.NewReader(strings.Repeat("x", BufferedBodyLimit+1))))
		_, err := c.Do(context.Background(), r, &retrying, "", nil)
		if !errors.Is(err, runtime.ErrBodyNotReplayable) || len(rt.bodies) != 1 || len(rt.bodies[0]) != BufferedBodyLimit+1 {
			t.Errorf("single-use reader: %d attempts, err %v", len(rt.bodies), err)
		}
	})
}

// badSeeker reports its offset but cannot seek to its end.
type badSeeker struct{ io.Reader }

func (badSeeker) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekCurrent {
		return 0, nil
	}
	return 0, errors.New("no end")
}

// A body that fails before anything is sent names the path, never the query values.
func TestDoBodyErrorHidesQuery(t *testing.T) {
	rt := &recorder{}
	c := newTestClient(t, rt)
	r := NewRequest("PUT")
	r.Path("/files")
	r.QueryParam("api_key", QueryForm, "s3cret")
	r.RawBody("text/plain", badSeeker{strings.NewReader("x")})
	_, err := c.Do(context.Background(), r, &retrying, "", nil)
	if err == nil || !strings.Contains(err.Error(), "PUT /files: request body: no end") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("err = %v", err)
	}
	if len(rt.reqs) != 0 {
		t.Errorf("%d requests sent", len(rt.reqs))
	}
}

// NewClient's errors show a base URL redacted: a query, a user name or a password may
// hold a credential.
func TestNewClientErrorsHideCredentials(t *testing.T) {
	for _, base := range []string{
		"http://h/v1?token=S3CRET",
		"http://u:S3CRET@h/%zz",
		"http://S3CRET@h/v1#frag",
		"ftp://S3CRET@h/v1",
	} {
		_, err := NewClient(base)
		if err == nil || strings.Contains(err.Error(), "S3CRET") {
			t.Errorf("NewClient(%q): %v", base, err)
		}
	}
}

// cutOnce answers every attempt with 200; the first body breaks off midway.
type cutOnce struct{ attempts int }

func (rt *cutOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	rt.attempts++
	body := io.Reader(strings.NewReader(`{"ok":true}`))
	if rt.attempts == 1 {
		body = io.MultiReader(strings.NewReader(`{"ok"`), iotest.ErrReader(io.ErrUnexpectedEOF))
	}
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(body), Request: req}, nil
}

// Fetch reads the body within the attempt, so a body cut short is retried; Call hands
// the first body over as it is.
func TestFetchReadsTheBodyWithinTheAttempt(t *testing.T) {
	retrying := runtime.Policy{MaxAttempts: 3, ConnectionErrors: true, Idempotent: true}
	synctest.Test(t, func(t *testing.T) {
		for _, tt := range []struct {
			name     string
			call     func(*Client, *Request) (*http.Response, error)
			attempts int
			body     string
		}{
			{"Fetch", func(c *Client, r *Request) (*http.Response, error) {
				return c.Fetch(context.Background(), r, &retrying, "", nil)
			}, 2, `{"ok":true}`},
			{"Call", func(c *Client, r *Request) (*http.Response, error) {
				return c.Call(context.Background(), r, &retrying, "", nil)
			}, 1, `{"ok"`},
		} {
			rt := &cutOnce{}
			c, err := NewClient("https://api.example.com/", WithHTTPClient(&http.Client{Transport: rt}), WithoutRetryBudget())
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tt.call(c, NewRequest("GET"))
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if rt.attempts != tt.attempts || string(body) != tt.body {
				t.Errorf("%s: %d attempts, body %q; want %d, %q", tt.name, rt.attempts, body, tt.attempts, tt.body)
			}
		}
		if retrying.ReadBody {
			t.Error("Fetch changed the policy it was given")
		}
	})
}

// WithoutServerRetrySignals leaves a POST without a key to its policy alone, the
// server's true and false ignored, whether WithPolicyOverride comes before or after it,
// and the override still applies.
func TestWithoutServerRetrySignals(t *testing.T) {
	notRetrySafe := runtime.Policy{MaxAttempts: 3}
	retrySafe := WithPolicyOverride(func(p *runtime.Policy) { p.Idempotent, p.MaxAttempts = true, 2 })
	for _, tc := range []struct {
		name     string
		says     string // the server's x-should-retry
		opts     []Option
		attempts int
		cause    error
	}{
		{"true honoured", "true", nil, 3, runtime.ErrExhausted},
		{"true ignored", "true", []Option{WithoutServerRetrySignals()}, 1, runtime.ErrNotRetrySafe},
		{"false honoured", "false", []Option{retrySafe}, 1, runtime.ErrServerSaidNoRetry},
		{"false ignored, option first", "false", []Option{WithoutServerRetrySignals(), retrySafe}, 2, runtime.ErrExhausted},
		{"false ignored, override first", "false", []Option{retrySafe, WithoutServerRetrySignals()}, 2, runtime.ErrExhausted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := 0
				rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
					n++
					return &http.Response{StatusCode: 503, Header: http.Header{"X-Should-Retry": {tc.says}},
						Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
				})
				opts := append([]Option{WithHTTPClient(&http.Client{Transport: rt}), WithoutRetryBudget()}, tc.opts...)
				c, err := NewClient("https://api.example.com/v1/", opts...)
				if err != nil {
					t.Fatal(err)
				}
				_, err = c.Call(context.Background(), NewRequest("POST"), &notRetrySafe, "", nil)
				if n != tc.attempts || !errors.Is(err, tc.cause) {
					t.Fatalf("%d attempts, err %v; want %d and %v", n, err, tc.attempts, tc.cause)
				}
			})
		})
	}
}

// brokenFile is a 10-byte file whose reads fail after its first 4 bytes.
type brokenFile struct{ off int64 }

func (f *brokenFile) Read(p []byte) (int, error) {
	if f.off >= 4 {
		return 0, errors.New("input/output error")
	}
	n := copy(p, "abcd"[f.off:])
	f.off += int64(n)
	return n, nil
}

func (f *brokenFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += f.off
	case io.SeekEnd:
		off += 10
	}
	f.off = off
	return off, nil
}

// A body that can seek but fails midway is not sent again, short, on each retry: the call
// ends after one attempt with runtime.ErrRequestBody, and the breaker does not count it.
func TestDoBodyThatFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		c, err := NewClient("http://api.test", WithHTTPClient(tr.Client()), WithoutRetryBudget(), WithCircuitBreaker(1, time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		r := NewRequest("PUT")
		r.RawBody("application/octet-stream", &brokenFile{})
		p := runtime.Policy{MaxAttempts: 3, Idempotent: true, ConnectionErrors: true}
		_, err = c.Call(context.Background(), r, &p, "", nil)
		e := asRuntimeError(err)
		if e == nil || e.Attempts != 1 || !errors.Is(err, runtime.ErrRequestBody) || !strings.Contains(err.Error(), "input/output error") {
			t.Fatalf("err = %v; want ErrRequestBody, with the reader's error, after 1 attempt", err)
		}
		resp, err := c.Call(context.Background(), NewRequest("GET"), &retrying, "", nil)
		if err != nil {
			t.Fatalf("the next call: %v", err)
		}
		Discard(resp)
	})
}
