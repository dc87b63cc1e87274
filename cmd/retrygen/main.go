// Retrygen reads an OpenAPI description and writes a typed Go client whose methods retry
// with a policy derived, per operation, from the HTTP method and from spec extensions.
//
// Usage:
//
//	retrygen [-package P] [-o FILE] [-check] [-allow-external-refs] [-v] SPEC
//	retrygen plan [-json | -markdown] [-allow-external-refs] [-v] SPEC
//	retrygen herd [flags]
//	retrygen -version
//
// The first form generates FILE (default client_gen.go) in package P (default
// $GOPACKAGE, which go generate sets). The file is written atomically and left untouched
// when it would not change; nothing is written when the spec has errors. With -check,
// nothing is written at all: retrygen exits 1 with a short diff when FILE is stale.
// -allow-external-refs follows $refs to files inside the spec's own folder (never URLs);
// -v also prints the spec's warnings, validation findings that do not stop generation.
//
// "retrygen plan" prints each operation's retry policy and where each value came from
// (retrygen's default, the document, the path item or the operation): as a table, as
// Markdown for a pull request, or as JSON for scripts.
//
// "retrygen herd" simulates clients that fail together and shows how their retries
// spread out over time.
//
// Typical use, with retrygen pinned by the tool directive of the module's go.mod:
//
//	go get -tool github.com/retrygen/retrygen/cmd/retrygen@latest
//
// and in a Go file of the client package:
//
//	//go:generate go tool retrygen -o client_gen.go api.yaml
//
// CI then checks that the committed client is current with
// "go tool retrygen -check -o client_gen.go api.yaml" (or "go generate ./... && git diff
// --exit-code").
//
// Spec problems are reported like compiler errors, all of them in one run:
//
//	api.yaml:12:5: POST /orders (createOrder): x-retry.maxAttempts must be >= 1, got 0
//
// Exit status: 0 done, 1 the spec or the check failed, 2 usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/retrygen/retrygen/gen"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // the spec or the check failed
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command: it parses args, writes to stdout and stderr, and returns the
// exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "plan":
			return runPlan(args[1:], stdout, stderr)
		case "herd":
			return runHerd(args[1:], stdout, stderr)
		}
	}
	return runGenerate(args, stdout, stderr)
}

func newLogger(stderr io.Writer) *log.Logger {
	return log.New(stderr, "retrygen: ", 0)
}

const generateUsage = `usage: retrygen [-package P] [-o FILE] [-check] [-allow-external-refs] [-v] SPEC
       retrygen plan [-json | -markdown] [-allow-external-refs] [-v] SPEC
       retrygen herd [flags]
       retrygen -version
`

func runGenerate(args []string, stdout, stderr io.Writer) int {
	logger := newLogger(stderr)
	fs := flag.NewFlagSet("retrygen", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(stderr, generateUsage+"\nFlags:\n")
		fs.SetOutput(stderr)
		fs.PrintDefaults()
	}
	pkg := fs.String("package", os.Getenv("GOPACKAGE"), "package name of the generated file (default $GOPACKAGE)")
	out := fs.String("o", "client_gen.go", "output file")
	check := fs.Bool("check", false, "write nothing; exit 1 with a diff if the output file is stale")
	allowExt := fs.Bool("allow-external-refs", false, "follow $refs to files inside the spec's folder")
	version := fs.Bool("version", false, "print the version and exit")
	verbose := fs.Bool("v", false, "also print the spec's warnings: validation findings that do not stop generation")
	if code, ok := parseFlags(fs, args, logger); !ok {
		return code
	}
	if *version {
		fmt.Fprintln(stdout, "retrygen", buildVersion())
		return exitOK
	}
	if fs.NArg() != 1 {
		logger.Printf("want exactly one spec file, got %d arguments", fs.NArg())
		fs.Usage()
		return exitUsage
	}
	if *pkg == "" {
		logger.Print("no package name: pass -package, or run from go generate, which sets $GOPACKAGE")
		return exitUsage
	}
	if !gen.IsValidIdent(*pkg) {
		logger.Printf("-package %q is not a valid Go package name", *pkg)
		return exitUsage
	}
	if *out == "" {
		logger.Print("-o must name a file")
		return exitUsage
	}
	return generate(generateArgs{
		spec:     fs.Arg(0),
		pkg:      *pkg,
		out:      *out,
		check:    *check,
		allowExt: *allowExt,
		verbose:  *verbose,
		command:  commandLine(args),
		stderr:   stderr,
		logger:   logger,
	})
}

// parseFlags parses args; when it fails it reports the problem with the "retrygen: "
// prefix, shows the usage and returns the exit code (0 for -h, 2 otherwise).
func parseFlags(fs *flag.FlagSet, args []string, logger *log.Logger) (code int, ok bool) {
	// Parse would print the error and the usage itself; they are printed below instead,
	// the error with the prefix.
	usage := fs.Usage
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	if err == nil {
		return 0, true
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return exitOK, false
	}
	logger.Print(err)
	fs.Usage()
	return exitUsage, false
}

type generateArgs struct {
	spec, pkg, out, command  string
	check, allowExt, verbose bool
	stderr                   io.Writer
	logger                   *log.Logger
}

// generate loads the spec, generates the client and writes it (or, with -check, compares
// it with the file on disk). Nothing is written when anything fails.
func generate(a generateArgs) int {
	spec, err := gen.Load(a.spec, gen.LoadOptions{AllowExternalRefs: a.allowExt})
	if err != nil {
		return reportSpecError(a.stderr, a.logger, err)
	}
	if a.verbose {
		printWarnings(a.stderr, spec)
	}
	src, err := generateCode(spec, a.pkg, a.command)
	if err != nil {
		return reportSpecError(a.stderr, a.logger, err)
	}
	if a.check {
		if err := gen.Check(a.out, src); err != nil {
			a.logger.Print(err)
			return exitFail
		}
		return exitOK
	}
	if _, err := gen.WriteFile(a.out, src); err != nil {
		a.logger.Print(err)
		return exitFail
	}
	return exitOK
}

// commandLine is the argument string recorded in the generated header: the arguments as
// given, so that the header says how to regenerate the file, without -check and -v, which
// do not change what is generated.
func commandLine(args []string) string {
	var quoted []string
	for i, a := range args {
		if notInHeader(a) && !afterSpec(args, i) {
			continue
		}
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`") {
			a = strconv.Quote(a)
		}
		quoted = append(quoted, a)
	}
	return strings.Join(quoted, " ")
}

// notInHeader reports the flags that do not change what is generated: -check and -v.
func notInHeader(a string) bool {
	name, value, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
	return strings.HasPrefix(a, "-") && (name == "check" || name == "v") &&
		(value == "" && !strings.Contains(a, "=") || value == "true" || value == "false")
}

// afterSpec reports whether args[i] comes after a "--" that ends the flags.
func afterSpec(args []string, i int) bool {
	for _, a := range args[:i] {
		if a == "--" {
			return true
		}
	}
	return false
}

func runPlan(args []string, stdout, stderr io.Writer) int {
	logger := newLogger(stderr)
	fs := flag.NewFlagSet("retrygen plan", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: retrygen plan [-json | -markdown] [-allow-external-refs] [-v] SPEC\n\nFlags:\n")
		fs.SetOutput(stderr)
		fs.PrintDefaults()
	}
	asJSON := fs.Bool("json", false, "print a JSON array, one object per operation")
	asMarkdown := fs.Bool("markdown", false, "print a Markdown table")
	allowExt := fs.Bool("allow-external-refs", false, "follow $refs to files inside the spec's folder")
	verbose := fs.Bool("v", false, "also print the spec's warnings: validation findings that do not stop planning")
	if code, ok := parseFlags(fs, args, logger); !ok {
		return code
	}
	if fs.NArg() != 1 {
		logger.Printf("want exactly one spec file, got %d arguments", fs.NArg())
		fs.Usage()
		return exitUsage
	}
	if *asJSON && *asMarkdown {
		logger.Print("-json and -markdown exclude each other")
		return exitUsage
	}
	spec, err := gen.Load(fs.Arg(0), gen.LoadOptions{AllowExternalRefs: *allowExt})
	if err != nil {
		return reportSpecError(stderr, logger, err)
	}
	if *verbose {
		printWarnings(stderr, spec)
	}
	ops, err := spec.Operations()
	if err != nil {
		return reportSpecError(stderr, logger, err)
	}
	switch {
	case *asJSON:
		err = gen.WritePlanJSON(stdout, gen.Plan(ops))
	case *asMarkdown:
		err = gen.WritePlanMarkdown(stdout, spec, ops)
	default:
		err = gen.WritePlanTable(stdout, spec, ops)
	}
	if err != nil {
		logger.Print(err)
		return exitFail
	}
	return exitOK
}

// printWarnings prints each of the spec's warnings on its own line, located like an error.
func printWarnings(stderr io.Writer, spec *gen.Spec) {
	for _, w := range spec.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
}

// reportSpecError prints located spec errors as they are, one per line, like a compiler;
// other errors get the "retrygen: " prefix.
func reportSpecError(stderr io.Writer, logger *log.Logger, err error) int {
	var list gen.ErrorList
	var one *gen.Error
	switch {
	case errors.As(err, &list):
		fmt.Fprintln(stderr, list.Error())
	case errors.As(err, &one):
		fmt.Fprintln(stderr, one.Error())
	default:
		logger.Print(err)
	}
	return exitFail
}

// buildVersion is the module version retrygen was built from, e.g. "v0.3.0", or
// "(devel)" for a build from a working tree.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// generateCode renders the client source.
func generateCode(spec *gen.Spec, pkg, command string) ([]byte, error) {
	return gen.Generate(spec, gen.GenerateOptions{Package: pkg, Command: command})
}
