// Package emit writes the Go source of a client from the model, with jennifer. It reads
// only gen/model: every identifier and every decision about types has been made before.
// Besides what the spec says, a generated file declares only the thin client surface
// (Client, NewClient, the options, aliases of runtime names); everything else it calls is
// in runtime/wire and runtime.
package emit

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/model"
)

// Import paths that generated code refers to by name.
const (
	runtimePath = "github.com/retrygen/retrygen/runtime"
	wirePath    = "github.com/retrygen/retrygen/runtime/wire"
	timePath    = "time"
	jsonPath    = "encoding/json"
	ioPath      = "io"
	httpPath    = "net/http"
	contextPath = "context"
	slogPath    = "log/slog"
	urlPath     = "net/url"
	iterPath    = "iter"
)

// importNames are the package names of the paths above, registered with jennifer so that
// it never writes an alias for them.
var importNames = map[string]string{
	runtimePath: "runtime", wirePath: "wire", timePath: "time", jsonPath: "json",
	ioPath: "io", httpPath: "http", contextPath: "context", slogPath: "slog", urlPath: "url", iterPath: "iter",
}

// versionConst is the runtime constant every generated file refers to, so that a client
// built against a runtime it does not fit fails to compile with this name in the message.
const versionConst = "SupportPackageIsVersion3"

// Options are the settings of one generated file.
type Options struct {
	// Package is the package clause, e.g. "petstore".
	Package string
	// Command is the argument string shown in the header line, e.g.
	// "-package petstore -o client_gen.go petstore.yaml".
	Command string
}

// Generate returns the gofmt-formatted source of the client api describes. Source that
// does not format is a bug of the generator: the error then carries the source around the
// problem with line numbers.
//
// The declarations are built, rendered and formatted in chunks, in parallel, and joined after the
// header, whose import block lists what the chunks use: gofmt formats each top-level
// declaration on its own, so the result is the file gofmt makes of the whole (a golden
// test checks that formatting it again changes nothing).
func Generate(api *model.API, opts Options) ([]byte, error) {
	e := &emitter{api: api}
	items := e.items()
	n := runtime.GOMAXPROCS(0) * 4
	if n > len(items)/16+1 {
		n = len(items)/16 + 1
	}
	chunks := make([][]func() jen.Code, 0, n)
	for i := range n {
		chunks = append(chunks, items[i*len(items)/n:(i+1)*len(items)/n])
	}

	out := make([][]byte, len(chunks))
	paths := make([][]string, len(chunks))
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], paths[i], errs[i] = formatChunk(opts.Package, chunks[i])
		}()
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	f := e.header(opts)
	// Registering the chunks' imports makes jennifer list them in the header.
	for _, p := range slices.Sorted(slices.Values(slices.Concat(paths...))) {
		if _, ok := importNames[p]; !ok {
			// The naming pass keeps spec names clear of the package names in
			// importNames (through model.FixedNames) and of no others.
			return nil, fmt.Errorf("internal error: generated code imports %s, which importNames does not list", p)
		}
		_ = jen.Qual(p, "X").RenderWithFile(io.Discard, f)
	}
	head, err := formatFile(f)
	if err != nil {
		return nil, err
	}
	if head, err = groupImports(head); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Write(bytes.TrimSpace(head))
	for _, b := range out {
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		buf.WriteString("\n\n")
		buf.Write(b)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Source returns the generated file before formatting, in one piece.
func Source(api *model.API, opts Options) ([]byte, error) {
	e := &emitter{api: api}
	f := e.header(opts)
	for _, it := range e.items() {
		f.Add(it())
	}
	src, err := render(f)
	if err != nil {
		return nil, err
	}
	return groupImports(src)
}

// items are the generated declarations, each followed by an empty line: policies,
// methods, error-model pickers, parameter structs, types. Each is built when it is
// called, so that chunks of them are built as well as formatted in parallel.
func (e *emitter) items() []func() jen.Code {
	api := e.api
	var items []func() jen.Code
	add := func(build func() *jen.Statement) {
		items = append(items, func() jen.Code { return build().Line() })
	}
	for _, c := range slices.Concat(e.serverConsts(), e.securityOptions()) {
		items = append(items, func() jen.Code { return c })
	}
	users := map[string][]string{} // in the order of the methods, <Op>Stream after <Op>
	for _, op := range api.Operations {
		ms := op.Methods()
		if sv := op.StreamVariant(); sv != nil {
			ms = slices.Insert(ms, 1, sv)
		}
		for _, m := range ms {
			users[m.PolicyVar] = append(users[m.PolicyVar], m.GoName)
		}
	}
	for _, op := range api.Operations {
		for _, m := range op.Methods() {
			if u := users[m.PolicyVar]; u != nil {
				add(func() *jen.Statement { return e.policy(m, u) })
				delete(users, m.PolicyVar)
			}
		}
	}
	for _, op := range api.Operations {
		add(func() *jen.Statement { return e.method(op) })
		if sv := op.StreamVariant(); sv != nil {
			add(func() *jen.Statement { return e.method(sv) })
		}
		for _, v := range op.Variants {
			add(func() *jen.Statement { return e.method(v) })
		}
		if op.Pagination != nil {
			add(func() *jen.Statement { return e.allMethod(op) })
			add(func() *jen.Statement { return e.pagesMethod(op) })
		}
	}
	for _, set := range api.ErrorSets {
		if set.Only() == nil {
			add(func() *jen.Statement { return e.errorSet(set) })
		}
	}
	for _, op := range api.Operations {
		if op.ParamsType != "" {
			add(func() *jen.Statement { return e.paramsStruct(op) })
		}
		if op.Headers != nil {
			add(func() *jen.Statement { return e.headerSet(op) })
		}
		if op.Pagination != nil {
			add(func() *jen.Statement { return e.pageType(op) })
		}
	}
	for _, d := range api.Decls {
		add(func() *jen.Statement { return e.decl(d) })
	}
	return items
}

// header is the start of the file: the header line, package clause, imports, what the
// client is for, the runtime version check, and the client surface.
func (e *emitter) header(opts Options) *jen.File {
	f := newFile(opts.Package)
	f.HeaderComment("// Code generated by retrygen" + headerArgs(opts.Command) + ". DO NOT EDIT.")
	for _, line := range e.packageDoc(opts.Package) {
		f.PackageComment(line)
	}
	f.Const().Id("_").Op("=").Qual(runtimePath, versionConst)
	f.Line()
	for _, c := range clientSurface(e.api) {
		f.Add(c)
	}
	return f
}

func newFile(pkg string) *jen.File {
	f := jen.NewFilePathName("", pkg)
	f.NoFormat = true
	for path, name := range importNames {
		f.ImportName(path, name)
	}
	return f
}

// groupImports rewrites the import declaration of src as gofmt would write it, in two
// groups: the standard library, then other modules (this module's runtime).
func groupImports(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly)
	if err != nil {
		return nil, &FormatError{Err: err, Source: src}
	}
	var decl *ast.GenDecl
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			if decl != nil {
				return nil, fmt.Errorf("internal error: generated code has two import declarations")
			}
			decl = gd
		}
	}
	if decl == nil {
		return src, nil
	}
	var std, other []string
	for _, s := range decl.Specs {
		is := s.(*ast.ImportSpec)
		path, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			return nil, err
		}
		line := strconv.Quote(path)
		if is.Name != nil {
			line = is.Name.Name + " " + line
		}
		first, _, _ := strings.Cut(path, "/")
		if strings.Contains(first, ".") {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	byPath := func(a, b string) int { return strings.Compare(importPath(a), importPath(b)) }
	slices.SortFunc(std, byPath)
	slices.SortFunc(other, byPath)
	var b bytes.Buffer
	b.WriteString("import (\n")
	for i, group := range [][]string{std, other} {
		if i > 0 && len(std) > 0 && len(other) > 0 {
			b.WriteString("\n")
		}
		for _, line := range group {
			b.WriteString("\t" + line + "\n")
		}
	}
	b.WriteString(")")
	start, end := fset.Position(decl.Pos()).Offset, fset.Position(decl.End()).Offset
	return slices.Concat(src[:start], b.Bytes(), src[end:]), nil
}

// importPath is the quoted path of an import line, for sorting.
func importPath(line string) string {
	return line[strings.IndexByte(line, '"'):]
}

func render(f *jen.File) ([]byte, error) {
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	// jennifer starts every line after the first of a statement with a space. Without it
	// declarations and their doc comments start in column 1, where go/format reformats doc
	// comments as gofmt does, so that the result is stable under gofmt. jennifer writes no
	// literal or comment over several lines, so only layout changes.
	return bytes.ReplaceAll(buf.Bytes(), []byte("\n "), []byte("\n")), nil
}

func formatFile(f *jen.File) ([]byte, error) {
	src, err := render(f)
	if err != nil {
		return nil, err
	}
	out, err := format.Source(src)
	if err != nil {
		return nil, &FormatError{Err: err, Source: src}
	}
	return out, nil
}

// chunkMark opens the declarations of a chunk; no generated name starts with "_".
const chunkMark = "const _retrygenChunk = 0\n"

// formatChunk formats declarations as part of a file and returns them without the
// package clause and imports, and the import paths they use.
func formatChunk(pkg string, items []func() jen.Code) ([]byte, []string, error) {
	f := newFile(pkg)
	f.Id(chunkMark)
	for _, it := range items {
		f.Add(it())
	}
	out, err := formatFile(f)
	if err != nil {
		return nil, nil, err
	}
	_, body, ok := bytes.Cut(out, []byte("\n"+chunkMark))
	if !ok {
		return nil, nil, fmt.Errorf("internal error: chunk marker lost in formatting")
	}
	parsed, err := parser.ParseFile(token.NewFileSet(), "", out, parser.ImportsOnly)
	if err != nil {
		return nil, nil, &FormatError{Err: err, Source: out}
	}
	var paths []string
	for _, is := range parsed.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			return nil, nil, err
		}
		paths = append(paths, p)
	}
	return body, paths, nil
}

// FormatError reports generated source that go/format rejects.
type FormatError struct {
	Err    error
	Source []byte
}

// formatContext is how many lines around the first reported position FormatError shows.
const formatContext = 8

func (e *FormatError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "internal error: generated code does not format: %v", e.Err)
	lines := strings.Split(string(e.Source), "\n")
	show := make([]bool, len(lines))
	var list scanner.ErrorList
	if errors.As(e.Err, &list) && len(list) > 0 {
		line := list[0].Pos.Line - 1
		for i := line - formatContext; i <= line+formatContext; i++ {
			if i >= 0 && i < len(lines) {
				show[i] = true
			}
		}
	} else {
		for i := range show {
			show[i] = true
		}
	}
	gap := false
	for i, line := range lines {
		if !show[i] {
			gap = true
			continue
		}
		if gap {
			b.WriteString("\n\t...")
			gap = false
		}
		fmt.Fprintf(&b, "\n%6d  %s", i+1, line)
	}
	return b.String()
}

func (e *FormatError) Unwrap() error { return e.Err }

// headerArgs is the command shown in the header, on one line; empty when none is given.
func headerArgs(cmd string) string {
	cmd = oneLine(cmd)
	if cmd == "" {
		return ""
	}
	return " " + cmd
}

type emitter struct {
	api *model.API
}

// packageDoc is the package doc comment, line by line: what API the client is for and
// how to use it.
func (e *emitter) packageDoc(pkg string) []string {
	var d doc
	title := oneLine(e.api.Title)
	if title == "" {
		title = "an API"
	}
	intro := "Package " + pkg + " is a client for " + title
	if v := oneLine(e.api.Version); v != "" {
		intro += ", version " + v
	}
	d.para(intro + ": NewClient makes one, and each operation is a method of Client. The methods retry what the API description says is safe to retry; the options (With...) tune the client and each call.")
	d.para(e.api.Description)
	lines := make([]string, len(d.lines))
	for i, l := range d.lines {
		lines[i] = "// " + l
		if l == "" {
			lines[i] = "//"
		}
	}
	return lines
}
