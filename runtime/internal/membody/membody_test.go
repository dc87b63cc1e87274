package membody

import (
	"bytes"
	"io"
	"testing"
)

func TestBody(t *testing.T) {
	var b Body
	b.Set([]byte("hello, world"))
	p := make([]byte, 5)
	if n, err := b.Read(p); n != 5 || err != nil || string(p) != "hello" {
		t.Fatalf("Read = %d, %v, %q", n, err, p)
	}
	if got := string(b.Unread()); got != ", world" {
		t.Errorf("Unread = %q after reading 5 bytes", got)
	}
	if got := string(b.Next(2)); got != ", " {
		t.Errorf("Next(2) = %q", got)
	}
	if got := b.Next(-1); len(got) != 0 {
		t.Errorf("Next(-1) = %q; want nothing", got)
	}
	var out bytes.Buffer
	if n, err := io.Copy(&out, &b); n != 5 || err != nil || out.String() != "world" {
		t.Errorf("io.Copy = %d, %v, %q", n, err, out.String())
	}
	if n, err := b.Read(p); n != 0 || err != io.EOF {
		t.Errorf("Read at the end = %d, %v; want 0, EOF", n, err)
	}
	if err := b.Close(); err != nil || len(b.Next(100)) != 0 {
		t.Errorf("Close = %v", err)
	}
	if u := b.Unread(); cap(u) != 0 {
		t.Errorf("Unread at the end has room for %d more bytes; an append must not write into the body", cap(u))
	}
}
