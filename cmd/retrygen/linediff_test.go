package main

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// applyHunks rebuilds b from a and the hunks of e, as patch would from the unified diff:
// outside the hunks a is kept, inside them the edits apply.
func applyHunks(a, b []int, e *lineEdits) []int {
	var out []int
	i := 0
	for _, h := range hunks(e, diffContext) {
		out = append(out, a[i:h.a0]...)
		ai, bj := h.a0, h.b0
		for ai < h.a1 || bj < h.b1 {
			switch {
			case ai < h.a1 && e.del[ai]:
				ai++
			case bj < h.b1 && e.ins[bj]:
				out = append(out, b[bj])
				bj++
			default:
				out = append(out, a[ai])
				ai, bj = ai+1, bj+1
			}
		}
		i = h.a1
	}
	return append(out, a[i:]...)
}

// checkEdits checks that e's unmarked lines match in order and that its hunks turn a into b.
func checkEdits(t *testing.T, a, b []int, e *lineEdits) {
	t.Helper()
	var keptA, keptB []int
	for i, d := range e.del {
		if !d {
			keptA = append(keptA, a[i])
		}
	}
	for j, d := range e.ins {
		if !d {
			keptB = append(keptB, b[j])
		}
	}
	if !slices.Equal(keptA, keptB) {
		t.Fatalf("a %v, b %v: the lines kept differ: %v, %v", a, b, keptA, keptB)
	}
	if got := applyHunks(a, b, e); !slices.Equal(got, b) {
		t.Fatalf("a %v, b %v: the hunks give %v", a, b, got)
	}
}

// edits counts the lines e removes and adds.
func edits(e *lineEdits) int {
	n := 0
	for _, d := range slices.Concat(e.del, e.ins) {
		if d {
			n++
		}
	}
	return n
}

// lcsLen is the length of the longest common subsequence, by the quadratic table.
func lcsLen(a, b []int) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func randomLines(r *rand.Rand, n, alphabet int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = r.IntN(alphabet)
	}
	return s
}

// The matching is a shortest edit script, the one the quadratic LCS table gives, and its
// hunks turn the old lines into the new ones.
func TestLineDiffIsMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		alphabet := 1 + r.IntN(4)
		a, b := randomLines(r, r.IntN(14), alphabet), randomLines(r, r.IntN(14), alphabet)
		e := diffIDs(a, b, diffBudget)
		checkEdits(t, a, b, e)
		if got, want := edits(e), len(a)+len(b)-2*lcsLen(a, b); got != want {
			t.Fatalf("a %v, b %v: %d edits, want %d", a, b, got, want)
		}
	}
	// Larger inputs derived from each other, as regenerated files are.
	for range 300 {
		a := randomLines(r, r.IntN(400), 50)
		b := slices.Clone(a)
		for range r.IntN(20) {
			switch i := r.IntN(len(b) + 1); r.IntN(3) {
			case 0:
				b = slices.Insert(b, i, r.IntN(60))
			case 1:
				if i < len(b) {
					b = slices.Delete(b, i, i+1)
				}
			default:
				if i < len(b) {
					b[i] = r.IntN(60)
				}
			}
		}
		e := diffIDs(a, b, diffBudget)
		checkEdits(t, a, b, e)
		if got, want := edits(e), len(a)+len(b)-2*lcsLen(a, b); got != want {
			t.Fatalf("%d edits, want %d", got, want)
		}
	}
}

// Over budget, the matching falls back on anchors and on whole replacements: still a
// correct script, within about twice the budget.
func TestLineDiffFallbackIsCorrect(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		n := r.IntN(300)
		alphabet := 1 + r.IntN(400)
		a, b := randomLines(r, n, alphabet), randomLines(r, r.IntN(300), alphabet)
		budget := r.IntN(200)
		e := diffIDs(a, b, budget)
		checkEdits(t, a, b, e)
		if limit := 2*budget + 8*(len(a)+len(b)+2); e.work > limit {
			t.Fatalf("work %d over %d", e.work, limit)
		}
	}
}

// numbered makes a file of n lines, each unique, with the lines change gives replaced.
func numbered(n int, change func(i int) (string, bool)) []byte {
	var b strings.Builder
	for i := range n {
		if s, ok := change(i); ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, "\tline %d\n", i)
	}
	return []byte(b.String())
}

var hunkHeader = regexp.MustCompile(`(?m)^@@ -\d+(,\d+)? \+\d+(,\d+)? @@$`)

// Changes in separate places give separate hunks with three lines of context, not one
// hunk from the first change to the last.
func TestShortDiffHunks(t *testing.T) {
	old := numbered(3000, func(int) (string, bool) { return "", false })
	changed := map[int]bool{428: true, 429: true, 1200: true, 1201: true, 2000: true, 2001: true, 2913: true, 2914: true}
	new := numbered(3000, func(i int) (string, bool) { return fmt.Sprintf("\tnew %d", i), changed[i] })
	got := shortDiff("a.go", "a.go (regenerated)", old, new)
	headers := hunkHeader.FindAllString(got, -1)
	want := []string{"@@ -426,8 +426,8 @@", "@@ -1198,8 +1198,8 @@", "@@ -1998,8 +1998,8 @@", "@@ -2911,8 +2911,8 @@"}
	if !slices.Equal(headers, want) {
		t.Errorf("hunks %q, want %q:\n%s", headers, want, got)
	}
	if n := strings.Count(got, "\n"); n != 2+4*(1+3+2+2+3) {
		t.Errorf("%d lines:\n%s", n, got)
	}
	for _, w := range []string{"\n \tline 427\n-\tline 428\n-\tline 429\n+\tnew 428\n+\tnew 429\n \tline 430\n"} {
		if !strings.Contains(got, w) {
			t.Errorf("diff lacks %q:\n%s", w, got)
		}
	}
	// Changes six lines apart share a hunk; seven apart do not.
	for gap, hunks := range map[int]int{6: 1, 7: 2} {
		new := numbered(100, func(i int) (string, bool) { return "x", i == 50 || i == 50+gap+1 })
		got := shortDiff("a", "b", numbered(100, func(int) (string, bool) { return "", false }), new)
		if n := len(hunkHeader.FindAllString(got, -1)); n != hunks {
			t.Errorf("changes %d lines apart: %d hunks, want %d:\n%s", gap, n, hunks, got)
		}
	}
}

// The ends of files: a file that is all new, an empty one, a last line without a newline.
func TestShortDiffEdges(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want []string
	}{
		{"", "a\nb\n", []string{"@@ -0,0 +1,2 @@\n+a\n+b\n"}},
		{"a\n", "", []string{"@@ -1 +0,0 @@\n-a\n"}},
		{"a\nb", "a\nb\n", []string{"@@ -1,2 +1,2 @@\n a\n-b\n" + noEOL + "\n+b\n"}},
		{"x\n", "x", []string{"-x\n+x\n" + noEOL + "\n"}},
		{strings.Repeat("é", 150) + "\n", "y\n", []string{"-" + strings.Repeat("é", 100) + diffEllipsis + "\n"}},
	} {
		got := shortDiff("a", "b", []byte(tt.a), []byte(tt.b))
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q → %q: diff lacks %q:\n%s", tt.a, tt.b, w, got)
			}
		}
	}
}

// Huge files with changes everywhere, or with no line either has once, are matched
// within the budget and in memory linear in their size; the output stays short.
func TestShortDiffHugeFiles(t *testing.T) {
	const n = 100_000
	for _, tt := range []struct {
		name string
		a, b []byte
	}{
		{"every 40th line", numbered(n, func(int) (string, bool) { return "", false }),
			numbered(n, func(i int) (string, bool) { return fmt.Sprintf("\tnew %d", i), i%40 == 0 })},
		{"no unique line", []byte(strings.Repeat("a\nb\n", n/2)), []byte(strings.Repeat("b\na\na\n", n/3))},
		{"reversed", numbered(n, func(int) (string, bool) { return "", false }),
			numbered(n, func(i int) (string, bool) { return fmt.Sprintf("\tline %d", n-1-i), true })},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := diffFiles(splitFile(tt.a), splitFile(tt.b))
			t.Logf("work %d", e.work)
			if limit := 2*diffBudget + 20*n; e.work > limit {
				t.Errorf("work %d, over %d", e.work, limit)
			}
			a, b := splitFile(tt.a).lines, splitFile(tt.b).lines
			ids := map[string]int{}
			id := func(s []string) []int {
				out := make([]int, len(s))
				for i, l := range s {
					if _, ok := ids[l]; !ok {
						ids[l] = len(ids)
					}
					out[i] = ids[l]
				}
				return out
			}
			checkEdits(t, id(a), id(b), e)

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got := shortDiff("a", "b", tt.a, tt.b)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MB", alloc>>20)
			}
			if lines := strings.Count(got, "\n"); lines > maxDiffLines+3 {
				t.Errorf("%d lines of output", lines)
			}
			if !regexp.MustCompile(`\n… \d+ more lines\n$`).MatchString(got) {
				t.Errorf("the output does not end with the count of lines left out:\n%s", got)
			}
		})
	}
}
