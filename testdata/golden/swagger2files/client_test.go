package swagger2files

// These tests run against the generated client of this case (want.go, copied next to them
// by gen's TestGoldenCompiles), through a transport that hands each request to a handler.

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

type handlerTransport http.HandlerFunc

func (h handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	h(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// A `type: file` response is handed over unread, whatever its Content-Type.
func TestFileResponsesAreStreams(t *testing.T) {
	const png = "\x89PNG\r\n\x1a\n\x00\x00"
	var path, accept string
	h := func(w http.ResponseWriter, r *http.Request) {
		path, accept = r.URL.Path, r.Header.Get("Accept")
		w.Header().Set("Content-Type", "image/png")
		_, _ = io.WriteString(w, png)
	}
	c := NewClient(WithHTTPClient(&http.Client{Transport: handlerTransport(h)}))
	for name, call := range map[string]func() (io.ReadCloser, error){
		"GetFile":       func() (io.ReadCloser, error) { return c.GetFile(context.Background(), "logo.png") },
		"ExportAllCall": func() (io.ReadCloser, error) { return c.ExportAllCall(context.Background()) },
	} {
		body, err := call()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		data, err := io.ReadAll(body)
		body.Close()
		if err != nil || string(data) != png {
			t.Errorf("%s: body %q, %v (path %s, Accept %q)", name, data, err, path, accept)
		}
	}
}
