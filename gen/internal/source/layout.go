package source

import (
	"math"
	"slices"
)

// Layout locates a text written from the node trees of several files, such as a
// description with overlays applied, which is what the parsers then read: each mark says
// that the text from a line and column on was written from the node at a place in one of
// the files. Marks are added in the order of the text.
type Layout struct {
	files []string
	index map[string]int32 // of each file in files
	marks []layoutMark
}

// layoutMark is one mark, kept small: a description has hundreds of thousands of nodes.
type layoutMark struct {
	line, col   int32 // in the text
	fline, fcol int32 // in the file
	file        int32 // index in files
}

// Mark records that the text from line:col on was written from the node at place.
// Marks must come in the order of the text.
func (l *Layout) Mark(line, col int, place Pos) {
	i, ok := l.index[place.File]
	if !ok {
		if l.index == nil {
			l.index = map[string]int32{}
		}
		i = int32(len(l.files))
		l.index[place.File] = i
		l.files = append(l.files, place.File)
	}
	l.marks = append(l.marks, layoutMark{
		line: clamp32(line), col: clamp32(col),
		fline: clamp32(place.Line), fcol: clamp32(place.Col), file: i,
	})
}

// Pos returns the place the text at line:col was written from: that of the last mark at
// or before it, or, before every mark, the first file with no line.
func (l *Layout) Pos(line, col int) Pos {
	i, found := slices.BinarySearchFunc(l.marks, [2]int{line, col}, func(m layoutMark, at [2]int) int {
		if c := int(m.line) - at[0]; c != 0 {
			return c
		}
		return int(m.col) - at[1]
	})
	if !found {
		i--
	}
	if i < 0 {
		if len(l.files) == 0 {
			return Pos{}
		}
		return Pos{File: l.files[0]}
	}
	m := l.marks[i]
	return Pos{File: l.files[m.file], Line: int(m.fline), Col: int(m.fcol)}
}

// has reports whether the layout's text was written from the file.
func (l *Layout) has(file string) bool {
	_, ok := l.index[file]
	return ok
}

func clamp32(n int) int32 { return int32(min(max(n, 0), math.MaxInt32)) }
