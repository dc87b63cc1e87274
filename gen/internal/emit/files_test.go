package emit

import (
	"go/ast"
	"go/parser"
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
