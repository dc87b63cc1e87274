// Retrygen reads an OpenAPI description and writes a typed Go client whose methods retry
// with a policy derived, per operation, from the HTTP method and from spec extensions.
//
// Usage:
//
//	retrygen [-package P] [-o FILE] [-overlay FILE]... [-check] [-allow-external-refs] [-v] [-strict] SPEC
//	retrygen plan [-json | -markdown] [-wide] [-overlay FILE]... [-allow-external-refs] [-v] [-strict] SPEC
//	retrygen diff [-json | -markdown] [-allow=breaking,loosened] [-overlay FILE]... [-allow-external-refs] OLD NEW
//	retrygen herd [flags]
//	retrygen help | version
//
// The first form generates FILE (default client_gen.go) in package P (default
// $GOPACKAGE, which go generate sets). The file is written atomically and left untouched
// when it would not change; nothing is written when the spec has errors. With -check,
// nothing is written at all: retrygen exits 1 with a short diff when FILE is stale.
// -allow-external-refs follows $refs to files inside the spec's own folder (never URLs);
// -v also prints the spec's warnings, validation findings that do not stop generation.
// -overlay applies an OpenAPI Overlay (1.0 or 1.1) to the spec before it is read; given
// several times, the overlays apply in order. It is the way to add x-retry,
// x-idempotency-key or x-idempotent to a spec you do not own; plan and diff take it too
// (diff applies it to both versions).
//
// "retrygen plan" prints each operation's retry policy and where each value came from
// (retrygen's default, the document, the path item or the operation): as a table, as
// Markdown for a pull request, or as JSON for scripts.
//
// "retrygen diff" compares two versions of a spec for the review of a spec change: each
// operation's retry policy (retried or not and why, every x-retry field, the idempotency
// key) and the generated Go API (methods, arguments, parameters, types, struct fields,
// enum values), each change marked breaking or compatible. It exits 1 when it finds a
// breaking change or a loosened retry rule (an operation that becomes retried, or more
// attempts on one that is not idempotent), unless -allow lists that kind.
//
// "retrygen herd" simulates clients that fail together and shows how their retries
// spread out over time; with -fail or -budgets it simulates steady traffic with a share of
// attempts failing, and compares retry budgets by the calls they fail and the load they add.
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
// Exit status: 0 done, 1 the spec or the check failed (or diff found what it was not
// allowed to), 2 usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"unicode"

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
		case "help":
			fmt.Fprint(stdout, generateUsage+"\n"+commandsHelp+"\nRun a command with -h for its flags, e.g. retrygen plan -h.\n")
			return exitOK
		case "version":
			fmt.Fprintln(stdout, "retrygen", buildVersion())
			return exitOK
		case "plan":
			return runPlan(args[1:], stdout, stderr)
		case "diff":
			return runDiff(args[1:], stdout, stderr)
		case "herd":
			return runHerd(args[1:], stdout, stderr)
		}
		if near := mistypedCommand(args[0]); near != "" {
			newLogger(stderr).Printf("unknown command %q: did you mean retrygen %s? (retrygen help lists the commands)", args[0], near)
			return exitUsage
		}
	}
	return runGenerate(args, stdout, stderr)
}

// commands are the words retrygen takes before its flags.
var commands = []string{"plan", "diff", "herd", "help", "version"}

// commandsHelp says what each command does.
const commandsHelp = `Commands:
  (none)   generate the client of SPEC into -o (default client_gen.go); with -check, write
           nothing and exit 1 with a diff when the file is stale
  plan     print each operation's retry policy, its Go method and where each value came from
  diff     compare two versions of a spec: policy and Go API changes, marked breaking,
           loosened or compatible; exit 1 on a breaking or loosened change
  herd     simulate clients that fail together and show how their retries spread out
  help     print this text
  version  print retrygen's version
`

// mistypedCommand returns the command arg looks like a typo of ("plna" is plan), or ""
// when arg is a file, has a spec's extension, or is like no command.
func mistypedCommand(arg string) string {
	if strings.HasPrefix(arg, "-") || strings.ContainsAny(arg, `/\.`) {
		return ""
	}
	if _, err := os.Stat(arg); err == nil {
		return ""
	}
	return gen.Closest(arg, commands)
}

func newLogger(stderr io.Writer) *log.Logger {
	return log.New(stderr, "retrygen: ", 0)
}

const generateUsage = `usage: retrygen [-package P] [-o FILE] [-overlay FILE]... [-check] [-allow-external-refs] [-v] [-strict] SPEC
       retrygen plan [-json | -markdown] [-wide] [-overlay FILE]... [-allow-external-refs] [-v] [-strict] SPEC
       retrygen diff [-json | -markdown] [-allow=breaking,loosened] [-overlay FILE]... [-allow-external-refs] OLD NEW
       retrygen herd [flags]
       retrygen help | version
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
	var overlays overlayFlag
	fs.Var(&overlays, "overlay", "apply the OpenAPI Overlay `FILE` to the spec first (repeatable, applied in order)")
	version := fs.Bool("version", false, "print the version and exit")
	verbose := fs.Bool("v", false, "also print the spec's warnings: findings that do not stop generation")
	strict := fs.Bool("strict", false, "treat the spec's warnings as errors")
	if code, ok := parseFlags(fs, args, logger, commandAfterFlags(args)); !ok {
		return code
	}
	if *version {
		fmt.Fprintln(stdout, "retrygen", buildVersion())
		return exitOK
	}
	if msg := misplacedArgs(fs, args, 1); msg != "" {
		logger.Print(msg)
		return exitUsage
	}
	if fs.NArg() != 1 {
		logger.Printf("want exactly one spec file, got %s", argumentsGot(fs.Args()))
		fs.Usage()
		return exitUsage
	}
	if *pkg == "" {
		// The file being regenerated or checked knows its package.
		*pkg = packageOf(*out)
	}
	if *pkg == "" {
		if _, err := os.Stat(fs.Arg(0)); err != nil {
			// A spec that is not there says more than a package name that is not given.
			logger.Printf("%s: %v", fs.Arg(0), bareOSError(err))
			return exitFail
		}
		logger.Print("no package name: pass -package, or run from go generate, which sets $GOPACKAGE")
		return exitUsage
	}
	if !token.IsIdentifier(*pkg) || *pkg == "_" {
		logger.Printf("-package %q is not a valid Go package name", *pkg)
		return exitUsage
	}
	if *out == "" {
		logger.Print("-o must name a file")
		return exitUsage
	}
	return generate(generateArgs{
		spec:     fs.Arg(0),
		overlays: overlays,
		pkg:      *pkg,
		out:      *out,
		check:    *check,
		allowExt: *allowExt,
		strict:   *strict,
		verbose:  *verbose,
		command:  headerSource(fs.Arg(0), overlays),
		stderr:   stderr,
		logger:   logger,
	})
}

// parseFlags parses args; when it fails it reports the problem with the "retrygen: "
// prefix, then hint when not "", shows the usage and returns the exit code (0 for -h, 2
// otherwise).
func parseFlags(fs *flag.FlagSet, args []string, logger *log.Logger, hint string) (code int, ok bool) {
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
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		err = unknownFlag(fs, name)
	}
	logger.Print(err)
	if hint != "" {
		logger.Print(hint)
	}
	fs.Usage()
	return exitUsage, false
}

// unknownFlag says that fs has no flag -name, and which it has that name looks like a
// typo of ("-pakage": -package).
func unknownFlag(fs *flag.FlagSet, name string) error {
	var flags []string
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })
	near := ""
	if len(name) <= 64 { // no flag is longer: nothing to compare a long argument with
		near = gen.Closest(name, flags)
	}
	// A name of one or two letters is like every other short one: only a longer
	// spelling of it is meant ("-vv" is -v).
	if len(name) < 3 && !strings.HasPrefix(name, near) {
		near = ""
	}
	shown := "-" + name
	if strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) {
		shown = strconv.Quote(shown)
	}
	if near == "" {
		return fmt.Errorf("unknown flag %s (%s -h lists the flags)", shown, fs.Name())
	}
	return fmt.Errorf("unknown flag %s: did you mean -%s? (%s -h lists the flags)", shown, near, fs.Name())
}

// argumentsGot says what arguments a command was given, for the message that it wants
// others: "none", "2 arguments: a.yaml b.yaml", the first few of many.
func argumentsGot(args []string) string {
	const shown = 4
	switch {
	case len(args) == 0:
		return "none"
	case len(args) > shown:
		return fmt.Sprintf("%d arguments: %s …", len(args), shellLine(args[:shown]))
	}
	return plural(len(args), "argument") + ": " + shellLine(args)
}

type generateArgs struct {
	spec, pkg, out, command  string
	overlays                 []string
	check, allowExt, verbose bool
	strict                   bool
	stderr                   io.Writer
	logger                   *log.Logger
}

// generate loads the spec, generates the client and writes it (or, with -check, compares
// it with the file on disk). Nothing is written when anything fails.
func generate(a generateArgs) int {
	spec, err := gen.Load(a.spec, gen.LoadOptions{AllowExternalRefs: a.allowExt, Strict: a.strict, Overlays: a.overlays})
	if err != nil {
		return reportSpecError(a.stderr, a.logger, err)
	}
	if a.verbose {
		printWarnings(a.stderr, spec)
	}
	files, err := gen.GenerateFiles(spec, gen.GenerateOptions{Package: a.pkg, Command: a.command}, gen.SplitAbove)
	if err != nil {
		return reportSpecError(a.stderr, a.logger, err)
	}
	if a.check {
		if err := checkClient(a.out, files); err != nil {
			a.logger.Print(err)
			return exitFail
		}
		return exitOK
	}
	if err := writeClient(a.out, files); err != nil {
		a.logger.Print(err)
		return exitFail
	}
	return exitOK
}

// headerSource is what the generated header records, "from api.yaml", or with overlays
// "from api.yaml -overlay keys.yaml -overlay retries.yaml": the file names alone, the
// overlays in the order they apply, which determine the output wherever retrygen runs
// from and whatever other flags it was given (the package name is in the package
// clause). A name with spaces, quotes or characters that are not printable is quoted, so
// that it cannot end the comment line.
func headerSource(spec string, overlays []string) string {
	s := "from " + headerName(spec)
	for _, o := range overlays {
		s += " -overlay " + headerName(o)
	}
	return s
}

// headerName is a file's name as the header writes it.
func headerName(path string) string {
	name := filepath.Base(path)
	if strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) || r == '"' || r == '\\' }) {
		name = strconv.Quote(name)
	}
	return name
}

// misplacedArgs explains arguments that Go's flag parsing, which stops at the first
// argument that is not a flag, did not read as flags: a command word after a flag
// ("retrygen -v plan api.yaml"), or a flag after a spec file ("retrygen plan api.yaml
// -json"). want is how many spec files the command takes. It returns "" when the
// arguments are not like that, or when "--" says that they are all files.
func misplacedArgs(fs *flag.FlagSet, args []string, want int) string {
	rest := fs.Args()
	if len(rest) == 0 || len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
		return ""
	}
	if fs.Name() == "retrygen" { // generate's flags: was a command meant?
		if _, err := os.Stat(rest[0]); slices.Contains(commands, rest[0]) && (len(rest) > want || err != nil) {
			return commandFirst(rest[0], args[:len(args)-len(rest)], rest[1:])
		}
	}
	files := "the spec file"
	if want > 1 {
		files += "s"
	}
	for i, arg := range rest[1:] {
		name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if strings.HasPrefix(arg, "-") && name != "" && fs.Lookup(name) != nil {
			return fmt.Sprintf("flag %s comes after %s: flags go before %s, which end them (see %s -h)",
				arg, shellLine(rest[:i+1]), files, fs.Name())
		}
	}
	return ""
}

// commandFirst says that command, found after the flags before it, comes first, and
// shows the command line that does so.
func commandFirst(command string, before, after []string) string {
	fixed := []string{"retrygen", command}
	if command != "help" && command != "version" { // they take no flags
		fixed = append(append(fixed, before...), after...)
	}
	return fmt.Sprintf("%s is a command: it comes first, its flags after it, as in %s", command, shellLine(fixed))
}

// commandAfterFlags finds, in args that do not parse as generate's flags, a command word
// that the flags before it kept from being read as one, and says where it goes; "" when
// there is none.
func commandAfterFlags(args []string) string {
	for i, arg := range args {
		if arg == "--" {
			return ""
		}
		if i > 0 && slices.Contains(commands, arg) {
			return commandFirst(arg, args[:i], args[i+1:])
		}
	}
	return ""
}

// shellLine spells args as a shell command line, quoting the ones that need it.
func shellLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsFunc(a, func(r rune) bool {
			return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./=,:@+", r))
		}) {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// overlayFlag collects the values of a repeated -overlay, in order.
type overlayFlag []string

func (o *overlayFlag) String() string { return strings.Join(*o, ",") }

func (o *overlayFlag) Set(path string) error {
	if path == "" {
		return errors.New("-overlay must name a file")
	}
	*o = append(*o, path)
	return nil
}

// packageOf returns the package name of the Go file at path, or "" when there is no
// such file or it does not parse that far.
func packageOf(path string) string {
	if fi, err := inspectOutput(path); err != nil || fi == nil {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly)
	if err != nil {
		return ""
	}
	return f.Name.Name
}

// reportFlags are the flags plan and diff share: the output format, and how specs load.
type reportFlags struct {
	asJSON, asMarkdown *bool
	allowExt           *bool
	overlays           overlayFlag
}

// addReportFlags defines the shared flags on fs; what is the specs' description in their
// help ("the spec", "both specs").
func addReportFlags(fs *flag.FlagSet, jsonHelp, markdownHelp, what string) *reportFlags {
	r := &reportFlags{
		asJSON:     fs.Bool("json", false, jsonHelp),
		asMarkdown: fs.Bool("markdown", false, markdownHelp),
		allowExt:   fs.Bool("allow-external-refs", false, "follow $refs to files inside the spec's folder"),
	}
	fs.Var(&r.overlays, "overlay", "apply the OpenAPI Overlay `FILE` to "+what+" first (repeatable, applied in order)")
	return r
}

// format returns the output format the flags ask for: "table", "json" or "markdown".
func (r *reportFlags) format() (string, error) {
	switch {
	case *r.asJSON && *r.asMarkdown:
		return "", errors.New("-json and -markdown exclude each other")
	case *r.asJSON:
		return "json", nil
	case *r.asMarkdown:
		return "markdown", nil
	}
	return "table", nil
}

// parse parses args into fs, which holds r's flags, and returns the output format they
// ask for. It refuses other than n arguments, want saying what they are; when it fails it
// reports why, shows the usage where that helps and returns the exit code, as
// parseFlags does.
func (r *reportFlags) parse(fs *flag.FlagSet, args []string, logger *log.Logger, n int, want string) (format string, code int, ok bool) {
	if code, ok := parseFlags(fs, args, logger, ""); !ok {
		return "", code, false
	}
	if msg := misplacedArgs(fs, args, n); msg != "" {
		logger.Print(msg)
		return "", exitUsage, false
	}
	if fs.NArg() != n {
		logger.Printf("want %s, got %s", want, argumentsGot(fs.Args()))
		fs.Usage()
		return "", exitUsage, false
	}
	format, err := r.format()
	if err != nil {
		logger.Print(err)
		return "", exitUsage, false
	}
	return format, 0, true
}

func (r *reportFlags) loadOptions(strict bool) gen.LoadOptions {
	return gen.LoadOptions{AllowExternalRefs: *r.allowExt, Strict: strict, Overlays: r.overlays}
}

// newFlagSet returns a flag set whose usage prints usage, then the flags.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage+"\nFlags:\n")
		fs.SetOutput(stderr)
		fs.PrintDefaults()
	}
	return fs
}

const planUsage = "usage: retrygen plan [-json | -markdown] [-wide] [-overlay FILE]... [-allow-external-refs] [-v] [-strict] SPEC\n"

func runPlan(args []string, stdout, stderr io.Writer) int {
	logger := newLogger(stderr)
	fs := newFlagSet("retrygen plan", planUsage, stderr)
	report := addReportFlags(fs, "print a JSON array, one object per operation", "print a Markdown table", "the spec")
	wide := fs.Bool("wide", false, "show every field in the table, and where each value came from")
	verbose := fs.Bool("v", false, "also print the spec's warnings: findings that do not stop planning")
	strict := fs.Bool("strict", false, "treat the spec's warnings as errors")
	format, code, ok := report.parse(fs, args, logger, 1, "exactly one spec file")
	if !ok {
		return code
	}
	spec, err := gen.Load(fs.Arg(0), report.loadOptions(*strict))
	if err != nil {
		return reportSpecError(stderr, logger, err)
	}
	if *verbose {
		printWarnings(stderr, spec)
	}
	if err := gen.Plan(stdout, spec, gen.PlanOptions{Format: format, Wide: *wide}); err != nil {
		logger.Print(err)
		return exitFail
	}
	return exitOK
}

const diffUsage = "usage: retrygen diff [-json | -markdown] [-allow=breaking,loosened] [-overlay FILE]... [-allow-external-refs] OLD NEW\n"

// runDiff compares two versions of a spec. It exits 1 when it finds a breaking change or
// a loosened retry rule that -allow does not allow.
func runDiff(args []string, stdout, stderr io.Writer) int {
	logger := newLogger(stderr)
	fs := newFlagSet("retrygen diff", diffUsage, stderr)
	report := addReportFlags(fs, "print a JSON object: counts and one entry per change", "print Markdown for a pull request comment", "both specs")
	allow := fs.String("allow", "", "comma-separated `kinds` that do not fail the run: breaking, loosened")
	format, code, ok := report.parse(fs, args, logger, 2, "two spec files, OLD and NEW")
	if !ok {
		return code
	}
	allowed, err := allowedKinds(*allow)
	if err != nil {
		logger.Print(err)
		return exitUsage
	}
	old, new, ok := loadBoth(fs.Arg(0), fs.Arg(1), report.loadOptions(false), stderr, logger)
	if !ok {
		return exitFail
	}
	found, err := gen.Diff(stdout, old, new, gen.DiffOptions{Format: format})
	if err != nil {
		logger.Print(err)
		return exitFail
	}
	if msg := verdict(found, allowed); msg != "" {
		logger.Print(msg)
		return exitFail
	}
	return exitOK
}

// allowedKinds reads -allow: the kinds of finding that do not fail diff.
func allowedKinds(allow string) (map[string]bool, error) {
	allowed := map[string]bool{}
	for _, k := range strings.Split(allow, ",") {
		switch k = strings.TrimSpace(k); k {
		case "":
		case "breaking", "loosened":
			allowed[k] = true
		default:
			if len(k) <= 64 {
				if near := gen.Closest(k, []string{"breaking", "loosened"}); near != "" {
					return nil, fmt.Errorf("-allow: unknown kind %q: did you mean %s? (want breaking, loosened or both)", k, near)
				}
			}
			return nil, fmt.Errorf("-allow: unknown kind %q: want breaking, loosened or both", k)
		}
	}
	return allowed, nil
}

// loadBoth loads the two specs at the same time (loading is most of diff's work) and
// reports the problems of each.
func loadBoth(oldPath, newPath string, opts gen.LoadOptions, stderr io.Writer, logger *log.Logger) (old, new *gen.Spec, ok bool) {
	var newErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		new, newErr = gen.Load(newPath, opts)
	}()
	old, oldErr := gen.Load(oldPath, opts)
	<-done
	ok = true
	for _, err := range []error{oldErr, newErr} {
		if err != nil {
			reportSpecError(stderr, logger, err)
			ok = false
		}
	}
	return old, new, ok
}

// verdict says why diff fails, "" when what it found is allowed.
func verdict(found gen.Findings, allowed map[string]bool) string {
	var fail, kinds []string
	if found.Breaking > 0 && !allowed["breaking"] {
		fail = append(fail, plural(found.Breaking, "breaking change"))
		kinds = append(kinds, "breaking")
	}
	if found.Loosened > 0 && !allowed["loosened"] {
		fail = append(fail, plural(found.Loosened, "loosened retry rule"))
		kinds = append(kinds, "loosened")
	}
	if len(fail) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (-allow=%s accepts them)", strings.Join(fail, " and "), strings.Join(kinds, ","))
}

// plural spells n things: "1 breaking change", "2 breaking changes".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
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
