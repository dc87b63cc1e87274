package load

import (
	"os"
	"path/filepath"
	"testing"
)

// indicators counts what checkIndicators' loop counts, on a text with each of the
// characters and on the spec of the repository's test data.
func TestIndicatorsCount(t *testing.T) {
	loop := func(data []byte) int {
		n := 0
		for _, c := range data {
			switch c {
			case ',', ':', '-', '[', '{', '?', '\n':
				n++
			}
		}
		return n
	}
	texts := [][]byte{[]byte("a: [1, 2]\n- {b: c}\n? d\n]}#!&*|>\r\n")}
	names, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "golden", "*", "spec.yaml"))
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, data)
	}
	for _, data := range texts {
		if got, want := indicators(data), loop(data); got != want {
			t.Errorf("indicators = %d, want %d, of %.40q", got, want, data)
		}
	}
}
