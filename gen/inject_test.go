package gen

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/retrygen/retrygen/internal/longtest"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Payloads that try to leave a comment or a string, inject code, or hide it
// (docs/reliability.md, D1–D9).
var injectionPayloads = []string{
	"desc\n*/ func init() { os.WriteFile(\"pwn\", nil, 0o644) } /*",
	"/* starts raw",
	"// starts like a comment",
	"*/",
	"\"+os.Exit(1)+\"",
	"'+str(exec(1))+'",
	"`+os.Exit(1)+`",
	"X() {}\nfunc init() {",
	"A struct{}; func init(){}//",
	"a\" json:\"b",
	"\\\"; panic(1); \"",
	"bidi \u202e evil \u2066 isolate \u2069 end",
	"line\u2028separator\u2029paragraph\r\ncrlf\rcr",
	"nul\x00byte \ufeff bom \x7f del \x1b esc",
	"\n\n//go:generate rm -rf /\n//line evil.go:1\n",
	strings.Repeat("long ", 2000),
	"}\n}\nfunc init() {\n",
}

// injectionFields are the places of a spec a payload is put in.
var injectionFields = []string{
	"info.title", "info.version", "info.description", "server.url", "server.description",
	"operation.summary", "operation.description", "operation.operationId", "parameter.description",
	"parameter.name", "schema.title", "schema.description", "property.description", "enum.value",
	"path.key",
}

// injectionSpec is a small spec with payload in field (and "X" elsewhere).
func injectionSpec(field, payload string) map[string]any {
	at := func(f string) string {
		if f == field {
			return payload
		}
		return "X"
	}
	path := "/items/{id}/" + "x"
	if field == "path.key" {
		path = "/items/{id}/" + payload
	}
	return map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]any{"title": at("info.title"), "version": at("info.version"), "description": at("info.description")},
		"servers": []any{map[string]any{"url": "https://" + at("server.url"), "description": at("server.description")}},
		"paths": map[string]any{
			path: map[string]any{"get": map[string]any{
				"operationId": "op" + at("operation.operationId"),
				"summary":     at("operation.summary"),
				"description": at("operation.description"),
				"parameters": []any{
					map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}},
					map[string]any{"name": "q" + at("parameter.name"), "in": "query", "description": at("parameter.description"), "schema": map[string]any{"type": "string"}},
				},
				"responses": map[string]any{"200": map[string]any{
					"description": "ok",
					"content":     map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Item"}}},
				}},
			}},
		},
		"components": map[string]any{"schemas": map[string]any{"Item": map[string]any{
			"type": "object", "title": at("schema.title"), "description": at("schema.description"),
			"properties": map[string]any{
				"p": map[string]any{"type": "string", "description": at("property.description")},
				"e": map[string]any{"type": "string", "enum": []any{at("enum.value")}},
			},
		}}},
	}
}

func generateInjection(t *testing.T, dir, field, payload string) ([]byte, error) {
	t.Helper()
	data, err := json.Marshal(injectionSpec(field, payload))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := Load(path, LoadOptions{})
	if err != nil {
		return nil, err
	}
	return Generate(spec, GenerateOptions{Package: "client", Command: "spec.json"})
}

// astShape lists the kinds of the nodes of a file in order, ignoring comments, the names
// of identifiers and the values of literals.
func astShape(f *ast.File) []string {
	var shape []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil:
			return false
		case *ast.CommentGroup, *ast.Comment:
			return false
		case *ast.BasicLit:
			shape = append(shape, "BasicLit:"+n.Kind.String())
		default:
			shape = append(shape, fmt.Sprintf("%T", n))
		}
		return true
	})
	return shape
}

// stringLits lists the values of the string literals of a file.
func stringLits(t *testing.T, f *ast.File) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("literal %s does not unquote: %v", lit.Value, err)
			}
			out[v] = true
		}
		return true
	})
	return out
}

// TestInjection puts each payload in each field and compares the client with the one
// generated with "X" instead: both must parse, have the same syntax tree (comments, names
// and literal values aside), declare no init function, and carry the payload only in
// literals that give it back exactly, or in comments.
func TestInjection(t *testing.T) {
	longtest.NoRace(t)
	dir := t.TempDir()
	base := map[string]*ast.File{}
	fset := token.NewFileSet()
	for _, field := range injectionFields {
		src, err := generateInjection(t, dir, field, "X")
		if err != nil {
			t.Fatalf("%s with X: %v", field, err)
		}
		f, err := parser.ParseFile(fset, field+".go", src, parser.ParseComments)
		if err != nil {
			t.Fatalf("%s with X: %v", field, err)
		}
		base[field] = f
	}
	for _, field := range injectionFields {
		for i, payload := range injectionPayloads {
			src, err := generateInjection(t, dir, field, payload)
			if err != nil {
				var one *Error
				if errors.As(err, &one) && one.Pos.File != "" {
					continue // a located rejection is an accepted outcome
				}
				t.Errorf("%s payload %d: unlocated error %v", field, i, err)
				continue
			}
			f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
			if err != nil {
				t.Errorf("%s payload %d: generated code does not parse: %v", field, i, err)
				continue
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "init" {
					t.Errorf("%s payload %d: generated code declares init", field, i)
				}
			}
			got, want := astShape(f), astShape(base[field])
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s payload %d: syntax tree differs from the one generated with X (%d nodes, want %d)", field, i, len(got), len(want))
			}
			lits := stringLits(t, f)
			baseLits := stringLits(t, base[field])
			for v := range lits {
				if baseLits[v] {
					continue
				}
				if field == "enum.value" || field == "parameter.name" {
					if want := map[string]string{"enum.value": payload, "parameter.name": "q" + payload}[field]; v != want {
						t.Errorf("%s payload %d: literal %q is not the payload %q", field, i, v, want)
					}
				}
			}
			if field == "enum.value" && !lits[payload] {
				t.Errorf("enum value payload %d: no literal holds it exactly", i)
			}
			for _, c := range f.Comments {
				for _, line := range c.List {
					if strings.HasPrefix(line.Text, "/*") {
						t.Errorf("%s payload %d: block comment %q", field, i, line.Text)
					}
					if strings.ContainsAny(line.Text, "\x00\ufeff\u202e\u2066\u2069\u2028\u2029\r") {
						t.Errorf("%s payload %d: comment keeps a control character: %q", field, i, line.Text)
					}
				}
			}
		}
	}
}
