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
	webhookPath = "github.com/retrygen/retrygen/runtime/webhook"
)

// importNames are the package names of the paths above, registered with jennifer so that
// it never writes an alias for them.
var importNames = map[string]string{
	runtimePath: "runtime", wirePath: "wire", timePath: "time", jsonPath: "json",
	ioPath: "io", httpPath: "http", contextPath: "context", slogPath: "slog", urlPath: "url", iterPath: "iter",
	webhookPath: "webhook",
}

// versionConst is the runtime constant every generated file refers to, so that a client
// built against a runtime it does not fit fails to compile with this name in the message.
const versionConst = "SupportPackageIsVersion7"

// Options are the settings of one generated client.
type Options struct {
	// Package is the package clause, e.g. "petstore".
	Package string
	// Command is the argument string shown in the header line, e.g.
	// "-package petstore -o client_gen.go petstore.yaml".
	Command string
	// SplitAbove is the size in bytes over which GenerateFiles writes the client in
	// several files; 0 keeps it in one.
	SplitAbove int
}

// Generate returns the gofmt-formatted source of the client api describes, in one file.
// Source that does not format is a bug of the generator: the error then carries the
// source around the problem with line numbers.
func Generate(api *model.API, opts Options) ([]byte, error) {
	opts.SplitAbove = 0
	files, err := GenerateFiles(api, opts)
	if err != nil {
		return nil, err
	}
	return files[0].Source, nil
}

// GenerateFiles returns the gofmt-formatted source of the client api describes: one file
// when it is no larger than opts.SplitAbove (or that is 0), else several (see split).
//
// The declarations are built, rendered and formatted in chunks, in parallel, and joined after the
// header, whose import block lists what the chunks use: gofmt formats each top-level
// declaration on its own, so the result is the file gofmt makes of the whole (a golden
// test checks that formatting it again changes nothing).
func GenerateFiles(api *model.API, opts Options) ([]File, error) {
	beginDocs()
	defer endDocs()
	e := &emitter{api: api}
	items := e.items()
	// Chunks of about chunkItems declarations, at least four per processor: small enough
	// that the processors share the work evenly and hold little of it at a time.
	n := max(runtime.GOMAXPROCS(0)*4, len(items)/chunkItems)
	if n > len(items)/16+1 {
		n = len(items)/16 + 1
	}
	chunks := make([][]item, 0, n)
	for i := range n {
		chunks = append(chunks, items[i*len(items)/n:(i+1)*len(items)/n])
	}

	texts := make([][][]byte, len(chunks))
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
			texts[i], paths[i], errs[i] = formatChunk(opts.Package, chunks[i])
		}()
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	formatted := slices.Concat(texts...)
	head, err := e.mainHeader(opts, slices.Concat(paths...))
	if err != nil {
		return nil, err
	}
	size := 0
	for _, t := range formatted {
		size += len(t) + 2
	}
	if opts.SplitAbove > 0 && len(head)+size > opts.SplitAbove {
		return split(e, opts, items, formatted, size)
	}
	return []File{{Part: 1, Source: join(head, formatted)}}, nil
}

// chunkItems is about how many declarations GenerateFiles formats at a time, when there
// are many.
const chunkItems = 64

// mainHeader returns the formatted start of the client's first file, importing paths
// besides what the client surface uses.
func (e *emitter) mainHeader(opts Options, paths []string) ([]byte, error) {
	return formatHeader(e.header(opts), paths)
}

// formatHeader returns the formatted start of a file, f, importing paths besides what f
// uses itself.
func formatHeader(f *jen.File, paths []string) ([]byte, error) {
	if err := importAll(f, paths); err != nil {
		return nil, err
	}
	head, err := formatFile(f)
	if err != nil {
		return nil, err
	}
	return groupImports(head)
}

// importAll registers paths with f, so that jennifer lists them in its import block.
func importAll(f *jen.File, paths []string) error {
	for _, p := range slices.Sorted(slices.Values(paths)) {
		if _, ok := importNames[p]; !ok {
			// The naming pass keeps spec names clear of the package names in
			// importNames (through model.FixedNames) and of no others.
			return fmt.Errorf("internal error: generated code imports %s, which importNames does not list", p)
		}
		_ = jen.Qual(p, "X").RenderWithFile(io.Discard, f)
	}
	return nil
}

// join returns head and the declarations decls, each after an empty line.
func join(head []byte, decls [][]byte) []byte {
	head = bytes.TrimSpace(head)
	size := len(head) + 1
	for _, d := range decls {
		size += len(d) + 2
	}
	var buf bytes.Buffer
	buf.Grow(size)
	buf.Write(head)
	for _, d := range decls {
		if len(d) == 0 {
			continue
		}
		buf.WriteString("\n\n")
		buf.Write(d)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
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
		f.Add(it.build())
	}
	src, err := render(f)
	if err != nil {
		return nil, err
	}
	return groupImports(src)
}

// An item is one generated declaration, built when build is called, so that chunks of
// them are built as well as formatted in parallel.
type item struct {
	// key places the item when the client is split in several files: the name of the
	// operation or type it belongs to; "" keeps it in the first file, with the client.
	key   string
	build func() jen.Code
}

// items are the generated declarations, each followed by an empty line: policies,
// methods, error-model pickers, parameter structs, types.
func (e *emitter) items() []item {
	api := e.api
	var items []item
	add := func(key string, build func() *jen.Statement) {
		items = append(items, item{key, func() jen.Code { return build().Line() }})
	}
	for _, c := range slices.Concat(e.serverConsts(), e.securityOptions()) {
		items = append(items, item{"", func() jen.Code { return c }})
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
	var endpoint []*model.Operation // Do and DoRaw's policies, after the operations'
	if ep := api.Endpoint; ep != nil {
		endpoint = []*model.Operation{ep.Idempotent, ep.NotIdempotent}
		for _, m := range endpoint {
			users[m.PolicyVar] = append(users[m.PolicyVar], "Do ("+map[bool]string{true: "GET, PUT...", false: "POST, PATCH..."}[m.Policy.Idempotent]+")")
		}
	}
	for _, op := range append(slices.Clip(api.Operations), endpoint...) {
		for _, m := range op.Methods() {
			if u := users[m.PolicyVar]; u != nil {
				add("", func() *jen.Statement { return e.policy(m, u) })
				delete(users, m.PolicyVar)
			}
		}
	}
	for _, op := range api.Operations {
		add(op.GoName, func() *jen.Statement { return e.method(op) })
		if sv := op.StreamVariant(); sv != nil {
			add(op.GoName, func() *jen.Statement { return e.method(sv) })
		}
		for _, v := range op.Variants {
			add(op.GoName, func() *jen.Statement { return e.method(v) })
		}
		if op.Pagination != nil {
			add(op.GoName, func() *jen.Statement { return e.allMethod(op) })
			add(op.GoName, func() *jen.Statement { return e.pagesMethod(op) })
		}
	}
	items = append(items, e.webhookItems()...)
	for _, set := range api.ErrorSets {
		if set.Only() == nil {
			add(set.GoName, func() *jen.Statement { return e.errorSet(set) })
		}
	}
	for _, op := range api.Operations {
		if op.ParamsType != "" {
			add(op.GoName, func() *jen.Statement { return e.paramsStruct(op) })
		}
		if op.Headers != nil {
			add(op.GoName, func() *jen.Statement { return e.headerSet(op) })
		}
		if op.Stream != nil && op.Stream.Accumulate != nil {
			add(op.GoName, func() *jen.Statement { return accumulatingStream(op) })
		}
		if op.Pagination != nil {
			add(op.GoName, func() *jen.Statement { return e.pageType(op) })
		}
	}
	for _, d := range api.Decls {
		add(d.GoName, func() *jen.Statement { return e.decl(d) })
	}
	return items
}

// headerLine is the first line of every file of a client.
func headerLine(opts Options) string {
	return "// Code generated by retrygen" + headerArgs(opts.Command) + ". DO NOT EDIT."
}

// header is the start of the file: the header line, package clause, imports, what the
// client is for, the runtime version check, and the client surface.
func (e *emitter) header(opts Options) *jen.File {
	f := newFile(opts.Package)
	f.HeaderComment(headerLine(opts))
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

// render returns f's source, unformatted, without the space jennifer starts every line
// after the first of a statement with. Without it declarations and their doc comments
// start in column 1, where go/format reformats doc comments as gofmt does, so that the
// result is stable under gofmt. jennifer writes no literal or comment over several lines,
// so only layout changes.
func render(f *jen.File) ([]byte, error) {
	var w unindenter
	if err := f.Render(&w); err != nil {
		return nil, err
	}
	return w.out, nil
}

// An unindenter keeps what is written to it, each space after a newline dropped, as
// bytes.ReplaceAll(text, "\n ", "\n") would. jennifer writes a file in one piece, which
// takes one allocation of its size.
type unindenter struct {
	out []byte
	nl  bool // the last byte written was a newline
}

func (w *unindenter) Write(p []byte) (int, error) {
	n := len(p)
	w.out = slices.Grow(w.out, n)
	for len(p) > 0 {
		if w.nl && p[0] == ' ' {
			p = p[1:]
			w.nl = false
			continue
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.out = append(w.out, p...)
			w.nl = false
			break
		}
		w.out = append(w.out, p[:i+1]...)
		p = p[i+1:]
		w.nl = true
	}
	return n, nil
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

// itemMark opens each declaration of a chunk; no generated name starts with "_", and no
// spec text reaches the start of a line outside a comment.
const itemMark = "const _retrygenItem = 0\n"

// formatChunk formats declarations as part of a file and returns each one's text, without
// the package clause and imports, and the import paths they use.
func formatChunk(pkg string, items []item) ([][]byte, []string, error) {
	f := newFile(pkg)
	for _, it := range items {
		f.Id(itemMark)
		f.Add(it.build())
	}
	out, err := formatFile(f)
	if err != nil {
		return nil, nil, err
	}
	parts := bytes.Split(out, []byte("\n"+itemMark))
	if len(parts) != len(items)+1 {
		return nil, nil, fmt.Errorf("internal error: %d declaration marks of %d lost in formatting", len(items)+1-len(parts), len(items))
	}
	texts := parts[1:]
	for i, t := range texts {
		texts[i] = bytes.TrimSpace(t)
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
	return texts, paths, nil
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
	version := ""
	if v := oneLine(e.api.Version); v != "" {
		version = ", version " + v
	}
	switch {
	case len(e.api.Operations) == 0 && len(e.api.Webhooks) > 0:
		// A description of webhooks alone: no operation to call, but webhooks to receive.
		d.para("Package " + pkg + " holds the types of " + title + version + ", whose description declares no operation, and receives its webhooks: NewWebhookReceiver returns the http.Handler that checks each delivery and calls the method of a WebhookHandler for it with its decoded payload. The types are for decoding and encoding what the API sends and receives; Client has no method of an operation, and its Do and DoRaw call an endpoint by its path.")
	case len(e.api.Operations) == 0:
		// A description of components alone: no operation to call.
		d.para("Package " + pkg + " holds the types of " + title + version + ", whose description declares no operation: the types are for decoding and encoding what the API sends and receives. Client has no method of an operation, and its Do and DoRaw call an endpoint by its path.")
	default:
		d.para("Package " + pkg + " is a client for " + title + version + ": NewClient makes one, and each operation is a method of Client. The methods retry what the API description says is safe to retry; the options (With...) tune the client and each call.")
	}
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
