package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/retrygen/retrygen/examples/petstore/client"
	"github.com/retrygen/retrygen/internal/memnet"
)

// readmeStream is the README's streaming-with-authentication example, line for line.
func readmeStream(ctx context.Context, w io.Writer, baseURL, token string, hc *http.Client) error {
	c := client.NewClient(client.WithBaseURL(baseURL), client.WithBearerAuth(token), client.WithHTTPClient(hc))
	stream, err := c.WatchPet(ctx, 1)
	if err != nil {
		return err // the stream could not be opened, after the operation's retries
	}
	defer stream.Close()
	for stream.Next() {
		fmt.Fprintln(w, stream.EventID(), stream.Current().Kind)
	}
	return stream.Err() // nil at [DONE]; a *client.StreamError when a cut stream cannot resume
}

// The README's example is readmeStream, and it runs: against the flaky server, a stream
// cut after one event resumes, and every event arrives once.
func TestReadmeStreamExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)<!-- examples/petstore/readme_test.go readmeStream -->\n```go\n(.*?)```").FindSubmatch(readme)
	if block == nil {
		t.Fatal("the README has no block marked for readmeStream")
	}
	self, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(self)
	for _, line := range strings.Split(strings.TrimSpace(string(block[1])), "\n") {
		if !strings.Contains(src, "\t"+line+"\n") {
			t.Errorf("README line %q is not in readmeStream", line)
		}
	}
	var out bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		n := memnet.New()
		ln, err := n.Listen("tcp", "127.0.0.1:8080")
		if err != nil {
			t.Fatal(err)
		}
		srv := newFlakyServer(&logger{w: io.Discard})
		srv.plan("GET /v1/pets/{petId}/events", fault{cutAfter: 1})
		hs := &http.Server{Handler: srv}
		go hs.Serve(ln)
		defer hs.Close()
		tr := n.Transport()
		defer tr.CloseIdleConnections()
		if err := readmeStream(t.Context(), &out, "http://127.0.0.1:8080/v1", "demo-token", &http.Client{Transport: tr}); err != nil {
			t.Fatal(err)
		}
		// The wrong token: the stream does not open, and the error is the API's.
		err = readmeStream(t.Context(), &out, "http://127.0.0.1:8080/v1", "wrong", &http.Client{Transport: tr})
		if apiErr, ok := errors.AsType[*client.APIError](err); !ok || apiErr.StatusCode != 401 {
			t.Errorf("with the wrong token: %v", err)
		}
	})
	if got := out.String(); got != "1 fed\n2 walked\n3 napped\n4 groomed\n" {
		t.Errorf("printed %q", got)
	}
}
