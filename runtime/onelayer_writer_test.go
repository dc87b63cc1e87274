package runtime

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// fullWriter is a ResponseWriter with every optional interface a net/http server's writers
// have (HTTP/1's and HTTP/2's together), recording the calls that reach it.
type fullWriter struct {
	httptest.ResponseRecorder
	calls []string
}

func (w *fullWriter) Flush() { w.calls = append(w.calls, "Flush") }
func (w *fullWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.calls = append(w.calls, "Hijack")
	return nil, nil, errors.New("hijacked")
}
func (w *fullWriter) Push(target string, _ *http.PushOptions) error {
	w.calls = append(w.calls, "Push "+target)
	return nil
}
func (w *fullWriter) ReadFrom(r io.Reader) (int64, error) {
	w.calls = append(w.calls, "ReadFrom")
	return io.Copy(&w.ResponseRecorder, r)
}
func (w *fullWriter) WriteString(s string) (int, error) {
	w.calls = append(w.calls, "WriteString")
	return w.ResponseRecorder.WriteString(s)
}

func (w *fullWriter) CloseNotify() <-chan bool {
	w.calls = append(w.calls, "CloseNotify")
	return make(chan bool)
}
func (w *fullWriter) SetReadDeadline(time.Time) error {
	w.calls = append(w.calls, "SetReadDeadline")
	return nil
}
func (w *fullWriter) SetWriteDeadline(time.Time) error {
	w.calls = append(w.calls, "SetWriteDeadline")
	return nil
}
func (w *fullWriter) EnableFullDuplex() error {
	w.calls = append(w.calls, "EnableFullDuplex")
	return nil
}

// The writer OneRetryLayer gives the handler has each optional interface of the server's
// writer, and each call reaches it: http.Pusher (HTTP/2 server push), io.StringWriter,
// io.ReaderFrom, http.CloseNotifier, Flush and Hijack, and through Unwrap what
// http.ResponseController asks (deadlines, full duplex), including methods of writers
// from outside net/http that no interface here names.
func TestOneRetryLayerKeepsOptionalInterfaces(t *testing.T) {
	fw := &fullWriter{ResponseRecorder: *httptest.NewRecorder()}
	OneRetryLayer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pusher, ok := w.(http.Pusher)
		if !ok {
			t.Fatal("the writer is not an http.Pusher")
		}
		if err := pusher.Push("/style.css", nil); err != nil {
			t.Errorf("Push: %v", err)
		}
		if _, ok := w.(io.StringWriter); !ok {
			t.Error("the writer is not an io.StringWriter")
		}
		io.WriteString(w, "a")
		io.Copy(w, io.LimitReader(strings.NewReader("b"), 1)) // no WriteTo: io.Copy asks ReadFrom
		//lint:ignore SA1019 handlers still ask for it
		if cn, ok := w.(http.CloseNotifier); !ok || cn.CloseNotify() == nil {
			t.Error("the writer is not an http.CloseNotifier")
		}
		w.(http.Flusher).Flush()
		w.(http.Hijacker).Hijack()
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Time{}) != nil || rc.SetWriteDeadline(time.Time{}) != nil || rc.EnableFullDuplex() != nil {
			t.Error("ResponseController does not reach the server's writer")
		}
	})).ServeHTTP(fw, httptest.NewRequest("GET", "/", nil))
	want := []string{"Push /style.css", "WriteString", "ReadFrom", "CloseNotify", "Flush", "Hijack", "SetReadDeadline", "SetWriteDeadline", "EnableFullDuplex"}
	if !slices.Equal(fw.calls, want) {
		t.Errorf("calls %q, want %q", fw.calls, want)
	}
	if fw.Body.String() != "ab" || fw.Code != 200 {
		t.Errorf("answered %d %q", fw.Code, fw.Body.String())
	}
}

// A server's writer without push (HTTP/1) answers Push with http.ErrNotSupported through
// the layer, as net/http's own writers do.
func TestOneRetryLayerPushNotSupported(t *testing.T) {
	OneRetryLayer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := w.(http.Pusher).Push("/x", nil); !errors.Is(err, http.ErrNotSupported) {
			t.Errorf("Push = %v, want http.ErrNotSupported", err)
		}
	})).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}
