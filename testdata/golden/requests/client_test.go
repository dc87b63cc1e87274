package requests

// These tests run against the generated client of this case (want.go, copied next to them
// by gen's TestGoldenCompiles). Requests go through a transport that writes them in HTTP/1.1
// wire form and reads them back for an http.Handler, so what the handler sees is what a
// server would; synctest makes the backoff waits instant.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

type wireTransport struct {
	mu       sync.Mutex
	h        http.HandlerFunc
	arrivals int
}

func (w *wireTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var buf bytes.Buffer
	if err := req.Write(&buf); err != nil {
		return nil, err
	}
	sreq, err := http.ReadRequest(bufio.NewReader(&buf))
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.arrivals++
	w.mu.Unlock()
	rec := httptest.NewRecorder()
	w.h(rec, sreq)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

func newClient(t *testing.T, h http.HandlerFunc) (*Client, *wireTransport) {
	t.Helper()
	tr := &wireTransport{h: h}
	c := NewClient(WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: tr}), WithoutRetryBudget())
	return c, tr
}

func ok(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, "{}")
}

// B13: a path parameter stays one segment whatever it holds.
func TestPathParametersAreEscaped(t *testing.T) {
	cases := map[string]string{
		"../admin":  "/files/..%2Fadmin",
		"a/b?c#d":   "/files/a%2Fb%3Fc%23d",
		"%2e%2e":    "/files/%252e%252e",
		".":         "/files/%2E",
		"..":        "/files/%2E%2E",
		"plain":     "/files/plain",
		"sp ace+":   "/files/sp%20ace+",
		"ünï\"code": "/files/%C3%BCn%C3%AF%22code",
	}
	for value, want := range cases {
		var got string
		c, _ := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			got = r.URL.EscapedPath()
			ok(w, r)
		})
		if _, err := c.GetFile(context.Background(), value); err != nil {
			t.Fatalf("%q: %v", value, err)
		}
		if got != want {
			t.Errorf("path for %q = %q, want %q", value, got, want)
		}
	}
	c, tr := newClient(t, ok)
	if _, err := c.GetFile(context.Background(), ""); err == nil || tr.arrivals != 0 {
		t.Errorf("empty path parameter: err = %v, arrivals = %d; want an error before sending", err, tr.arrivals)
	}
}

// B13 and the query styles.
func TestQueryStyles(t *testing.T) {
	var got *http.Request
	c, _ := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		got = r
		ok(w, r)
	})
	status, min := "open", int64(3)
	since := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	a := int64(1)
	_, err := c.Search(context.Background(), "x&admin=true#f", &SearchParams{
		IDs:    []int64{1, 2},
		Words:  []string{"a", "b"},
		Pipes:  []string{"c", "d"},
		Filter: &SearchFilter{Status: &status, Min: &min},
		Since:  &since,
		JSON:   &SearchJSON{A: &a},
	})
	if err != nil {
		t.Fatal(err)
	}
	q := got.URL.Query()
	want := map[string]string{
		"q":              "x&admin=true#f",
		"ids":            "1,2",
		"words":          "a b",
		"pipes":          "c|d",
		"filter[status]": "open",
		"filter[min]":    "3",
		"since":          "2024-05-06T07:08:09Z",
		"json":           `{"a":1}`,
	}
	for k, v := range want {
		if q.Get(k) != v || len(q[k]) != 1 {
			t.Errorf("query %s = %q, want [%q]", k, q[k], v)
		}
	}
	if len(q) != len(want) {
		t.Errorf("query = %v, want only %v", q, want)
	}
	if _, ok := q["admin"]; ok {
		t.Error("the q value leaked an admin parameter")
	}
}

// B12: a header value with CR or LF fails the call before anything is sent.
func TestHeaderInjectionRejectedBeforeSending(t *testing.T) {
	for _, v := range []string{"a\r\nX-Evil: 1", "a\nb", "a\rb", "nul\x00"} {
		c, tr := newClient(t, ok)
		_, err := c.Search(context.Background(), "q", &SearchParams{XTrace: []string{v}})
		if err == nil || tr.arrivals != 0 {
			t.Errorf("header %q: err = %v, arrivals = %d; want an error and no request", v, err, tr.arrivals)
		}
	}
}

func TestHeaderAndCookieParameters(t *testing.T) {
	var got *http.Request
	c, _ := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		got = r
		ok(w, r)
	})
	session := "s1"
	if _, err := c.Search(context.Background(), "q", &SearchParams{XTrace: []string{"a", "b"}, Session: &session}); err != nil {
		t.Fatal(err)
	}
	if h := got.Header.Get("X-Trace"); h != "a,b" {
		t.Errorf("X-Trace = %q, want a,b", h)
	}
	if ck, err := got.Cookie("session"); err != nil || ck.Value != "s1" {
		t.Errorf("cookie session = %v, %v", ck, err)
	}
}

func TestPathStylesAndFixedQuery(t *testing.T) {
	var paths []string
	var bodies []string
	var types []string
	c, _ := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.RequestURI())
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		types = append(types, r.Header.Get("Content-Type"))
		ok(w, r)
	})
	ctx := context.Background()
	if _, err := c.Styled(ctx, []string{"a", "b"}, "m/n"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Beta(ctx, nil); err != nil {
		t.Fatal(err)
	}
	note := "hi"
	if _, err := c.Beta(ctx, &BetaRequest{Note: &note}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ArchiveBeta(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"/styled/.a,b/;matrix=m%2Fn", "/beta?mode=compact", "/beta?mode=compact", "/beta"}
	for i := range want {
		if paths[i] != want[i] {
			t.Errorf("request %d = %q, want %q", i, paths[i], want[i])
		}
	}
	if bodies[1] != "" || types[1] != "" {
		t.Errorf("optional body left nil: body %q, Content-Type %q; want none", bodies[1], types[1])
	}
	if bodies[2] != `{"note":"hi"}` || types[2] != "application/json" {
		t.Errorf("optional body set: body %q, Content-Type %q", bodies[2], types[2])
	}
}

func TestFormBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var forms []string
		c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
				t.Errorf("Content-Type = %q", ct)
			}
			b, _ := io.ReadAll(r.Body)
			forms = append(forms, string(b))
			if len(forms) == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			ok(w, r)
		})
		_, err := c.SubmitForm(context.Background(), SubmitFormRequest{
			Name:     "n&m",
			Tags:     []string{"a", "b"},
			Metadata: map[string]string{"k": "v", "z": "1"},
		})
		if err != nil {
			t.Fatal(err)
		}
		want := "metadata%5Bk%5D=v&metadata%5Bz%5D=1&name=n%26m&tags=a&tags=b"
		if tr.arrivals != 2 || forms[0] != want || forms[1] != want {
			t.Errorf("form bodies = %q, want %q twice (x-idempotent: true retries)", forms, want)
		}
	})
}

func TestMultipartBodyIsReplayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type part struct{ name, file, body, ctype string }
		var attempts [][]part
		var keys []string
		c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			keys = append(keys, r.Header.Get("Idempotency-Key"))
			_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil {
				t.Fatal(err)
			}
			mr := multipart.NewReader(r.Body, params["boundary"])
			var parts []part
			for {
				p, err := mr.NextPart()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(p)
				parts = append(parts, part{p.FormName(), p.FileName(), string(b), p.Header.Get("Content-Type")})
			}
			attempts = append(attempts, parts)
			if len(attempts) == 1 {
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			ok(w, r)
		})
		count := int64(3)
		purpose := "test"
		k := "v"
		_, err := c.Upload(context.Background(), UploadRequest{
			File:        File{Body: strings.NewReader("hello")},
			Attachments: []File{{Body: strings.NewReader("one")}, {Body: bytes.NewReader([]byte("two"))}},
			Purpose:     &purpose,
			Count:       &count,
			Meta:        &UploadMeta{K: &k},
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []part{
			{"attachments", "attachments", "one", "application/octet-stream"},
			{"attachments", "attachments", "two", "application/octet-stream"},
			{"count", "", "3", ""},
			{"file", "file", "hello", "application/octet-stream"},
			{"meta", "", `{"k":"v"}`, "application/json"},
			{"purpose", "", "test", ""},
		}
		if tr.arrivals != 2 {
			t.Fatalf("arrivals = %d, want 2", tr.arrivals)
		}
		for i, got := range attempts {
			if len(got) != len(want) {
				t.Fatalf("attempt %d parts = %+v, want %+v", i+1, got, want)
			}
			for j := range want {
				if got[j] != want[j] {
					t.Errorf("attempt %d part %d = %+v, want %+v", i+1, j, got[j], want[j])
				}
			}
		}
		if keys[0] == "" || keys[0] != keys[1] {
			t.Errorf("idempotency keys = %q, want one key on both attempts", keys)
		}
	})
}

// onlyReader hides every method of a reader but Read, so that the body cannot be replayed.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// seeker can seek but is none of the types http.NewRequest knows.
type seeker struct{ *bytes.Reader }

// B19: a body that cannot be replayed (a reader that cannot seek, longer than the 1 MiB
// the client keeps) is sent once; a shorter one, one that can seek and a Reopen body are
// sent again, whole.
func TestUploadReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var bodies []string
		c, tr := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			bodies = append(bodies, string(b))
			if len(bodies)%2 == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			ok(w, r)
		})
		_, err := c.UploadFile(context.Background(), "f", onlyReader{strings.NewReader(strings.Repeat("stream", 200_000))})
		if !errors.Is(err, ErrBodyNotReplayable) || tr.arrivals != 1 {
			t.Errorf("non-seekable body: err = %v, arrivals = %d; want ErrBodyNotReplayable after 1", err, tr.arrivals)
		}
		for _, body := range []io.Reader{
			onlyReader{strings.NewReader("stream")},
			Reopen(func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("stream")), nil }),
		} {
			bodies = nil
			tr.arrivals = 0
			if _, err := c.UploadFile(context.Background(), "f", body); err != nil || tr.arrivals != 2 || bodies[0] != "stream" || bodies[1] != "stream" {
				t.Errorf("%T body: bodies = %q, %v; want it twice", body, bodies, err)
			}
		}
		bodies = nil
		tr.arrivals = 0
		src := seeker{bytes.NewReader([]byte("0123456789"))}
		_, _ = src.Seek(2, io.SeekStart)
		if _, err := c.UploadFile(context.Background(), "f", src); err != nil {
			t.Fatal(err)
		}
		if tr.arrivals != 2 || bodies[0] != "23456789" || bodies[1] != "23456789" {
			t.Errorf("seekable body: bodies = %q, want the bytes from offset 2 twice", bodies)
		}
	})
}
