package source

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestErrorList(t *testing.T) {
	var l ErrorList
	for i := 15; i >= 1; i-- {
		l.Add(&Error{Pos: Pos{"a.yaml", i, 1}, Msg: fmt.Sprintf("problem %d", i)})
	}
	l.Add(&Error{Pos: Pos{"a.yaml", 3, 1}, Msg: "problem 3"}) // an exact duplicate
	err := l.Err()
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 15 {
		t.Fatalf("got %T with %d errors, want 15 after dropping the duplicate", err, len(list))
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != MaxErrorsShown+1 || lines[0] != "a.yaml:1:1: problem 1" || lines[MaxErrorsShown] != "(and 5 more errors)" {
		t.Errorf("got:\n%s", err)
	}
	var one *Error
	if !errors.As(err, &one) || one.Msg != "problem 1" {
		t.Errorf("errors.As reaches %v", one)
	}
	if (ErrorList{}).Err() != nil {
		t.Error("empty list is not nil")
	}
	e := &Error{Pos: Pos{File: "a.yaml"}, Op: OpName("post", "/orders", "createOrder"), Msg: "m", Fix: "f"}
	if got, want := e.Error(), "a.yaml: POST /orders (createOrder): m\n\tfix: f"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A long value is quoted cut short, with its length; a short one whole.
func TestQuoteCutsLongValues(t *testing.T) {
	if got := Quote("#/a"); got != `"#/a"` {
		t.Errorf("Quote(#/a) = %s", got)
	}
	long := "#/" + strings.Repeat("é", MaxQuotedBytes)
	got := Quote(long)
	want := strconv.Quote(long[:MaxQuotedBytes]) + fmt.Sprintf("... (%d bytes)", len(long))
	if got != want {
		t.Errorf("Quote of %d bytes = %s, want %s", len(long), got, want)
	}
}
