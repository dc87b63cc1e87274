package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
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

// The guard reports the first error in the order of its checks, though the $ref chain
// checks run beside the others: a document over two limits is refused for the value
// too long, not the chain of $refs.
func TestGuardErrorOrder(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n")
	for i := range MaxRefChain + 2 {
		fmt.Fprintf(&b, "    S%d: {$ref: '#/components/schemas/S%d'}\n", i, i+1)
	}
	fmt.Fprintf(&b, "    S%d: {type: string}\n", MaxRefChain+2)
	chain := b.String()
	long := "    Long: {type: string, description: " + strings.Repeat("x", MaxValueBytes+1) + "}\n"
	pos := func(n *yaml.Node) source.Pos { return source.Pos{Line: n.Line, Col: n.Column} }
	for _, c := range []struct{ text, want string }{
		{chain, "starts a chain of more than"},
		{chain + long, "a value of"},
	} {
		root, err := parseTree([]byte(c.text))
		if err != nil {
			t.Fatal(err)
		}
		e := newGuard(pos).check(root)
		if e == nil || !strings.Contains(e.Msg, c.want) {
			t.Errorf("guard: %v, want an error saying %q", e, c.want)
		}
	}
}
