package gen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
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

// runtimeAliases are the generated aliases of runtime types, by their runtime names.
var runtimeAliases = map[string]string{
	"Error": "APIError", "PageError": "PageError", "EventError": "EventError", "Policy": "Policy", "RetryEvent": "RetryEvent",
	"RateLimit": "RateLimitStatus",
}

// method is a method's line of an alias's comment: "func (e *APIError) Error() string"
// gives "*APIError" and "Error() string".
var method = regexp.MustCompile(`^func \(\w+ (\*?\w+)\) (.*)$`)

// go doc shows an alias's comment alone: the comment of each alias of a runtime type lists
// every exported field of the runtime type with its type, and every exported method with
// its signature, as Go lines that go doc shows as written, and nothing the type lacks.
func TestRuntimeAliasesListFieldsAndMethods(t *testing.T) {
	fields, methods := runtimeDeclarations(t)
	src, err := os.ReadFile(filepath.Join(goldenDir, "basics", "want.go"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "want.go", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		s := g.Specs[0].(*ast.TypeSpec)
		sel, ok := s.Type.(*ast.SelectorExpr)
		if !s.Assign.IsValid() || !ok || types.ExprString(sel.X) != "runtime" || runtimeAliases[sel.Sel.Name] != s.Name.Name {
			continue
		}
		seen++
		listed := map[string]string{} // field or method name: its line of the comment
		for _, line := range strings.Split(g.Doc.Text(), "\n") {
			code, ok := strings.CutPrefix(line, "\t")
			if !ok || code == "" {
				continue
			}
			code, _, _ = strings.Cut(code, " //")
			code = strings.TrimSpace(code)
			if m := method.FindStringSubmatch(code); m != nil {
				name, _, _ := strings.Cut(m[2], "(")
				listed[name] = m[1] + strings.Join(strings.Fields(m[2]), " ")
				continue
			}
			words := strings.Fields(code)
			listed[words[0]] = strings.Join(words, " ")
		}
		want := map[string]string{}
		for name, typ := range fields[sel.Sel.Name] {
			want[name] = name + " " + typ
		}
		for name, sig := range methods[sel.Sel.Name] {
			want[name] = sig
		}
		for name, line := range want {
			if got := listed[name]; got != line {
				t.Errorf("%s: the comment lists %s as %q, runtime.%s declares %q", s.Name.Name, name, got, sel.Sel.Name, line)
			}
		}
		for name := range listed {
			if _, ok := want[name]; !ok {
				t.Errorf("%s: the comment lists %s, which runtime.%s does not declare", s.Name.Name, name, sel.Sel.Name)
			}
		}
	}
	if seen != len(runtimeAliases) {
		t.Errorf("found %d aliases of runtime types, want %d", seen, len(runtimeAliases))
	}
}

// runtimeDeclarations reads the runtime package's source: the exported fields of each
// struct of runtimeAliases with their types, and its exported methods as "Name(params)
// results", each type the runtime declares written runtime.Name, or its alias when the
// generated package has one.
func runtimeDeclarations(t *testing.T) (fields, methods map[string]map[string]string) {
	t.Helper()
	dir := filepath.Join("..", "runtime")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	declared := map[string]bool{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					declared[s.(*ast.TypeSpec).Name.Name] = true
				}
			}
		}
	}
	qualify := func(e ast.Expr, self string) string {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && declared[id.Name] {
				if alias := runtimeAliases[id.Name]; alias != "" {
					id.Name = alias // the receiver's own type, or another the package re-exports
				} else {
					id.Name = "runtime." + id.Name
				}
			}
			return true
		})
		return types.ExprString(e)
	}
	fields, methods = map[string]map[string]string{}, map[string]map[string]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || runtimeAliases[ts.Name.Name] == "" {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					fields[ts.Name.Name] = map[string]string{}
					for _, fl := range st.Fields.List {
						for _, n := range fl.Names {
							if n.IsExported() {
								fields[ts.Name.Name][n.Name] = qualify(fl.Type, "")
							}
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || !d.Name.IsExported() {
					continue
				}
				recv := strings.TrimPrefix(types.ExprString(d.Recv.List[0].Type), "*")
				if runtimeAliases[recv] == "" {
					continue
				}
				if methods[recv] == nil {
					methods[recv] = map[string]string{}
				}
				sig := qualify(d.Type, recv) // "func(v any) error"
				methods[recv][d.Name.Name] = qualify(d.Recv.List[0].Type, recv) + d.Name.Name + strings.TrimPrefix(sig, "func")
			}
		}
	}
	return fields, methods
}
