package main

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// The short diff -check prints: a unified diff of the file on disk and the regenerated
// one, by lines, in separate hunks with diffContext lines of context, cut after
// maxDiffLines lines. The lines are matched by Myers' O(ND) algorithm in linear space,
// which finds a shortest edit script. Its work is bounded: when a shortest script would
// cost more than diffBudget steps, the lines that occur once in each file anchor the
// match (as patience diff does) and Myers matches the lines between anchors, each
// stretch again within the budget; a stretch past it is shown removed and added whole.
// Memory stays linear in the files' lines whatever they hold.

// Diff limits: the output is for a terminal or a CI log, not for patching.
const (
	maxDiffLines = 60    // lines of hunk output shown
	diffContext  = 3     // unchanged lines shown around a change
	maxLineShown = 200   // longer lines are cut
	diffEllipsis = "..." // marks a cut line
	// diffBudget bounds the steps of one matching pass: a fraction of a second's work,
	// more than 100,000-line files that differ in thousands of places need.
	diffBudget = 20_000_000
)

// noEOL is what unified diffs print after a last line that has no newline.
const noEOL = `\ No newline at end of file`

// lineFile is one side of a diff: its lines, and whether the last one ends without a
// newline.
type lineFile struct {
	lines []string
	noEOL bool
}

func splitFile(b []byte) lineFile {
	s := string(b)
	if s == "" {
		return lineFile{}
	}
	f := lineFile{noEOL: !strings.HasSuffix(s, "\n")}
	f.lines = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return f
}

// lineEdits marks the lines of a removed and the lines of b added by a short edit
// script from a to b; the lines of each left unmarked match in order. work counts the
// steps taken, for tests.
type lineEdits struct {
	del, ins []bool
	work     int
}

// diffFiles matches the lines of a and b. Two lines match when their text is the same
// and neither is a last line without a newline unless both are.
func diffFiles(a, b lineFile) *lineEdits {
	ids := map[string]int{}
	intern := func(f lineFile) []int {
		out := make([]int, len(f.lines))
		for i, l := range f.lines {
			if f.noEOL && i == len(f.lines)-1 {
				l += "\n" // a key no line of a file split at newlines has
			}
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	return diffIDs(x, y, diffBudget)
}

// diffIDs matches a and b, sequences of line ids, spending at most about budget steps
// on each of its two passes.
func diffIDs(a, b []int, budget int) *lineEdits {
	e := &lineEdits{del: make([]bool, len(a)), ins: make([]bool, len(b))}
	m := &myers{a: a, b: b, e: e, budget: budget}
	ok := m.compare(0, len(a), 0, len(b))
	e.work = m.spent
	if ok {
		return e
	}
	// Too many changes for a shortest script: anchor on the lines each file has once.
	clear(e.del)
	clear(e.ins)
	m.spent = 0
	defer func() { e.work += m.spent }()
	anchors := uniqueAnchors(a, b)
	if len(anchors) == 0 {
		m.replace(0, len(a), 0, len(b)) // the first pass did what Myers could
		return e
	}
	ai, bi := 0, 0
	for _, p := range anchors {
		m.compareOrGiveUp(ai, p.a, bi, p.b)
		ai, bi = p.a+1, p.b+1
	}
	m.compareOrGiveUp(ai, len(a), bi, len(b))
	return e
}

// myers finds a shortest edit script with Myers' linear-space refinement: the middle
// snake of a d-path splits the problem in two halves of about d/2 each.
type myers struct {
	a, b   []int
	e      *lineEdits
	vf, vr []int // furthest x per diagonal, forward and reverse, reused by every call
	budget int
	spent  int // steps of this pass
}

// compareOrGiveUp is compare, which when over budget shows the stretch removed and added.
func (m *myers) compareOrGiveUp(aLo, aHi, bLo, bHi int) {
	if !m.compare(aLo, aHi, bLo, bHi) {
		m.replace(aLo, aHi, bLo, bHi)
	}
}

// replace marks a[aLo:aHi] removed and b[bLo:bHi] added.
func (m *myers) replace(aLo, aHi, bLo, bHi int) {
	for i := aLo; i < aHi; i++ {
		m.e.del[i] = true
	}
	for j := bLo; j < bHi; j++ {
		m.e.ins[j] = true
	}
}

// compare marks a shortest edit script from a[aLo:aHi] to b[bLo:bHi]; it reports false,
// having marked part of it, when the budget runs out.
func (m *myers) compare(aLo, aHi, bLo, bHi int) bool {
	for aLo < aHi && bLo < bHi && m.a[aLo] == m.b[bLo] {
		aLo, bLo = aLo+1, bLo+1
	}
	for aLo < aHi && bLo < bHi && m.a[aHi-1] == m.b[bHi-1] {
		aHi, bHi = aHi-1, bHi-1
	}
	m.spent += (aHi - aLo) + (bHi - bLo)
	if aLo == aHi || bLo == bHi {
		m.replace(aLo, aHi, bLo, bHi)
		return true
	}
	x1, y1, x2, y2, ok := m.middleSnake(aLo, aHi, bLo, bHi)
	if !ok {
		return false
	}
	return m.compare(aLo, x1, bLo, y1) && m.compare(x2, aHi, y2, bHi)
}

// middleSnake returns the snake (x1, y1)–(x2, y2), a run of matching lines, in the
// middle of a shortest edit script from a[aLo:aHi] to b[bLo:bHi], which neither start
// nor end with a match. Both halves it leaves have fewer edits than the whole.
func (m *myers) middleSnake(aLo, aHi, bLo, bHi int) (x1, y1, x2, y2 int, ok bool) {
	n, k := aHi-aLo, bHi-bLo
	delta := n - k
	odd := delta&1 != 0
	maxD := (n + k + 1) / 2
	off := maxD + 1
	if need := 2*maxD + 3; cap(m.vf) < need {
		m.vf, m.vr = make([]int, need), make([]int, need)
	}
	vf, vr := m.vf[:2*maxD+3], m.vr[:2*maxD+3]
	vf[off+1], vr[off+1] = 0, 0
	a, b := m.a, m.b
	for d := 0; d <= maxD; d++ {
		if m.spent > m.budget {
			return 0, 0, 0, 0, false
		}
		m.spent += 2 * (d + 1)
		// Forward: vf[off+c] is the furthest x on diagonal c = x - y from the start.
		for c := -d; c <= d; c += 2 {
			var x int
			if c == -d || c != d && vf[off+c-1] < vf[off+c+1] {
				x = vf[off+c+1]
			} else {
				x = vf[off+c-1] + 1
			}
			y := x - c
			sx, sy := x, y
			for x < n && y < k && a[aLo+x] == b[bLo+y] {
				x, y = x+1, y+1
			}
			m.spent += x - sx
			vf[off+c] = x
			// The reverse paths of d-1 edits are on diagonals delta - r, |r| <= d-1.
			if r := delta - c; odd && r >= -(d-1) && r <= d-1 && x+vr[off+r] >= n {
				return aLo + sx, bLo + sy, aLo + x, bLo + y, true
			}
		}
		// Reverse: the same from the end, on the reversed files; vr[off+r] is the
		// furthest x counted from the end on reversed diagonal r.
		for r := -d; r <= d; r += 2 {
			var x int
			if r == -d || r != d && vr[off+r-1] < vr[off+r+1] {
				x = vr[off+r+1]
			} else {
				x = vr[off+r-1] + 1
			}
			y := x - r
			sx, sy := x, y
			for x < n && y < k && a[aHi-1-x] == b[bHi-1-y] {
				x, y = x+1, y+1
			}
			m.spent += x - sx
			vr[off+r] = x
			if c := delta - r; !odd && c >= -d && c <= d && x+vf[off+c] >= n {
				return aHi - x, bHi - y, aHi - sx, bHi - sy, true
			}
		}
	}
	return 0, 0, 0, 0, false // not reached: a d-path of maxD edits always meets
}

// anchor is a line that a has once, at a, and b has once, at b.
type anchor struct{ a, b int }

// uniqueAnchors returns the lines that a and b each have exactly once, the longest
// run of them in the same order in both (patience sorting, O(n log n)).
func uniqueAnchors(a, b []int) []anchor {
	ids := 0
	for _, seq := range [][]int{a, b} {
		for _, id := range seq {
			ids = max(ids, id+1)
		}
	}
	inA, inB := make([]int32, ids), make([]int32, ids)
	posB := make([]int, ids)
	for _, id := range a {
		inA[id] = min(inA[id]+1, 2)
	}
	for j, id := range b {
		inB[id] = min(inB[id]+1, 2)
		posB[id] = j
	}
	var pairs []anchor
	for i, id := range a {
		if inA[id] == 1 && inB[id] == 1 {
			pairs = append(pairs, anchor{i, posB[id]})
		}
	}
	// Longest increasing subsequence of the pairs' b positions.
	var tops []int // tops[l]: index in pairs of the smallest end of a run of l+1
	prev := make([]int, len(pairs))
	for i, p := range pairs {
		l := sort.Search(len(tops), func(t int) bool { return pairs[tops[t]].b >= p.b })
		prev[i] = -1
		if l > 0 {
			prev[i] = tops[l-1]
		}
		if l == len(tops) {
			tops = append(tops, i)
		} else {
			tops[l] = i
		}
	}
	if len(tops) == 0 {
		return nil
	}
	out := make([]anchor, len(tops))
	for i, at := len(tops)-1, tops[len(tops)-1]; i >= 0; i, at = i-1, prev[at] {
		out[i] = pairs[at]
	}
	return out
}

// hunk is a stretch of both files around one or more nearby changes: a[a0:a1] becomes
// b[b0:b1].
type hunk struct{ a0, a1, b0, b1 int }

// hunks groups the edits of e into hunks with ctx lines of context, merging changes
// whose context would touch.
func hunks(e *lineEdits, ctx int) []hunk {
	var out []hunk
	i, j, n, k := 0, 0, len(e.del), len(e.ins)
	for i < n || j < k {
		if i < n && e.del[i] || j < k && e.ins[j] {
			c := hunk{a0: i, b0: j}
			for i < n && e.del[i] {
				i++
			}
			for j < k && e.ins[j] {
				j++
			}
			c.a1, c.b1 = i, j
			if last := len(out) - 1; last >= 0 && c.a0-out[last].a1 <= 2*ctx {
				out[last].a1, out[last].b1 = c.a1, c.b1
			} else {
				out = append(out, c)
			}
			continue
		}
		i, j = i+1, j+1
	}
	for x := range out {
		h := &out[x]
		before := min(ctx, h.a0, h.b0)
		after := min(ctx, n-h.a1, k-h.b1)
		h.a0, h.b0, h.a1, h.b1 = h.a0-before, h.b0-before, h.a1+after, h.b1+after
	}
	return out
}

// diffWriter writes the lines of a diff up to a limit, then counts those it leaves out.
type diffWriter struct {
	out         strings.Builder
	shown, left int
	limit       int
}

func (w *diffWriter) line(s string) {
	if w.shown == w.limit {
		w.left++
		return
	}
	w.out.WriteString(s + "\n")
	w.shown++
}

// text writes a line of the files, prefixed, cut to maxLineShown bytes at a rune
// boundary, and followed by the no-newline note when it is a last line without one.
func (w *diffWriter) text(prefix, s string, eol bool) {
	if len(s) > maxLineShown {
		cut := maxLineShown
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + diffEllipsis
	}
	w.line(prefix + s)
	if !eol {
		w.line(noEOL)
	}
}

// shortDiff returns a unified diff of a and b, by lines, in hunks with diffContext lines
// of context, cut to maxDiffLines lines with a line that counts the rest; "" when they are
// equal.
func shortDiff(aName, bName string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	af, bf := splitFile(a), splitFile(b)
	e := diffFiles(af, bf)
	w := &diffWriter{limit: maxDiffLines}
	fmt.Fprintf(&w.out, "--- %s\n+++ %s\n", aName, bName)
	eolA := func(i int) bool { return !af.noEOL || i < len(af.lines)-1 }
	eolB := func(j int) bool { return !bf.noEOL || j < len(bf.lines)-1 }
	for _, h := range hunks(e, diffContext) {
		w.line("@@ -" + hunkRange(h.a0, h.a1) + " +" + hunkRange(h.b0, h.b1) + " @@")
		i, j := h.a0, h.b0
		for i < h.a1 || j < h.b1 {
			switch {
			case i < h.a1 && e.del[i]:
				w.text("-", af.lines[i], eolA(i))
				i++
			case j < h.b1 && e.ins[j]:
				w.text("+", bf.lines[j], eolB(j))
				j++
			default:
				w.text(" ", af.lines[i], eolA(i))
				i, j = i+1, j+1
			}
		}
	}
	if w.left > 0 {
		fmt.Fprintf(&w.out, "… %d more lines\n", w.left)
	}
	return w.out.String()
}

// hunkRange spells lines [lo, hi) as a unified diff's hunk header does: "5,3", "5" for
// one line, "4,0" for none after line 4.
func hunkRange(lo, hi int) string {
	switch hi - lo {
	case 0:
		return fmt.Sprintf("%d,0", lo)
	case 1:
		return fmt.Sprint(lo + 1)
	}
	return fmt.Sprintf("%d,%d", lo+1, hi-lo)
}
