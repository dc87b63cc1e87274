package emit

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// usedImports, which a split client's parts take their imports from, finds in the
// declarations of each golden client (the file less its import block) exactly the imports
// jennifer wrote for them.
func TestUsedImportsAgreesWithJennifer(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "golden", "*", "want.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden clients: %v", err)
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, is := range f.Imports {
			p, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, p)
		}
		var decls [][]byte
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				continue
			}
			decls = append(decls, src[fset.Position(d.Pos()).Offset:fset.Position(d.End()).Offset])
		}
		got := usedImports(decls)
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: imports found in the declarations differ from the file's (-file +found):\n%s", path, diff)
		}
	}
}

// scannedImports is usedImports read with go/scanner, token by token: what packageUses
// must agree with.
func scannedImports(decls [][]byte) []string {
	used := map[string]bool{}
	for _, d := range decls {
		var s scanner.Scanner
		fset := token.NewFileSet()
		s.Init(fset.AddFile("", -1, len(d)), d, nil, 0)
		prev, name := token.ILLEGAL, ""
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.PERIOD && name != "" {
				used[importPaths[name]] = true
			}
			name = ""
			if tok == token.IDENT && prev != token.PERIOD {
				if _, ok := importPaths[lit]; ok {
					name = lit
				}
			}
			prev = tok
		}
	}
	paths := make([]string, 0, len(used))
	for p := range used {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// packageUseCases are Go sources where a package name is, or only seems, used.
var packageUseCases = []string{
	"x := json.Marshal(v)",
	"x := a.json.Marshal(v)",
	"x := a.\n\tjson.Marshal(v)",
	"x := a. /* c */ json.Marshal(v)",
	"x := json /* c */ .Marshal(v)",
	"x := json /* c\n */ .Marshal(v)",
	"x := json // c\n.Marshal(v)",
	"x := json\n.Marshal(v)",
	"x := 1.\nvar y = json.X",
	"x := 1.5; y := .5 + http.StatusOK",
	"x := 0x1p-2 + 0X1F + 1e+5i; _ = io.EOF",
	"x := f(json...); _ = \"time.Now\"; _ = `url.URL\n` + 'x' + '\\''",
	"// time.Now\n/* slog.Info */ x := \"\\\"io.EOF\"",
	"x := ключ.json + 名前; _ = context.TODO",
	"type T struct { X iter.Seq[int] `json:\"x\"` }",
	"x := wire",
	"x := runtime.",
}

func TestPackageUsesAgreesWithScanner(t *testing.T) {
	for _, src := range packageUseCases {
		want := scannedImports([][]byte{[]byte(src)})
		if got := usedImports([][]byte{[]byte(src)}); !slices.Equal(got, want) {
			t.Errorf("%q: found %v, go/scanner finds %v", src, got, want)
		}
	}
}

// FuzzPackageUses holds packageUses to go/scanner on Go declarations.
func FuzzPackageUses(f *testing.F) {
	for _, src := range packageUseCases {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+src+"\n}", parser.SkipObjectResolution); err != nil {
			return
		}
		want := scannedImports([][]byte{[]byte(src)})
		if got := usedImports([][]byte{[]byte(src)}); !slices.Equal(got, want) {
			t.Errorf("%q: found %v, go/scanner finds %v", src, got, want)
		}
	})
}
