package gen

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrygen/retrygen/gen/model"
)

// A client over the split size comes in parts that hold, between them, exactly the
// declarations of the single file, each part formatted, headed like it, and under the
// size; the first part holds the client. (TestGoldenCompiles builds and tests split
// clients.)
func TestSplitClientHoldsTheSingleFile(t *testing.T) {
	for _, name := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			spec, err := Load(filepath.Join(goldenDir, name, "spec.yaml"), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			opts := GenerateOptions{Package: name, Command: "spec.yaml"}
			single, err := Generate(spec, opts)
			if err != nil {
				t.Fatal(err)
			}
			limit := len(single) / 3
			parts, err := GenerateFiles(spec, opts, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(parts) < 2 {
				t.Fatalf("%d parts of a %d-byte client split above %d bytes, want 2 or more", len(parts), len(single), limit)
			}
			header, _, _ := bytes.Cut(single, []byte("\n"))
			var got []string
			for i, p := range parts {
				if p.Part != i+1 {
					t.Errorf("file %d is part %d", i, p.Part)
				}
				if first, _, _ := bytes.Cut(p.Source, []byte("\n")); !bytes.Equal(first, header) {
					t.Errorf("part %d starts with %q, want %q", p.Part, first, header)
				}
				if again, err := format.Source(p.Source); err != nil || !bytes.Equal(again, p.Source) {
					t.Errorf("part %d is not gofmt-clean (%v)", p.Part, err)
				}
				decls := declarations(t, p.Source)
				// The first part holds the client's fixed surface, whatever its size.
				if p.Part > 1 && len(p.Source) > limit && len(decls) > 1 {
					t.Errorf("part %d holds %d bytes in %d declarations, over %d", p.Part, len(p.Source), len(decls), limit)
				}
				got = append(got, decls...)
			}
			if !strings.Contains(string(parts[0].Source), "func NewClient(") {
				t.Error("the first part does not hold NewClient")
			}
			for _, m := range regexp.MustCompile(`(?m)^func \(c \*Client\) (\w+)\(`).FindAllStringSubmatch(string(parts[0].Source), -1) {
				if !slices.Contains(model.FixedNames().ClientMembers, m[1]) {
					t.Errorf("the first part holds an operation's method, %s", m[1])
				}
			}
			want := declarations(t, single)
			slices.Sort(got)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the parts' declarations differ from the single file's (-want +got):\n%s", diff)
			}
		})
	}
}

// declarations returns the source of each top-level declaration of a file but its
// imports, doc comments included.
func declarations(t *testing.T, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		start, end := d.Pos(), d.End()
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		case *ast.FuncDecl:
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		}
		out = append(out, string(src[fset.Position(start).Offset:fset.Position(end).Offset]))
	}
	return out
}

// Adding an operation to a split client changes the part the operation goes to, and the
// first part for the policy its methods share, and no other part.
func TestSplitClientAddedOperationTouchesOnePart(t *testing.T) {
	spec, added := petstoreAndOneMore(t)
	dir := t.TempDir()
	split := func(name string, src []byte) []File {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		parts, err := GenerateFiles(s, GenerateOptions{Package: "client", Command: "spec.yaml"}, 8<<10)
		if err != nil {
			t.Fatal(err)
		}
		return parts
	}
	before, after := split("before.yaml", spec), split("after.yaml", added)
	if len(before) < 3 || len(before) != len(after) {
		t.Fatalf("%d parts before the new operation, %d after; want the same number, 3 or more", len(before), len(after))
	}
	var changed []int
	for i := range before {
		if !bytes.Equal(before[i].Source, after[i].Source) {
			changed = append(changed, before[i].Part)
		}
	}
	if len(changed) == 0 || len(changed) > 2 || len(changed) == 2 && changed[0] != 1 {
		t.Errorf("parts %v changed, want the new operation's part and at most the first", changed)
	}
	for _, p := range after {
		if strings.Contains(string(p.Source), "func (c *Client) GetAaa(") && !slices.Contains(changed, p.Part) {
			t.Errorf("GetAaa is in part %d, which did not change", p.Part)
		}
	}
}
