package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/getkin/kin-openapi/routers/legacy/pathpattern"
	"github.com/retrygen/retrygen/conformance/driver"
	"github.com/retrygen/retrygen/gen"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
	"github.com/retrygen/retrygen/internal/tempmod"
)

var update = flag.Bool("update", false, "rewrite REPORT.md from this run (needs RETRYGEN_LONG=1, so that it covers the whole corpus)")

// specRun is one spec under test.
type specRun struct {
	File specFile
	Spec *gen.Spec
	Doc  *openapi3.T
	Ops  []*opRun
	// Fail is why no operation of the spec could be called (it does not load, generate
	// or build); "" when they could.
	Fail string
	// Router finds the operation a request is for.
	Router routers.Router
	// RouterNote says why the spec is routed by kin-openapi's path matcher rather than
	// its legacy router.
	RouterNote string
	src        []byte
	models     map[string]bool
	// unchecked counts sample responses, by media type, that the validator has no
	// decoder for and so could not check.
	unchecked map[string]int
	// dumps are the requests the validator refused, with RETRYGEN_CONFORMANCE_DUMP=1.
	dumps []string
}

// dumpEnv set to 1 logs each request the validator refuses, headers and body included.
const dumpEnv = "RETRYGEN_CONFORMANCE_DUMP"

// TestConformance runs the suite and checks its outcome against REPORT.md.
func TestConformance(t *testing.T) {
	longtest.NoRace(t)
	t.Parallel()
	if *update && !long() {
		t.Fatalf("-update rewrites the report of the whole corpus: run it with %s=1", longEnv)
	}
	dir, haveCorpus := corpus.Find()
	switch {
	case haveCorpus:
	case os.Getenv(corpus.Required) == "1":
		corpus.Dir(t) // fails, saying where the corpus should be
	case *update:
		t.Fatalf("-update rewrites the report of the whole corpus, and there is no spec corpus at %s (set %s to its folder)", dir, corpus.Env)
	}
	start := time.Now()
	files, err := specFiles()
	if err != nil {
		t.Fatal(err)
	}
	var runs []*specRun
	for _, f := range files {
		t0 := time.Now()
		runs = append(runs, prepare(f))
		if d := time.Since(t0); d > time.Second {
			t.Logf("%s: prepared in %v", f.Name, d.Round(time.Millisecond))
		}
	}
	t.Logf("prepared %d specs: %v", len(runs), time.Since(start).Round(time.Millisecond))

	records := buildAndRun(t, runs)
	t.Logf("built and ran the clients: %v", time.Since(start).Round(time.Millisecond))
	for _, r := range runs {
		r.judge(records[r.File.Pkg])
		for _, d := range r.dumps {
			t.Log(d)
		}
	}
	unmatched := applyExclusions(runs)
	t.Logf("judged: %v", time.Since(start).Round(time.Millisecond))

	rep := report(runs)
	t.Log("\n" + table(runs))
	for _, e := range unmatched {
		t.Errorf("exclusion %s %s %q matches no failure of this run: delete it", e.Spec, e.Op, e.Match)
	}
	checkReport(t, runs, rep, haveCorpus)
	t.Logf("total: %v", time.Since(start).Round(time.Millisecond))
	if !haveCorpus {
		corpus.Dir(t) // skips, saying that only this repository's specs were checked
	}
}

// prepare loads and generates one spec and plans its calls.
func prepare(f specFile) *specRun {
	r := &specRun{File: f, models: map[string]bool{}, unchecked: map[string]int{}}
	spec, err := gen.Load(f.Path, gen.LoadOptions{})
	if err != nil {
		r.Fail = "load: " + oneLine(err.Error())
		return r
	}
	r.Spec = spec
	src, err := gen.Generate(spec, gen.GenerateOptions{Package: f.Pkg, Command: "-package " + f.Pkg + " " + filepath.Base(f.Path)})
	if err != nil {
		r.Fail = "generate: " + oneLine(err.Error())
		return r
	}
	r.src = src
	doc, err := loadDoc(f.Path, spec.Version == "2.0")
	if err != nil {
		r.Fail = "kin-openapi load: " + oneLine(err.Error())
		return r
	}
	r.Doc = doc
	r.route()
	for _, op := range spec.API.Operations {
		o := &opRun{Key: opKey(op.Method, op.Path), ID: op.OperationID, Op: op}
		r.Ops = append(r.Ops, o)
		if item := doc.Paths.Value(op.Path); item != nil {
			o.Item = item
			o.Kin = item.GetOperation(op.Method)
		}
		if o.Kin == nil {
			o.fail("the kin-openapi document has no " + o.Key)
			continue
		}
		r.plan(o)
	}
	return r
}

// route points the document at the driver's base URL and builds its router: kin-openapi's
// legacy router, or, when that refuses the document (it validates it first), a router
// over kin-openapi's own path matcher that the legacy router is built on.
func (r *specRun) route() {
	doc := r.Doc
	doc.Servers = openapi3.Servers{{URL: driver.BaseURL}}
	for _, item := range doc.Paths.Map() {
		item.Servers = nil
		for _, op := range item.Operations() {
			op.Servers = nil
		}
	}
	router, err := legacy.NewRouter(doc,
		openapi3.DisableExamplesValidation(),
		openapi3.DisableSchemaDefaultsValidation(),
		openapi3.DisableSchemaPatternValidation(),
	)
	if err == nil {
		r.Router = router
		return
	}
	r.RouterNote = "legacy.NewRouter refuses the document (" + oneLine(err.Error()) + "), so requests are routed with kin-openapi's pathpattern matcher"
	r.Router = newPatternRouter(doc)
}

// patternRouter finds routes as kin-openapi's legacy router does, without validating
// the document first.
type patternRouter struct {
	doc  *openapi3.T
	root *pathpattern.Node
}

func newPatternRouter(doc *openapi3.T) *patternRouter {
	pr := &patternRouter{doc: doc, root: &pathpattern.Node{}}
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for _, method := range sortedKeys(item.Operations()) {
			_ = pr.root.Add(method+" "+path, &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: item.GetOperation(method)}, nil)
		}
	}
	return pr
}

// fragmentRouter routes to the one operation at a path key with a fragment, as in
// "/files/{file_id}#update_shared_link": its requests go to the path before the "#",
// which other keys of the spec may share, so that the spec's router cannot tell them
// apart. Each such request is checked against its own operation.
func fragmentRouter(doc *openapi3.T, key, method string) *patternRouter {
	pr := &patternRouter{doc: doc, root: &pathpattern.Node{}}
	item := doc.Paths.Value(key)
	path, _, _ := strings.Cut(key, "#")
	_ = pr.root.Add(method+" "+path, &routers.Route{Spec: doc, Path: key, PathItem: item, Method: method, Operation: item.GetOperation(method)}, nil)
	return pr
}

func (pr *patternRouter) FindRoute(req *http.Request) (*routers.Route, map[string]string, error) {
	_, _, rest := pr.doc.Servers.MatchURL(req.URL)
	node, values := pr.root.Match(req.Method + " " + rest)
	if node == nil {
		return nil, nil, &routers.RouteError{Reason: routers.ErrPathNotFound.Error()}
	}
	route, _ := node.Value.(*routers.Route)
	if route == nil {
		return nil, nil, &routers.RouteError{Reason: routers.ErrPathNotFound.Error()}
	}
	params := map[string]string{}
	for i, v := range values {
		params[strings.TrimSuffix(node.VariableNames[i], "*")] = v
	}
	return route, params, nil
}

// judge reads the records of the spec's calls: what the driver found wrong, then each
// request the client sent, routed and validated by kin-openapi.
func (r *specRun) judge(records []driver.Record) {
	if r.Fail != "" {
		return
	}
	byID := map[string]driver.Record{}
	for _, rec := range records {
		byID[rec.ID] = rec
	}
	for _, o := range r.Ops {
		for _, c := range o.Calls {
			rec, ok := byID[c.ID]
			if !ok {
				o.fail("the driver did not make call " + c.ID)
				continue
			}
			if rec.Problem != "" {
				o.fail(rec.Problem)
			}
			if len(rec.Requests) == 0 && rec.Problem == "" {
				o.fail(fmt.Sprintf("status %d: the client sent no request", c.Response.Status))
			}
			for _, req := range rec.Requests {
				msgs := r.validate(o, req)
				for _, msg := range msgs {
					o.fail("request: " + msg)
				}
				if len(msgs) > 0 && os.Getenv(dumpEnv) == "1" {
					body := string(req.Body)
					if len(body) > 2000 {
						body = body[:2000] + "…"
					}
					r.dumps = append(r.dumps, fmt.Sprintf("%s: %s %s\nheader: %v\nbody: %s\nvalidator: %s", r.File.Name, req.Method, req.URL, req.Header, body, strings.Join(msgs, "\n  ")))
				}
			}
		}
	}
}

// validate routes req by the spec's paths and checks it with
// openapi3filter.ValidateRequest, and returns every problem the validator finds, one
// message each.
func (r *specRun) validate(o *opRun, sent driver.Request) []string {
	req, err := http.NewRequest(sent.Method, sent.URL, bytes.NewReader(sent.Body))
	if err != nil {
		return []string{err.Error()}
	}
	req.Header = sent.Header
	if host := sent.Header.Get("Host"); host != "" {
		req.Host = host
	}
	router := r.Router
	if key := o.Op.Path; strings.Contains(key, "#") {
		router = fragmentRouter(r.Doc, key, o.Op.Method)
	}
	route, pathParams, err := router.FindRoute(req)
	if err != nil {
		return []string{fmt.Sprintf("%s %s: the router finds no operation: %v", sent.Method, req.URL.RequestURI(), err)}
	}
	if route.Operation != o.Kin {
		return []string{fmt.Sprintf("%s %s is routed to %s %s", sent.Method, req.URL.RequestURI(), route.Method, route.Path)}
	}
	opts := validationOptions(r.Doc)
	opts.MultiError = true
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams, Route: route, Options: opts}
	return splitErrors(openapi3filter.ValidateRequest(context.Background(), in))
}

// splitErrors returns one message per problem of a validator error, taking apart the
// lists kin-openapi returns with MultiError.
func splitErrors(err error) []string {
	if err == nil {
		return nil
	}
	if me, ok := err.(openapi3.MultiError); ok {
		var out []string
		for _, e := range me {
			out = append(out, splitErrors(e)...)
		}
		return out
	}
	if re, ok := err.(*openapi3filter.RequestError); ok {
		if inner, ok := re.Err.(openapi3.MultiError); ok && len(inner) > 0 {
			var out []string
			for _, sub := range inner {
				one := *re
				one.Err = sub
				out = append(out, splitErrors(&one)...)
			}
			return out
		}
	}
	return []string{oneLine(err.Error())}
}

// buildAndRun writes the clients and a driver program into a temporary module, builds
// it (leaving out clients that do not build, which then fail), runs it on the plan, and
// returns the records per client package.
func buildAndRun(t *testing.T, runs []*specRun) map[string][]driver.Record {
	dir := tempModule(t)
	write := func(name string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", []byte("package main\n\nimport \"github.com/retrygen/retrygen/conformance/driver\"\n\nfunc main() { driver.Main() }\n"))
	active := map[string]*specRun{}
	for _, r := range runs {
		if r.Fail != "" {
			continue
		}
		active[r.File.Pkg] = r
		write(r.File.Pkg+"/client_gen.go", r.src)
		write("register_"+r.File.Pkg+".go", registerFile(r))
	}
	if len(active) == 0 {
		return nil
	}
	for {
		out, err := goCmd(dir, "build", "-o", "driver", ".")
		if err == nil {
			break
		}
		broken := brokenPackages(out, active)
		if len(broken) == 0 {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		for pkg, msg := range broken {
			active[pkg].Fail = "the client does not build: " + msg
			delete(active, pkg)
			os.RemoveAll(filepath.Join(dir, pkg))
			os.Remove(filepath.Join(dir, "register_"+pkg+".go"))
		}
		if len(active) == 0 {
			return nil
		}
	}
	plan := driver.Plan{Clients: map[string][]driver.Call{}}
	for pkg, r := range active {
		for _, o := range r.Ops {
			plan.Clients[pkg] = append(plan.Clients[pkg], o.Calls...)
		}
	}
	data, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	write("plan.json", data)
	cmd := exec.Command(filepath.Join(dir, "driver"), filepath.Join(dir, "plan.json"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("driver: %v\n%s", err, stderr.String())
	}
	var records map[string][]driver.Record
	if err := json.Unmarshal(stdout.Bytes(), &records); err != nil {
		t.Fatalf("driver output: %v", err)
	}
	return records
}

var (
	pkgHeader    = regexp.MustCompile(`(?m)^# retrygen\.test/conformance/(\w+)$`)
	registerLine = regexp.MustCompile(`(?m)^\.?/?register_(\w+)\.go:\d+:\d+: (.*)$`)
)

// brokenPackages finds, in go build's output, the client packages that fail to build
// (or whose registration does), with the first error of each.
func brokenPackages(out string, active map[string]*specRun) map[string]string {
	broken := map[string]string{}
	for _, m := range pkgHeader.FindAllStringSubmatchIndex(out, -1) {
		pkg := out[m[2]:m[3]]
		if _, ok := active[pkg]; !ok {
			continue
		}
		rest := strings.TrimLeft(out[m[1]:], "\n")
		first, _, _ := strings.Cut(rest, "\n")
		if i := strings.Index(first, ": "); i >= 0 && strings.Contains(first[:i], ".go:") {
			first = first[i+2:]
		}
		broken[pkg] = oneLine(first)
	}
	for _, m := range registerLine.FindAllStringSubmatch(out, -1) {
		if _, ok := active[m[1]]; ok {
			if _, seen := broken[m[1]]; !seen {
				broken[m[1]] = oneLine(m[2])
			}
		}
	}
	return broken
}

// registerFile registers a client with the driver, with its error models.
func registerFile(r *specRun) []byte {
	var b strings.Builder
	pkg := r.File.Pkg
	fmt.Fprintf(&b, "package main\n\nimport (\n\t\"net/http\"\n\t\"reflect\"\n\n\t\"github.com/retrygen/retrygen/conformance/driver\"\n\tclient %q\n)\n\n", "retrygen.test/conformance/"+pkg)
	fmt.Fprintf(&b, "var _ = reflect.TypeFor[int]\n\nfunc init() {\n\tdriver.Register(%q, func(base string, hc *http.Client) (any, error) {\n\t\tc := client.NewClient(client.WithBaseURL(base), client.WithHTTPClient(hc))\n\t\treturn c, c.Err()\n\t}, []client.CallOption{client.WithoutRetry()}, map[string]reflect.Type{\n", pkg)
	names := sortedKeys(r.models)
	for _, name := range names {
		fmt.Fprintf(&b, "\t\t%q: reflect.TypeFor[*client.%s](),\n", name, name)
	}
	b.WriteString("\t})\n}\n")
	return []byte(b.String())
}

// tempModule creates a module that builds against this repository's working tree, offline.
func tempModule(t *testing.T) string {
	t.Helper()
	return tempmod.New(t, "..", "retrygen.test/conformance")
}

// goCmd runs the go command in dir, offline, and returns its output.
func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = tempmod.Env()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// sortedRuns is runs in report order.
func sortedRuns(runs []*specRun) []*specRun {
	out := slices.Clone(runs)
	slices.SortStableFunc(out, func(a, b *specRun) int { return strings.Compare(a.File.Name, b.File.Name) })
	return out
}
