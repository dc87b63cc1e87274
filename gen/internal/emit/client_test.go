package emit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrygen/retrygen/gen/model"
)

// The fixed surface declares exactly what model.FixedNames reserves, so the naming pass
// keeps spec names clear of all of it, and it uses only the imports reserved there. An
// OAuth 2 scheme adds its options, named from it, and the types of the fixed surface
// that only such schemes use (OAuth2Token, OAuth2TokenSource).
func TestFixedNamesMatchTheSurface(t *testing.T) {
	scheme := &model.SecurityScheme{Key: "o", Kind: "oauth2", Option: "WithO", TokenSourceOption: "WithOTokenSource"}
	src, err := Generate(&model.API{Title: "Empty", SecuritySchemes: []*model.SecurityScheme{scheme}}, Options{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "client_gen.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var names, members []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			// Only Client's methods share a namespace with the spec's operations; the
			// methods of Nullable, Date or EventStream cannot clash with anything.
			if d.Recv != nil {
				if recv := d.Recv.List[0].Type; types.ExprString(recv) == "*Client" || types.ExprString(recv) == "Client" {
					members = append(members, d.Name.Name)
				}
			} else if d.Name.Name != scheme.Option && d.Name.Name != scheme.TokenSourceOption {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
					if st, ok := s.Type.(*ast.StructType); ok && s.Name.Name == "Client" {
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								members = append(members, n.Name)
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	fixed := model.FixedNames()
	slices.Sort(names)
	slices.Sort(members)
	slices.Sort(fixed.Package)
	slices.Sort(fixed.ClientMembers)
	if diff := cmp.Diff(fixed.Package, names); diff != "" {
		t.Errorf("model.FixedNames().Package and the declared names differ (-reserved +declared):\n%s", diff)
	}
	if diff := cmp.Diff(fixed.ClientMembers, members); diff != "" {
		t.Errorf("model.FixedNames().ClientMembers and Client's members differ (-reserved +declared):\n%s", diff)
	}
	for _, is := range f.Imports {
		path, _ := strconv.Unquote(is.Path.Value)
		name := path[strings.LastIndexByte(path, '/')+1:]
		if !slices.Contains(fixed.Imports, name) {
			t.Errorf("import %s is not reserved in model.FixedNames().Imports", path)
		}
	}
	for path, name := range importNames {
		// net/url is named only in signatures (a redirect's *url.URL), where parameters
		// are not in scope, so a parameter called url keeps its name.
		// runtime/webhook is named only at the package level, in declarations of the
		// fixed webhook surface whose parameters are fixed names: no spec name is a local
		// there (the naming pass keeps a package-level "webhook" free).
		if path == urlPath || path == webhookPath {
			continue
		}
		if !slices.Contains(fixed.Imports, name) {
			t.Errorf("%s may be imported, but %s is not reserved", path, name)
		}
	}
}

// The surface of a client with webhooks declares what model.FixedNames reserves for it,
// besides the fixed surface and what each webhook is named.
func TestWebhookNamesMatchTheSurface(t *testing.T) {
	hook := &model.Webhook{Name: "pet_born", Method: "POST", GoName: "PetBorn", HandlerMethod: "OnPetBorn",
		HandlerFunc: "PetBornHandler", RouteVar: "webhookPetBorn", SignatureVar: "webhookSignature",
		Payload: model.BuiltinType(model.Any), Signature: &model.WebhookSignature{Scheme: "stripe"}}
	plain, err := Generate(&model.API{Title: "Empty"}, Options{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	src, err := Generate(&model.API{Title: "Hooks", Webhooks: []*model.Webhook{hook}}, Options{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]bool{}
	for _, n := range declaredNames(t, plain) {
		before[n] = true
	}
	var added []string
	for _, n := range declaredNames(t, src) {
		if !before[n] {
			added = append(added, n)
		}
	}
	want := append(model.FixedNames().Webhook, hook.HandlerFunc, hook.RouteVar, hook.SignatureVar)
	slices.Sort(want)
	slices.Sort(added)
	if diff := cmp.Diff(want, added); diff != "" {
		t.Errorf("model.FixedNames().Webhook and the webhook surface differ (-reserved +declared):\n%s", diff)
	}
}

// declaredNames lists the package-level names src declares, methods left out.
func declaredNames(t *testing.T, src []byte) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "client_gen.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}

func TestGroupImports(t *testing.T) {
	src := []byte("package p\n\nimport (\n \"github.com/retrygen/retrygen/runtime/wire\"\n \"time\"\n \"context\"\n x \"github.com/retrygen/retrygen/runtime\"\n)\n\nvar _ = 1\n")
	got, err := groupImports(src)
	if err != nil {
		t.Fatal(err)
	}
	want := "package p\n\nimport (\n\t\"context\"\n\t\"time\"\n\n\tx \"github.com/retrygen/retrygen/runtime\"\n\t\"github.com/retrygen/retrygen/runtime/wire\"\n)\n\nvar _ = 1\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("groupImports (-want +got):\n%s", diff)
	}
	std := []byte("package p\n\nimport (\n\t\"time\"\n\t\"context\"\n)\n")
	if got, err := groupImports(std); err != nil || string(got) != "package p\n\nimport (\n\t\"context\"\n\t\"time\"\n)\n" {
		t.Errorf("standard library only: %q, %v", got, err)
	}
}

// A generated file imports only the standard library and this module's runtime
// packages, in two groups, and refers to the runtime's version constant.
func TestGeneratedImports(t *testing.T) {
	src, err := Generate(&model.API{Title: "Empty"}, Options{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "client_gen.go", src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, is := range f.Imports {
		path, _ := strconv.Unquote(is.Path.Value)
		if strings.Contains(path, ".") && path != runtimePath && path != wirePath {
			t.Errorf("imports %s", path)
		}
	}
	if !strings.Contains(string(src), "\"time\"\n\n\t\"github.com/retrygen/retrygen/runtime\"\n") {
		t.Errorf("the standard library and the runtime are not two groups:\n%s", src[:300])
	}
	if !strings.Contains(string(src), "const _ = runtime."+versionConst+"\n") {
		t.Errorf("no reference to runtime.%s", versionConst)
	}
}
