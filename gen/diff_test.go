package gen

import (
	"bytes"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	old, err := Load("../testdata/diff/policy/old.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	new, err := Load("../testdata/diff/policy/new.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := Findings{Loosened: 2, Tightened: 2, Changed: 4, Compatible: 1}
	for _, format := range []string{"", "table", "markdown", "json"} {
		var buf bytes.Buffer
		got, err := Diff(&buf, old, new, DiffOptions{Format: format})
		if err != nil {
			t.Fatalf("%q: %v", format, err)
		}
		if got != want {
			t.Errorf("%q: findings %+v, want %+v", format, got, want)
		}
		if !strings.Contains(buf.String(), "placeOrder") {
			t.Errorf("%q: the report does not name placeOrder:\n%s", format, buf.String())
		}
	}
	var buf bytes.Buffer
	if _, err := Diff(&buf, old, new, DiffOptions{Format: "yaml"}); err == nil || buf.Len() > 0 {
		t.Errorf("format yaml: err %v, wrote %q", err, buf.String())
	}
}
