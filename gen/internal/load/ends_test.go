package load

import (
	"math/rand/v2"
	"testing"
)

// growByLines is the end nodeindex gives a node (kin-openapi's extend): the lines after
// it walked one by one, a run of blank lines walked again for every node before it.
func growByLines(indent []int32, e, col int32) int32 {
	indentOf := func(i int32) int32 {
		if i < 0 || i >= int32(len(indent)) {
			return -1
		}
		return indent[i]
	}
	for {
		if ind := indentOf(e); ind > col {
			e++
			continue
		} else if ind == -1 {
			j := e
			for j < int32(len(indent)) && indentOf(j) == -1 {
				j++
			}
			if indentOf(j) > col {
				e = j + 1
				continue
			}
		}
		break
	}
	return e
}

// lineIndex.grow gives every node the end nodeindex's line-by-line walk gives it, for
// lines of every mix of indents and blank runs.
func TestLineIndexGrowsAsNodeindex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		indent := make([]int32, r.IntN(40))
		for i := range indent {
			indent[i] = int32(r.IntN(8)) - 1
			if r.IntN(3) == 0 {
				indent[i] = -1
			}
		}
		ix := newLineIndex(indent)
		for e := int32(0); e <= int32(len(indent))+2; e++ {
			for col := int32(-1); col < 8; col++ {
				if got, want := ix.grow(e, col), growByLines(indent, e, col); got != want {
					t.Fatalf("indents %v: grow(%d, %d) = %d, want %d", indent, e, col, got, want)
				}
			}
		}
	}
}
