package responses

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
	if req.Body != nil {
		defer req.Body.Close()
	}
	rec := httptest.NewRecorder()
	h(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

func newClient(t *testing.T, status int, body string) *Client {
	t.Helper()
	h := func(w http.ResponseWriter, r *http.Request) {
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
	return NewClient(WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: handlerTransport(h)}))
}

func TestResultPerStatus(t *testing.T) {
	ctx := context.Background()
	res, err := newClient(t, 200, `{"output":"done"}`).StartJob(ctx)
	if err != nil || res.Status200 == nil || *res.Status200.Output != "done" || res.Status202 != nil {
		t.Errorf("200: %+v, %v", res, err)
	}
	res, err = newClient(t, 202, `{"id":"j1","state":"queued"}`).StartJob(ctx)
	if err != nil || res.Status202 == nil || res.Status202.ID != "j1" || *res.Status202.State != JobStateQueued || res.Status200 != nil {
		t.Errorf("202: %+v, %v", res, err)
	}
	res, err = newClient(t, 204, "").StartJob(ctx)
	if err != nil || res.Status200 != nil || res.Status202 != nil {
		t.Errorf("204: %+v, %v", res, err)
	}
	job, err := newClient(t, 203, `{"id":"j2"}`).JobStatus(ctx, "j2")
	if err != nil || job.ID != "j2" {
		t.Errorf("2XX: %+v, %v", job, err)
	}
}

func TestErrorModelsByStatus(t *testing.T) {
	ctx := context.Background()
	_, err := newClient(t, 409, `{"conflictingJob":"j0"}`).StartJob(ctx)
	var conflict *StartJobError409
	if !errors.As(err, &conflict) || *conflict.ConflictingJob != "j0" {
		t.Errorf("409: %v", err)
	}
	_, err = newClient(t, 422, `{"error":{"code":"bad","message":"no"}}`).StartJob(ctx)
	var env *Envelope
	if !errors.As(err, &env) || *env.ErrorValue.Code != "bad" {
		t.Errorf("4XX: %v", err)
	}
	if !strings.Contains(env.Error(), `"code":"bad"`) {
		t.Errorf("Error() = %q, want the model's JSON", env.Error())
	}
	_, err = newClient(t, 501, `["x","y"]`).StartJob(ctx)
	var list *StartJobError5XX
	if !errors.As(err, &list) || len(*list) != 2 {
		t.Errorf("5XX: %v", err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 501 || string(apiErr.Body) != `["x","y"]` {
		t.Errorf("APIError = %+v", apiErr)
	}
	err = newClient(t, 404, `{"error":{"code":"missing"}}`).CancelJob(ctx, "j1")
	if !errors.As(err, &env) || *env.ErrorValue.Code != "missing" {
		t.Errorf("default: %v", err)
	}
	err = newClient(t, 404, `not json`).CancelJob(ctx, "j1")
	if !errors.As(err, &apiErr) || apiErr.Model != nil || errors.As(err, &env) {
		t.Errorf("undecodable body: Model = %v, want none", apiErr.Model)
	}
}

func TestDownloadIsHandedOver(t *testing.T) {
	c := newClient(t, 200, "binary\x00data")
	body, err := c.DownloadOutput(context.Background(), "j1")
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	if b, _ := io.ReadAll(body); string(b) != "binary\x00data" {
		t.Errorf("body = %q", b)
	}
}
