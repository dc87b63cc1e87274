package gen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What go doc shows of a generated package names nothing of runtime/wire, which is for
// generated code only: no exported function, method, type, field or variable has a wire
// type in its signature or its value, and no doc comment mentions one.
func TestExportedAPINamesNoWire(t *testing.T) {
	for _, name := range goldenCases(t) {
		path := filepath.Join(goldenDir, name, "want.go")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, n ast.Node, doc *ast.CommentGroup) {
			if n != nil && strings.Contains(types.ExprString(n.(ast.Expr)), "wire.") {
				t.Errorf("%s: %s is %s", name, what, types.ExprString(n.(ast.Expr)))
			}
			if doc != nil && strings.Contains(doc.Text(), "wire.") {
				t.Errorf("%s: the doc of %s names wire: %s", name, what, doc.Text())
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || ast.IsExported(strings.TrimLeft(types.ExprString(d.Recv.List[0].Type), "*"))) {
					check("func "+d.Name.Name, d.Type, d.Doc)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						doc := s.Doc
						if doc == nil {
							doc = d.Doc
						}
						check("type "+s.Name.Name, nil, doc)
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								if len(fl.Names) > 0 && fl.Names[0].IsExported() {
									check(s.Name.Name+"."+fl.Names[0].Name, fl.Type, fl.Doc)
								}
							}
						} else {
							check("type "+s.Name.Name, s.Type, nil)
						}
					case *ast.ValueSpec:
						for i, n := range s.Names {
							if n.IsExported() && i < len(s.Values) {
								check("var "+n.Name, s.Values[i], s.Doc)
							}
						}
					}
				}
			}
		}
	}
}
