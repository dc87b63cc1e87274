// Package source locates places in a spec's files and reports problems at them: positions
// (file:line:col), located errors and the list of every problem of one run.
package source

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pos is a position in a spec file. Line and Col count from 1; a zero Line means the
// position is unknown and only File (if any) is reported.
type Pos struct {
	File string // as the user named it, e.g. "api.yaml" or "schemas/pet.yaml"
	Line int
	Col  int
}

// IsValid reports whether p names a line.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String formats p as "file:line:col", "file:line", "file" or "".
func (p Pos) String() string {
	s := p.File
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
		if p.Col > 0 {
			s += ":" + strconv.Itoa(p.Col)
		}
	}
	return s
}

// Error is one problem found in a spec, located as precisely as the loader allows.
// It formats like a compiler error:
//
//	api.yaml:12:5: POST /orders (createOrder): x-retry.maxAttempts must be >= 1, got 0
//		fix: ...
//
// Op names the operation ("POST /orders (createOrder)"); when the problem is not inside
// an operation, Pointer names the place instead as a JSON pointer ("#/x-retry").
type Error struct {
	Pos     Pos
	Op      string // e.g. "POST /orders (createOrder)"; "" outside operations
	Pointer string // e.g. "#/paths/~1orders/post/x-retry"; may be set along with Op
	Msg     string // lowercase, no trailing period, e.g. "x-retry.maxAttempts must be >= 1, got 0"
	Fix     string // a hint on how to fix it, or ""
}

func (e *Error) Error() string {
	var b strings.Builder
	if s := e.Pos.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	switch {
	case e.Op != "":
		b.WriteString(inert(e.Op))
		b.WriteString(": ")
	case e.Pointer != "":
		b.WriteString(inert(e.Pointer))
		b.WriteString(": ")
	}
	b.WriteString(inert(e.Msg))
	if e.Fix != "" {
		b.WriteString("\n\tfix: ")
		b.WriteString(inert(e.Fix))
	}
	return b.String()
}

// inert escapes the control and bidirectional formatting characters of spec text in a
// message ("\x1b", "\n", "\u202e"), so that a spec cannot forge message lines or hide
// text on a terminal.
func inert(s string) string {
	if !strings.ContainsFunc(s, escapedInMessages) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !escapedInMessages(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func escapedInMessages(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// OpName names an operation in messages: "POST /orders (createOrder)", or "POST /orders"
// when it has no operationId.
func OpName(method, path, operationID string) string {
	s := strings.ToUpper(method) + " " + path
	if operationID != "" {
		s += " (" + operationID + ")"
	}
	return s
}

// MaxErrorsShown is how many errors ErrorList.Error lists before summarising the rest.
const MaxErrorsShown = 10

// ErrorList is every problem found in one run. Err sorts it by position; Error prints
// at most MaxErrorsShown of them, one per line, and a count of the rest.
type ErrorList []*Error

// Add appends an error.
func (l *ErrorList) Add(e *Error) { *l = append(*l, e) }

// Sort orders the list by file, line, column, then text, and drops exact duplicates.
func (l *ErrorList) Sort() {
	slices.SortStableFunc(*l, func(a, b *Error) int {
		return cmp.Or(
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
			cmp.Compare(a.Error(), b.Error()),
		)
	})
	*l = slices.CompactFunc(*l, func(a, b *Error) bool { return a.Error() == b.Error() })
}

// Err returns the sorted list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i == MaxErrorsShown {
			fmt.Fprintf(&b, "\n(and %d more errors)", len(l)-MaxErrorsShown)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap gives errors.As and errors.Is access to every error in the list.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// MaxQuotedBytes is how much of a value Quote shows.
const MaxQuotedBytes = 200

// Quote quotes a value of the spec for a message as %q does, cut after MaxQuotedBytes
// bytes with the length it has: a $ref of a megabyte is not printed whole.
func Quote(s string) string {
	if len(s) <= MaxQuotedBytes {
		return strconv.Quote(s)
	}
	cut := MaxQuotedBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("... (%d bytes)", len(s))
}
