package wire

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/retrygen/retrygen/runtime"
)

// linesClient returns a client that answers attempt n (from 0) with 200, the Content-Type
// ct and the body bodies[n] (the last one for later attempts), counting the attempts.
func linesClient(t *testing.T, ct string, bodies ...string) (*Client, *int) {
	t.Helper()
	var mu sync.Mutex
	attempts := 0
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		body := bodies[min(attempts, len(bodies)-1)]
		attempts++
		mu.Unlock()
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})}
	c, err := NewClient("http://api.example.com", WithHTTPClient(hc), WithoutRetryBudget())
	if err != nil {
		t.Fatal(err)
	}
	return c, &attempts
}

type watchEvent struct {
	Type   string `json:"type"`
	Object struct {
		Name string `json:"name"`
	} `json:"object"`
}

// Each line of a stream of JSON values that holds more than white space is one value:
// blank lines (heartbeats) are skipped, json-seq's record separators dropped, a CRLF is a
// line end, and a last line without its end counts. No value is taken for a sentinel.
func TestLineStreamValues(t *testing.T) {
	for _, tt := range []struct{ ct, body string }{
		{"application/x-ndjson", "{\"type\":\"ADDED\",\"object\":{\"name\":\"a\"}}\n\n  \n{\"type\":\"MODIFIED\",\"object\":{\"name\":\"b\"}}\r\n{\"type\":\"DELETED\",\"object\":{\"name\":\"c\"}}"},
		{"application/json-seq", "\x1e{\"type\":\"ADDED\",\"object\":{\"name\":\"a\"}}\n\x1e{\"type\":\"MODIFIED\",\"object\":{\"name\":\"b\"}}\n\x1e{\"type\":\"DELETED\",\"object\":{\"name\":\"c\"}}\n"},
		{"application/json", "{\"type\":\"ADDED\",\"object\":{\"name\":\"a\"}}\n{\"type\":\"MODIFIED\",\"object\":{\"name\":\"b\"}}\n{\"type\":\"DELETED\",\"object\":{\"name\":\"c\"}}\n"},
	} {
		t.Run(tt.ct, func(t *testing.T) {
			c, _ := linesClient(t, tt.ct, tt.body)
			s, err := OpenStream[watchEvent](context.Background(), c, NewRequest("GET"), &getPolicy, StreamConfig{Accept: "application/json;stream=watch", Lines: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for s.Next() {
				got = append(got, s.Current().Type+" "+s.Current().Object.Name)
			}
			if s.Err() != nil || strings.Join(got, ", ") != "ADDED a, MODIFIED b, DELETED c" {
				t.Errorf("got %q, err %v", got, s.Err())
			}
		})
	}
}

// A stream of JSON values follows the first-event rule of event streams: an error value
// in place of the first is the attempt's failure, retried like the status it stands for,
// and a cut before the first value is retried too; a cut after one is not resumed, as
// the request sent again would deliver the values from the start.
func TestLineStreamRetries(t *testing.T) {
	t.Run("error value first", func(t *testing.T) {
		c, attempts := linesClient(t, "application/x-ndjson",
			`{"error":{"type":"overloaded_error","message":"busy"}}`+"\n",
			`{"type":"ADDED","object":{"name":"a"}}`+"\n")
		s, err := OpenStream[watchEvent](context.Background(), c, NewRequest("GET"), &getPolicy, StreamConfig{Accept: "application/x-ndjson", Lines: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Next() || s.Current().Object.Name != "a" || *attempts != 2 {
			t.Errorf("first value %+v after %d attempts, err %v; want a after 2", s.Current(), *attempts, s.Err())
		}
	})
	t.Run("cut after a value", func(t *testing.T) {
		var mu sync.Mutex
		attempts := 0
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			attempts++
			mu.Unlock()
			body := io.MultiReader(strings.NewReader(`{"type":"ADDED","object":{"name":"a"}}`+"\n"), errReader{io.ErrUnexpectedEOF})
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/x-ndjson"}}, Body: io.NopCloser(body), Request: r}, nil
		})}
		c, err := NewClient("http://api.example.com", WithHTTPClient(hc), WithoutRetryBudget())
		if err != nil {
			t.Fatal(err)
		}
		s, err := OpenStream[watchEvent](context.Background(), c, NewRequest("GET"), &getPolicy, StreamConfig{Accept: "application/x-ndjson", Lines: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for s.Next() {
			n++
		}
		var se *StreamError
		if n != 1 || attempts != 1 || !errors.As(s.Err(), &se) || se.Delivered != 1 || !errors.Is(s.Err(), io.ErrUnexpectedEOF) {
			t.Errorf("%d values after %d attempts, err %v; want 1 after 1, a *StreamError of the cut", n, attempts, s.Err())
		}
	})
	t.Run("not a stream", func(t *testing.T) {
		c, _ := linesClient(t, "text/html", "<html>")
		_, err := OpenStream[watchEvent](context.Background(), c, NewRequest("GET"), &runtime.Policy{MaxAttempts: 1}, StreamConfig{Accept: "application/x-ndjson", Lines: true}, nil)
		if !errors.Is(err, ErrContentType) || !strings.Contains(err.Error(), "not a stream of JSON values") {
			t.Errorf("err %v; want ErrContentType", err)
		}
	})
}

// A line longer than the event bound ends a stream of JSON values with ErrEventTooLarge.
func TestLineStreamBound(t *testing.T) {
	c, _ := linesClient(t, "application/x-ndjson", `{"a":"`+strings.Repeat("x", 100)+`"}`+"\n")
	s, err := OpenStream[map[string]string](context.Background(), c, NewRequest("GET"), &getPolicy, StreamConfig{Accept: "application/x-ndjson", Lines: true}, []CallOption{WithMaxEventSize(50)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Next() || !errors.Is(s.Err(), ErrEventTooLarge) {
		t.Errorf("err %v; want ErrEventTooLarge", s.Err())
	}
}
