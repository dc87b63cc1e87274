package media

// These tests run against the generated client of this case (want.go, copied next to them
// by gen's TestGoldenCompiles), through a transport that hands each request to a handler.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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

// serve answers every request with status, Content-Type ct and body, and records the
// Accept header of the last request in *accept.
func serve(t *testing.T, accept *string, status int, ct, body string, opts ...Option) *Client {
	t.Helper()
	h := func(w http.ResponseWriter, r *http.Request) {
		*accept = r.Header.Get("Accept")
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
	opts = append([]Option{WithHTTPClient(&http.Client{Transport: handlerTransport(h)}), WithoutRetryBudget()}, opts...)
	return NewClient(opts...)
}

func TestTextResponsesAreStrings(t *testing.T) {
	ctx := context.Background()
	var accept string
	report, err := serve(t, &accept, 200, "text/plain; charset=utf-8", "all good\n").GetReport(ctx)
	if err != nil || report != "all good\n" || accept != "text/markdown, text/plain" {
		t.Errorf("GetReport = %q, %v; Accept %q", report, err, accept)
	}
	report, err = serve(t, &accept, 200, "text/markdown", "# Report").GetReport(ctx)
	if err != nil || report != "# Report" {
		t.Errorf("GetReport (markdown) = %q, %v", report, err)
	}
	rows, err := serve(t, &accept, 200, "text/csv", "id,name\n1,a\n").ExportRows(ctx)
	if err != nil || rows != "id,name\n1,a\n" || accept != "text/csv" {
		t.Errorf("ExportRows = %q, %v; Accept %q", rows, err, accept)
	}
	feed, err := serve(t, &accept, 200, "application/atom+xml", "<feed/>").GetFeed(ctx)
	if err != nil || feed != "<feed/>" || accept != "application/atom+xml" {
		t.Errorf("GetFeed = %q, %v; Accept %q", feed, err, accept)
	}
}

// Text in another charset comes back byte for byte.
func TestTextKeepsItsBytes(t *testing.T) {
	var accept string
	rows, err := serve(t, &accept, 200, "text/csv; charset=iso-8859-1", "caf\xe9\n").ExportRows(context.Background())
	if err != nil || rows != "caf\xe9\n" {
		t.Errorf("ExportRows = %q, %v", rows, err)
	}
}

// An operation that offers JSON and CSV has a method for each, each asking for its own
// types and decoding by the response's Content-Type.
func TestJSONAndCSVMethods(t *testing.T) {
	ctx := context.Background()
	var accept string
	items, err := serve(t, &accept, 200, "application/json", `[{"id":"1"}]`).ListItems(ctx)
	if err != nil || len(items) != 1 || items[0].ID != "1" || accept != "application/json, application/vnd.items+json" {
		t.Errorf("ListItems = %+v, %v; Accept %q", items, err, accept)
	}
	items, err = serve(t, &accept, 200, "application/vnd.items+json", `[{"id":"2"}]`).ListItems(ctx)
	if err != nil || len(items) != 1 || items[0].ID != "2" {
		t.Errorf("ListItems (vendor JSON) = %+v, %v", items, err)
	}
	csv, err := serve(t, &accept, 200, "text/csv", "id\n1\n").ListItemsText2(ctx)
	if err != nil || csv != "id\n1\n" || accept != "text/csv" {
		t.Errorf("ListItemsText2 = %q, %v; Accept %q", csv, err, accept)
	}
	// The declared operation whose name the text method would take keeps its name: the
	// text method of listItems gives way.
	var path string
	c := NewClient(WithHTTPClient(&http.Client{Transport: handlerTransport(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "x")
	})}))
	if text, err := c.ListItemsText(ctx); err != nil || text != "x" || path != "/items/text" {
		t.Errorf("ListItemsText = %q, %v; path %q", text, err, path)
	}
}

// A Content-Type the method cannot decode is ErrContentType, naming the type.
func TestWrongContentType(t *testing.T) {
	ctx := context.Background()
	var accept string
	_, err := serve(t, &accept, 200, "text/html", "<html>proxy error</html>").ListItems(ctx)
	if !errors.Is(err, ErrContentType) || !strings.Contains(err.Error(), `"text/html"`) {
		t.Errorf("ListItems with text/html: %v", err)
	}
	_, err = serve(t, &accept, 200, "text/csv", "id\n1\n").ListItems(ctx)
	if !errors.Is(err, ErrContentType) || !strings.Contains(err.Error(), `"text/csv"`) {
		t.Errorf("ListItems with text/csv: %v", err)
	}
	out, err := serve(t, &accept, 200, "application/json", `[]`).ListItemsText2(ctx)
	if !errors.Is(err, ErrContentType) || out != "" || !strings.Contains(err.Error(), `"application/json"`) {
		t.Errorf("ListItemsText2 with JSON: %q, %v", out, err)
	}
	_, err = serve(t, &accept, 200, "text/html", "<p>").ExportRows(ctx)
	if !errors.Is(err, ErrContentType) {
		t.Errorf("ExportRows with text/html: %v", err)
	}
}

// A text body over the client's MaxBodySize fails the call.
func TestTextOverMaxBodySize(t *testing.T) {
	var accept string
	c := serve(t, &accept, 200, "text/csv", strings.Repeat("x", 100), WithMaxBodySize(64))
	rows, err := c.ExportRows(context.Background())
	if !errors.Is(err, ErrBodyTooLarge) || rows != "" {
		t.Errorf("ExportRows = %q, %v", rows, err)
	}
	c = serve(t, &accept, 200, "text/csv", strings.Repeat("x", 64), WithMaxBodySize(64))
	if rows, err := c.ExportRows(context.Background()); err != nil || len(rows) != 64 {
		t.Errorf("ExportRows at the cap = %d bytes, %v", len(rows), err)
	}
}

// A status with JSON and another with text each fill their own field.
func TestJSONAndTextStatuses(t *testing.T) {
	ctx := context.Background()
	var accept string
	res, err := serve(t, &accept, 202, "text/plain", "queued").PutItem(ctx, "1", Item{ID: "1"})
	if err != nil || res.Status202 != "queued" || res.Status200 != nil || accept != "application/json, text/plain" {
		t.Errorf("PutItem 202 = %+v, %v; Accept %q", res, err, accept)
	}
	res, err = serve(t, &accept, 200, "application/json", `{"id":"1"}`).PutItem(ctx, "1", Item{ID: "1"})
	if err != nil || res.Status200 == nil || res.Status200.ID != "1" || res.Status202 != "" {
		t.Errorf("PutItem 200 = %+v, %v", res, err)
	}
}

// Error models are read only from JSON; a text error body stays in the error.
func TestErrorBodies(t *testing.T) {
	ctx := context.Background()
	var accept string
	_, err := serve(t, &accept, 404, "application/problem+json", `{"title":"no such list","status":404}`).ListItems(ctx)
	var p *Problem
	if !errors.As(err, &p) || p.Title == nil || *p.Title != "no such list" {
		t.Errorf("404 problem: %v", err)
	}
	_, err = serve(t, &accept, 400, "text/plain", `upstream said no`).ListItemsText2(ctx)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || string(apiErr.Body) != "upstream said no" || apiErr.Model != nil {
		t.Errorf("400 text: %v", err)
	}
	if errors.As(err, &p) {
		t.Errorf("a text body gave a model: %+v", p)
	}
	// A text body that happens to be JSON is not read as the model either.
	_, err = serve(t, &accept, 400, "text/html", `{"title":"x"}`).ListItems(ctx)
	if errors.As(err, &p) || !errors.As(err, &apiErr) || string(apiErr.Body) != `{"title":"x"}` {
		t.Errorf("400 html: %v", err)
	}
}

// A binary body is handed over unread: the method returns before the server has finished
// writing it, and the client's MaxBodySize does not apply.
func TestBinaryIsStreamed(t *testing.T) {
	pr, pw := io.Pipe()
	var accept string
	tr := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		accept = req.Header.Get("Accept")
		return &http.Response{
			StatusCode: 200,
			Header:     http.Header{"Content-Type": {"application/octet-stream"}},
			Body:       pr,
			Request:    req,
		}, nil
	})
	c := NewClient(WithHTTPClient(&http.Client{Transport: tr}), WithMaxBodySize(4))
	body, err := c.DownloadArchive(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	if accept != "application/octet-stream, image/png" {
		t.Errorf("Accept %q", accept)
	}
	go func() {
		_, _ = io.WriteString(pw, "0123456789")
		pw.Close()
	}()
	if data, err := io.ReadAll(body); err != nil || string(data) != "0123456789" {
		t.Errorf("body = %q, %v", data, err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// The JSON method of an operation that also offers text/plain refuses a text/plain body,
// which its text method reads.
func TestPlainTextIsNotJSON(t *testing.T) {
	ctx := context.Background()
	var accept string
	item, err := serve(t, &accept, 200, "text/plain", `{"id":"1"}`).GetItem(ctx, "1")
	if !errors.Is(err, ErrContentType) || item != nil || accept != "application/json" {
		t.Errorf("GetItem with text/plain = %+v, %v; Accept %q", item, err, accept)
	}
	item, err = serve(t, &accept, 200, "application/json", `{"id":"1"}`).GetItem(ctx, "1")
	if err != nil || item.ID != "1" {
		t.Errorf("GetItem = %+v, %v", item, err)
	}
	text, err := serve(t, &accept, 200, "text/plain", "item 1").GetItemText(ctx, "1")
	if err != nil || text != "item 1" || accept != "text/plain" {
		t.Errorf("GetItemText = %q, %v; Accept %q", text, err, accept)
	}
	_, err = serve(t, &accept, 201, "application/json", `{"id":"1"}`).GetItem(ctx, "1")
	if !errors.Is(err, ErrUndeclaredStatus) {
		t.Errorf("GetItem with 201: %v", err)
	}
}
