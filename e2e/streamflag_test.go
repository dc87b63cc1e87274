package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/e2e/clientapi"
)

// streamAsked returns the "stream" value a multipart or form request body sends, "" when
// it sends none.
func streamAsked(t *testing.T, a *arrival) string {
	t.Helper()
	mt, params, err := mime.ParseMediaType(a.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("Content-Type %q: %v", a.Header.Get("Content-Type"), err)
	}
	if mt == "application/x-www-form-urlencoded" {
		form, err := url.ParseQuery(string(a.Body))
		if err != nil {
			t.Fatal(err)
		}
		return form.Get("stream")
	}
	r := multipart.NewReader(bytes.NewReader(a.Body), params["boundary"])
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		if p.FormName() == "stream" {
			v, _ := io.ReadAll(p)
			return string(v)
		}
	}
}

// A stream method asks for the stream with the body's "stream" property in a multipart or
// form body as it does in JSON, and the operation's other methods leave it out, whatever
// the caller set. The server answers as real ones do: events when asked, JSON otherwise.
func TestStreamFlagMultipartAndForm(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		s := e.serve(clientAddr, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			if streamAsked(t, a) == "true" {
				streamHeader(w)
				sse(w, "data: {\"text\":\"event\"}\n\n")
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"text":"whole"}`)
		})
		c := e.clientapi(clientapi.ServerURL, allCredentials()...)
		ctx := t.Context()
		file := func() clientapi.File { return clientapi.File{Name: "a.wav", Body: strings.NewReader("RIFF")} }
		first := func(s *clientapi.EventStream[clientapi.ChatChunk], err error) string {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if !s.Next() {
				t.Fatalf("no event: %v", s.Err())
			}
			return *s.Current().Text
		}
		whole := func(c *clientapi.ChatChunk, err error) string {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			return *c.Text
		}
		got := []string{
			first(c.TranscribeStream(ctx, clientapi.TranscribeRequest{File: file()})),
			first(c.CompleteStream(ctx, clientapi.ChatRequest{Prompt: "hi"})),
			whole(c.Transcribe(ctx, clientapi.TranscribeRequest{File: file(), Stream: clientapi.Some(true)})),
			whole(c.Complete(ctx, clientapi.ChatRequest{Prompt: "hi", Stream: clientapi.Ptr(true)})),
			whole(c.ChatForm(ctx, clientapi.ChatRequest{Prompt: "hi", Stream: clientapi.Ptr(true)})),
		}
		if want := "[event event whole whole whole]"; fmt.Sprint(got) != want {
			t.Errorf("got %v, want %s", got, want)
		}
		var sent []string
		for i := range s.count() {
			sent = append(sent, fmt.Sprintf("%q", streamAsked(t, s.got(i))))
		}
		if want := `["true" "true" "" "" ""]`; "["+strings.Join(sent, " ")+"]" != want {
			t.Errorf("stream sent: %v, want %s", sent, want)
		}
	})
}
