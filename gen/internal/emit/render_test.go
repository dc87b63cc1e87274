package emit

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// An unindenter drops what bytes.ReplaceAll(text, "\n ", "\n") drops, however the text
// is cut into writes.
func TestUnindenter(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("\n a")
	for range 2000 {
		text := make([]byte, r.IntN(24))
		for i := range text {
			text[i] = alphabet[r.IntN(len(alphabet))]
		}
		var w unindenter
		for rest := text; len(rest) > 0; {
			n := 1 + r.IntN(len(rest))
			if got, err := w.Write(rest[:n]); got != n || err != nil {
				t.Fatalf("Write returned %d, %v for %d bytes", got, err, n)
			}
			rest = rest[n:]
		}
		if want := bytes.ReplaceAll(text, []byte("\n "), []byte("\n")); !bytes.Equal(w.out, want) {
			t.Fatalf("%q: got %q, want %q", text, w.out, want)
		}
	}
}
