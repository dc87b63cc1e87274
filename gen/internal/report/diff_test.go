package report

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/diff"
	"github.com/retrygen/retrygen/gen/model"
)

// diffDir holds one folder per kind of change: old.yaml, new.yaml and the expected report
// as want.txt (table), want.md (Markdown) and want.json.
const diffDir = "../../../testdata/diff"

func TestDiffGolden(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join(diffDir, "*", "old.yaml"))
	if len(cases) == 0 {
		t.Fatal("no cases in " + diffDir)
	}
	for _, oldPath := range cases {
		dir := filepath.Dir(oldPath)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			// The paths as the user would name them from that folder.
			old := DiffSide{Path: "old.yaml", API: loadAPI(t, oldPath)}
			new := DiffSide{Path: "new.yaml", API: loadAPI(t, filepath.Join(dir, "new.yaml"))}
			r := diff.Compare(old.API, new.API)
			for ext, write := range map[string]func(*bytes.Buffer) error{
				".txt":  func(b *bytes.Buffer) error { return WriteDiffTable(b, old, new, r) },
				".md":   func(b *bytes.Buffer) error { return WriteDiffMarkdown(b, old, new, r) },
				".json": func(b *bytes.Buffer) error { return WriteDiffJSON(b, old, new, r) },
			} {
				var buf bytes.Buffer
				if err := write(&buf); err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join(dir, "want"+ext), buf.Bytes())
			}
		})
	}
}

// TestDiffTableWidth checks that every line of the terminal report fits 100 columns, and
// that no control character of the spec reaches the terminal.
func TestDiffTableWidth(t *testing.T) {
	for _, c := range []string{"policy", "methods", "hostile"} {
		dir := filepath.Join(diffDir, c)
		old := DiffSide{Path: "old.yaml", API: loadAPI(t, filepath.Join(dir, "old.yaml"))}
		new := DiffSide{Path: "new.yaml", API: loadAPI(t, filepath.Join(dir, "new.yaml"))}
		var buf bytes.Buffer
		if err := WriteDiffTable(&buf, old, new, diff.Compare(old.API, new.API)); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(buf.String(), "\n") {
			if n := utf8.RuneCountInString(line); n > diffWidth {
				t.Errorf("%s: line of %d columns: %q", c, n, line)
			}
			if strings.ContainsAny(line, "\x1b\r\t") {
				t.Errorf("%s: control character in %q", c, line)
			}
		}
	}
}

// TestDiffJSONKeys checks the keys docs/cli.md promises to scripts.
func TestDiffJSONKeys(t *testing.T) {
	dir := filepath.Join(diffDir, "methods")
	old := DiffSide{Path: "old.yaml", API: loadAPI(t, filepath.Join(dir, "old.yaml"))}
	new := DiffSide{Path: "new.yaml", API: loadAPI(t, filepath.Join(dir, "new.yaml"))}
	var buf bytes.Buffer
	if err := WriteDiffJSON(&buf, old, new, diff.Compare(old.API, new.API)); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Old, New map[string]any
		Counts   map[string]int
		Changes  []map[string]any
	}
	var top map[string]any
	if err := json.Unmarshal(buf.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(maps.Keys(top)), []string{"changes", "counts", "new", "old"}; !slices.Equal(got, want) {
		t.Errorf("top-level keys %v, want %v", got, want)
	}
	if got, want := slices.Sorted(maps.Keys(out.Old)), []string{"path", "title", "version"}; !slices.Equal(got, want) {
		t.Errorf("old keys %v, want %v", got, want)
	}
	if got, want := slices.Sorted(maps.Keys(out.Counts)), []string{"breaking", "changed", "compatible", "loosened", "tightened"}; !slices.Equal(got, want) {
		t.Errorf("counts keys %v, want %v", got, want)
	}
	if len(out.Changes) == 0 {
		t.Fatal("no changes")
	}
	want := []string{"area", "change", "element", "level", "name", "new", "note", "old", "operation"}
	for _, c := range out.Changes {
		if got := slices.Sorted(maps.Keys(c)); !slices.Equal(got, want) {
			t.Fatalf("change keys %v, want %v", got, want)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"one two three four", 9, []string{"one two", "  three", "  four"}},
		{"abcdefghijkl", 5, []string{"abcde", "  fgh", "  ijk", "  l"}},
		{"ééééé ééééé", 6, []string{"ééééé", "  éééé", "  é"}},
	} {
		if got := wrap(tc.in, tc.width, 2); !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}

// TestDiffMarkdownFolds checks that a long group of compatible changes is folded into a
// <details> element, a long group of breaking ones not, and that the same change to
// several operations is one row listing them.
func TestDiffMarkdownFolds(t *testing.T) {
	r := &diff.Result{}
	for i := range collapseOver + 1 {
		name := "T" + strconv.Itoa(i)
		r.Changes = append(r.Changes,
			diff.Change{Area: diff.API, Level: diff.Breaking, Element: diff.ElemType, Name: name, Change: diff.Removed, Old: "struct"})
	}
	for i := range collapseOver + 1 {
		r.Changes = append(r.Changes,
			diff.Change{Area: diff.API, Level: diff.Compatible, Element: diff.ElemType, Name: "N" + strconv.Itoa(i), Change: diff.Added, New: "struct"})
	}
	for _, op := range []string{"GET /a (a)", "GET /b (b)", "GET /c (c)", "GET /d (d)"} {
		r.Changes = append(r.Changes,
			diff.Change{Area: diff.API, Level: diff.Compatible, Operation: op, Element: diff.ElemError, Name: "429", Change: diff.Added, New: "Problem"})
	}
	side := DiffSide{Path: "x.yaml", API: &model.API{Title: "X"}}
	var md bytes.Buffer
	if err := WriteDiffMarkdown(&md, side, side, r); err != nil {
		t.Fatal(err)
	}
	breaking, compatible, _ := strings.Cut(md.String(), "#### Go API, compatible")
	if strings.Contains(breaking, "<details>") {
		t.Errorf("breaking changes folded:\n%s", breaking)
	}
	if !strings.Contains(compatible, "<details><summary>15 changes</summary>") {
		t.Errorf("compatible changes not folded:\n%s", compatible)
	}
	want := "| <details><summary>4 operations</summary>GET /a (a)<br>GET /b (b)<br>GET /c (c)<br>GET /d (d)</details> | error response 429 | added |  | Problem |  |"
	if !strings.Contains(compatible, want) {
		t.Errorf("no row %q in:\n%s", want, compatible)
	}
	var txt bytes.Buffer
	if err := WriteDiffTable(&txt, side, side, r); err != nil {
		t.Fatal(err)
	}
	want = "  4 operations: error response 429 added: Problem\n      GET /a (a), GET /b (b), GET /c (c) and 1 more\n"
	if !strings.Contains(txt.String(), want) {
		t.Errorf("no row %q in:\n%s", want, txt.String())
	}
}
