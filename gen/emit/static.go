package emit

import (
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strconv"
	"sync"
)

// The fixed part of every generated client lives in internal/clientcode, a real package
// that is compiled and tested on its own. Each generated file gets the declarations of
// these files, verbatim, after its own code; their imports join the file's import block.
//
//go:embed internal/clientcode/client.go internal/clientcode/request.go internal/clientcode/json.go
var clientcodeFS embed.FS

// clientcodeFiles are the files of the fixed part: the first is written before the
// generated code, the others after it.
var clientcodeFiles = []string{
	"internal/clientcode/client.go",
	"internal/clientcode/request.go",
	"internal/clientcode/json.go",
}

// staticCode is the parsed fixed part.
type staticCode struct {
	head  string   // client.go's declarations: Client, NewClient, options, re-exports
	tail  string   // the other files' declarations: the helpers methods call
	paths []string // import paths the declarations use, sorted

	// Names the fixed part declares, which generated names must avoid.
	names         []string // package-level identifiers, exported and not
	clientMembers []string // fields and methods of Client
	importNames   []string // the package names of paths
}

var loadStatic = sync.OnceValues(parseStatic)

func parseStatic() (*staticCode, error) {
	sc := &staticCode{}
	seenPath := map[string]bool{}
	fset := token.NewFileSet()
	for i, name := range clientcodeFiles {
		src, err := clientcodeFS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return nil, err
			}
			if imp.Name != nil {
				return nil, fmt.Errorf("%s: renamed import %s is not supported", name, p)
			}
			if !seenPath[p] {
				seenPath[p] = true
				sc.paths = append(sc.paths, p)
				sc.importNames = append(sc.importNames, path.Base(p))
			}
		}
		// The declarations start after the last import declaration.
		var start token.Pos
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				start = gd.End()
			}
		}
		body := string(src[fset.Position(start).Offset:])
		if i == 0 {
			sc.head = body
		} else {
			sc.tail += body
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					sc.names = append(sc.names, d.Name.Name)
				} else if recvName(d.Recv) == "Client" {
					sc.clientMembers = append(sc.clientMembers, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						sc.names = append(sc.names, s.Name.Name)
						if st, ok := s.Type.(*ast.StructType); ok && s.Name.Name == "Client" {
							for _, f := range st.Fields.List {
								for _, n := range f.Names {
									sc.clientMembers = append(sc.clientMembers, n.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							sc.names = append(sc.names, n.Name)
						}
					}
				}
			}
		}
	}
	slices.Sort(sc.paths)
	slices.Sort(sc.names)
	slices.Sort(sc.clientMembers)
	slices.Sort(sc.importNames)
	return sc, nil
}

func recvName(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) == 0 {
		return ""
	}
	t := fl.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// Reserved lists the identifiers every generated file declares or imports by itself, so
// that the naming pass keeps spec-derived names clear of them.
type Reserved struct {
	// Package are the package-level identifiers of the fixed code, e.g. "Client",
	// "NewClient", "WithHeader", "newRequest".
	Package []string
	// ClientMembers are the fields and methods of Client, e.g. "engine", "do".
	ClientMembers []string
	// Imports are the package names generated code may refer to, e.g. "http", "runtime".
	Imports []string
	// Locals are the fixed local names of generated methods, e.g. "ctx", "params".
	Locals []string
	// StructMethods are method names generated types may carry, which their fields and
	// variants must not take.
	StructMethods []string
}

// Locals of generated methods: the receiver, fixed arguments and variables.
var fixedLocals = []string{"c", "ctx", "params", "body", "opts", "r", "resp", "err", "out", "w"}

// ReservedNames returns the identifiers of the fixed part of generated code.
func ReservedNames() (Reserved, error) {
	sc, err := loadStatic()
	if err != nil {
		return Reserved{}, err
	}
	imports := slices.Clone(sc.importNames)
	imports = append(imports, "time") // policies and time.Time fields
	slices.Sort(imports)
	return Reserved{
		Package:       slices.Clone(sc.names),
		ClientMembers: slices.Clone(sc.clientMembers),
		Imports:       slices.Compact(imports),
		Locals:        slices.Clone(fixedLocals),
		StructMethods: []string{"MarshalJSON", "UnmarshalJSON", "Raw", "Error"},
	}, nil
}
