package memnet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// An HTTP exchange inside a bubble: a handler that waits 10 virtual seconds answers after
// exactly 10 seconds, and a second request reuses the connection.
func TestHTTPInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New()
		srv, addr, err := n.Serve("127.0.0.1:8080", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(10 * time.Second)
			io.WriteString(w, "hello "+r.URL.Path)
		}))
		if err != nil {
			t.Fatal(err)
		}
		tr := n.Transport()
		defer tr.CloseIdleConnections()
		defer srv.Close()
		if addr.String() != "127.0.0.1:8080" {
			t.Errorf("addr = %v", addr)
		}
		hc := &http.Client{Transport: tr}
		for _, path := range []string{"/a", "/b"} {
			start := time.Now()
			resp, err := hc.Get("http://127.0.0.1:8080" + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != "hello "+path {
				t.Errorf("body %q", body)
			}
			if d := time.Since(start); d != 10*time.Second {
				t.Errorf("took %v, want exactly 10s", d)
			}
		}
		if d := n.Dials("127.0.0.1:8080"); d != 1 {
			t.Errorf("%d dials, want 1 (the connection is reused)", d)
		}
	})
}

func TestDialRefusedAndPortZero(t *testing.T) {
	n := New()
	_, err := n.DialContext(context.Background(), "tcp", "127.0.0.1:9")
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial to nothing: %v, want a refused dial *net.OpError", err)
	}
	l, err := n.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if strings.HasSuffix(addr, ":0") {
		t.Fatalf("port 0 not replaced: %s", addr)
	}
	if _, err := n.Listen("tcp", addr); !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("second listen on %s: %v, want EADDRINUSE", addr, err)
	}
	c, err := n.DialContext(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := n.DialContext(context.Background(), "tcp", addr); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial after close: %v, want refused", err)
	}
	// The queued connection was closed with the listener: the client reads EOF.
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("read on a never-accepted connection: %v, want EOF", err)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("accept after close: %v", err)
	}
}

// pair returns both ends of one connection.
func pair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	n := New()
	l, err := n.Listen("tcp", "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	client, err = n.DialContext(context.Background(), "tcp", "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	server, err = l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return client, server
}

// A writer blocks once BufferSize bytes wait unread, and fails once the reader is gone.
func TestBackpressureAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, server := pair(t)
		done := make(chan struct{})
		var written int
		var werr error
		go func() {
			defer close(done)
			written, werr = server.Write(make([]byte, 3*BufferSize))
		}()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("a write of 3 buffers completed with nobody reading")
		default:
		}
		got, err := io.ReadFull(client, make([]byte, BufferSize))
		if err != nil || got != BufferSize {
			t.Fatalf("read %d, %v", got, err)
		}
		client.Close()
		<-done
		if !errors.Is(werr, syscall.EPIPE) {
			t.Errorf("write after the peer closed: %v, want EPIPE", werr)
		}
		if written < BufferSize || written >= 3*BufferSize {
			t.Errorf("wrote %d bytes before failing", written)
		}
		if _, err := client.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
			t.Errorf("read on a closed conn: %v", err)
		}
		server.Close()
	})
}

// Data sent before a close is still read, then io.EOF; a half-close leaves the other
// direction open.
func TestEOFAfterDataAndHalfClose(t *testing.T) {
	client, server := pair(t)
	client.Write([]byte("request"))
	client.(interface{ CloseWrite() error }).CloseWrite()
	got, err := io.ReadAll(server)
	if err != nil || string(got) != "request" {
		t.Fatalf("server read %q, %v", got, err)
	}
	server.Write([]byte("response"))
	server.Close()
	got, err = io.ReadAll(client)
	if err != nil || string(got) != "response" {
		t.Fatalf("client read %q, %v", got, err)
	}
	client.Close()
}

// A read deadline wakes a blocked reader at the deadline, one in the past at once, and
// clearing it lets reads go on.
func TestReadDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, server := pair(t)
		defer client.Close()
		defer server.Close()
		start := time.Now()
		server.SetReadDeadline(start.Add(3 * time.Second))
		_, err := server.Read(make([]byte, 1))
		if !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != 3*time.Second {
			t.Fatalf("read: %v after %v, want a timeout after 3s", err, time.Since(start))
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("%v is not a net.Error timeout", err)
		}

		// A blocked read is woken by moving the deadline into the past, as
		// http.Server does to abort its background read.
		server.SetReadDeadline(time.Time{})
		errc := make(chan error, 1)
		go func() {
			_, err := server.Read(make([]byte, 1))
			errc <- err
		}()
		synctest.Wait()
		server.SetReadDeadline(time.Unix(1, 0))
		if err := <-errc; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("aborted read: %v", err)
		}

		server.SetReadDeadline(time.Time{})
		client.Write([]byte("x"))
		var b bytes.Buffer
		if _, err := io.CopyN(&b, server, 1); err != nil || b.String() != "x" {
			t.Errorf("read after clearing the deadline: %q, %v", b.String(), err)
		}
	})
}
