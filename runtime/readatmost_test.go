package runtime

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// readAtMost reads a body whole, or one byte past its limit, whatever length the body
// announced; a body of the length it announced takes one buffer.
func TestReadAtMost(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		body, announced, limit int64
		want                   int64
	}{
		{"announced", 50, 50, 1 << 20, 50},
		{"unknown length", 50, -1, 1 << 20, 50},
		{"longer than announced", 5000, 50, 1 << 20, 5000},
		{"shorter than announced", 10, 1000, 1 << 20, 10},
		{"empty", 0, 0, 1 << 20, 0},
		{"at the limit", 100, 100, 100, 100},
		{"over the limit", 5000, -1, 100, 101},
		{"over the limit, announced", 5000, 5000, 100, 101},
		{"nothing allowed", 1, -1, 0, 1},
		{"no limit", 200 << 10, -1, -1, 200 << 10},
		{"more than the first buffer", 200 << 10, 200 << 10, 1 << 20, 200 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := bytes.Repeat([]byte("x"), int(tc.body))
			got, err := readAtMost(iotest.HalfReader(bytes.NewReader(body)), tc.limit, tc.announced)
			if err != nil || int64(len(got)) != tc.want || !bytes.Equal(got, body[:tc.want]) {
				t.Fatalf("read %d bytes (%v); want %d", len(got), err, tc.want)
			}
		})
	}
	t.Run("one buffer for a body of the announced length", func(t *testing.T) {
		body := bytes.Repeat([]byte("x"), 1000)
		r := bytes.NewReader(body)
		if n := testing.AllocsPerRun(10, func() {
			r.Reset(body)
			readAtMost(r, 1<<20, 1000)
		}); n != 1 && !raceEnabled {
			t.Errorf("%v allocations; want 1", n)
		}
	})
	t.Run("a failed read", func(t *testing.T) {
		errCut := errors.New("cut")
		got, err := readAtMost(io.MultiReader(bytes.NewReader([]byte("abc")), iotest.ErrReader(errCut)), 100, -1)
		if !errors.Is(err, errCut) || string(got) != "abc" {
			t.Fatalf("got %q, %v; want the bytes before the error, and the error", got, err)
		}
	})
}
