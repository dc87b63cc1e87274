package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for the retrygen command: with
// RETRYGEN_TEST_MAIN set it runs main, so that tests can check real exit codes.
func TestMain(m *testing.M) {
	if os.Getenv("RETRYGEN_TEST_MAIN") != "" {
		main()
		return
	}
	os.Exit(m.Run())
}

const (
	goodSpec = "../../testdata/plan/shop.yaml"
	badSpec  = "../../testdata/errors/maxattempts-zero.yaml"
)

// runCmd calls run and returns the exit code, stdout and stderr.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestUsageErrors(t *testing.T) {
	t.Setenv("GOPACKAGE", "")
	for _, args := range [][]string{
		{},
		{"-nosuchflag", goodSpec},
		{"-package", "p", goodSpec, "extra.yaml"},
		{goodSpec}, // no package: neither -package nor $GOPACKAGE
		{"-package", "not-a-name", goodSpec},
		{"-package", "func", goodSpec},
		{"-package", "p", "-o", "", goodSpec},
		{"plan"},
		{"plan", "-json", "-markdown", goodSpec},
		{"plan", "-yaml", goodSpec},
		{"plan", goodSpec, goodSpec},
	} {
		code, stdout, stderr := runCmd(t, args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if stdout != "" || !strings.HasPrefix(stderr, "retrygen: ") {
			t.Errorf("%q: stdout %q, stderr %q: want the complaint on stderr only, prefixed", args, stdout, stderr)
		}
		if n := strings.Count(stderr, "usage:"); n > 1 {
			t.Errorf("%q: usage printed %d times", args, n)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	code, _, stderr := runCmd(t, "-h")
	if code != 0 || !strings.Contains(stderr, "usage: retrygen") {
		t.Errorf("-h: exit %d, stderr %q", code, stderr)
	}
	code, stdout, _ := runCmd(t, "-version")
	if code != 0 || !strings.HasPrefix(stdout, "retrygen ") {
		t.Errorf("-version: exit %d, stdout %q", code, stdout)
	}
}

func TestSpecErrors(t *testing.T) {
	want := "maxattempts-zero.yaml:9:9: POST /orders (createOrder): x-retry.maxAttempts must be >= 1, got 0\n"
	for _, args := range [][]string{
		{"plan", badSpec},
		{"plan", "-json", badSpec},
		{"-package", "p", "-o", filepath.Join(t.TempDir(), "out.go"), badSpec},
	} {
		code, stdout, stderr := runCmd(t, args...)
		if code != 1 {
			t.Errorf("%q: exit %d, want 1", args, code)
		}
		if stdout != "" {
			t.Errorf("%q: stdout %q, want nothing", args, stdout)
		}
		if !strings.Contains(stderr, want) {
			t.Errorf("%q: stderr %q, want it to contain %q", args, stderr, want)
		}
	}
	code, _, stderr := runCmd(t, "plan", "no/such/spec.yaml")
	if code != 1 || !strings.Contains(stderr, "no/such/spec.yaml: no such file or directory") {
		t.Errorf("missing spec: exit %d, stderr %q", code, stderr)
	}
}

func TestPlanJSON(t *testing.T) {
	code, stdout, stderr := runCmd(t, "plan", "-json", goodSpec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &entries); err != nil {
		t.Fatalf("output is not a JSON array: %v", err)
	}
	if len(entries) != 10 {
		t.Fatalf("%d entries, want 10", len(entries))
	}
	want := []string{"attemptTimeout", "attempts", "connectionErrors", "goMethod", "idempotencyKey", "idempotencyKeyIn", "initialDelay", "jitter", "maxAttempts",
		"maxDelay", "maxElapsed", "maxRetryAfter", "method", "multiplier", "operationId", "overlays", "pagination", "path", "reason", "retry",
		"retryAfter", "serverSignals", "sources", "statusCodes"}
	for _, e := range entries {
		var keys []string
		for k := range e {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, want) {
			t.Fatalf("keys %v, want exactly %v", keys, want)
		}
	}
	var first struct {
		OperationID string            `json:"operationId"`
		GoMethod    string            `json:"goMethod"`
		Retry       bool              `json:"retry"`
		MaxAttempts int               `json:"maxAttempts"`
		Sources     map[string]string `json:"sources"`
	}
	if err := json.Unmarshal(mustJSON(t, entries[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.OperationID != "getCart" || first.GoMethod != "GetCart" || !first.Retry || first.MaxAttempts != 3 || first.Sources["jitter"] != "path" {
		t.Errorf("first entry: %+v", first)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPlanTableAndMarkdown(t *testing.T) {
	code, stdout, _ := runCmd(t, "plan", goodSpec)
	if code != 0 || !regexp.MustCompile(`(?m)^GET /carts/\{cartId\} +yes .* GetCart$`).MatchString(stdout) || !strings.Contains(stdout, "10 operations, 7 retried") {
		t.Errorf("table: exit %d:\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "plan", "-markdown", goodSpec)
	if code != 0 || !strings.Contains(stdout, "| GET /carts/{cartId} | yes |") || !strings.Contains(stdout, "**Retried:** 7 of 10") {
		t.Errorf("markdown: exit %d:\n%s", code, stdout)
	}
}

var headerRE = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "client_gen.go")
	code, stdout, stderr := runCmd(t, "-package", "shop", "-o", out, goodSpec)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(src), "\n")
	if !headerRE.MatchString(header) || header != "// Code generated by retrygen from "+filepath.Base(goodSpec)+". DO NOT EDIT." {
		t.Errorf("header %q", header)
	}
	if !bytes.Contains(src, []byte("\npackage shop\n")) {
		t.Error("package clause missing")
	}

	// Regenerating the same bytes leaves the file untouched.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(out, old, old); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCmd(t, "-package", "shop", "-o", out, goodSpec); code != 0 {
		t.Fatalf("regenerate: exit %d: %s", code, stderr)
	}
	if fi, _ := os.Stat(out); !fi.ModTime().Equal(old) {
		t.Error("unchanged output was rewritten")
	}

	// -check passes on the current file, writes nothing, and fails on a stale one.
	if code, _, stderr := runCmd(t, "-check", "-package", "shop", "-o", out, goodSpec); code != 0 {
		t.Errorf("-check on a current file: exit %d: %s", code, stderr)
	}
	stale := append(bytes.Clone(src), "// edited by hand\n"...)
	if err := os.WriteFile(out, stale, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCmd(t, "-package", "shop", "-o", out, "-check", goodSpec)
	if code != 1 || !strings.Contains(stderr, "is stale") || !strings.Contains(stderr, "-// edited by hand") {
		t.Errorf("-check on a stale file: exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, stale) {
		t.Error("-check wrote the file")
	}

	// A bad spec writes nothing: the old file stays as it was.
	if code, _, _ := runCmd(t, "-package", "shop", "-o", out, badSpec); code != 1 {
		t.Errorf("bad spec: exit %d, want 1", code)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, stale) {
		t.Error("a failed run changed the output file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the output folder, want 1", len(entries))
	}
}

func TestGeneratePackageFromEnvironment(t *testing.T) {
	t.Setenv("GOPACKAGE", "fromenv")
	out := filepath.Join(t.TempDir(), "client_gen.go")
	if code, _, stderr := runCmd(t, "-o", out, goodSpec); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	src, _ := os.ReadFile(out)
	if !bytes.Contains(src, []byte("\npackage fromenv\n")) {
		t.Error("$GOPACKAGE was not used")
	}
	header, _, _ := strings.Cut(string(src), "\n")
	if strings.Contains(header, "-package") || strings.Contains(header, "fromenv") {
		t.Errorf("header %q records more than the spec", header)
	}
}

// The header records the spec's file name alone and each overlay's, in order, quoted
// when it is not plain text.
func TestHeaderSource(t *testing.T) {
	for _, tt := range []struct {
		spec     string
		overlays []string
		want     string
	}{
		{"api.yaml", nil, "from api.yaml"},
		{"../specs/api.yaml", nil, "from api.yaml"},
		{"my api.yaml", nil, `from "my api.yaml"`},
		{"a\nfunc init() {}.yaml", nil, `from "a\nfunc init() {}.yaml"`},
		{"\u202eevil.yaml", nil, `from "\u202eevil.yaml"`},
		{"api.yaml", []string{"../overlays/keys.yaml", "retries.yaml"}, "from api.yaml -overlay keys.yaml -overlay retries.yaml"},
		{"api.yaml", []string{"my keys.yaml"}, `from api.yaml -overlay "my keys.yaml"`},
	} {
		if got := headerSource(tt.spec, tt.overlays); got != tt.want {
			t.Errorf("headerSource(%q, %q) = %q, want %q", tt.spec, tt.overlays, got, tt.want)
		}
	}
}

// With neither -package nor $GOPACKAGE, the package comes from the file being
// regenerated or checked.
func TestPackageFromExistingFile(t *testing.T) {
	t.Setenv("GOPACKAGE", "")
	out := filepath.Join(t.TempDir(), "client_gen.go")
	if code, _, stderr := runCmd(t, "-o", out, goodSpec); code != 2 || !strings.Contains(stderr, "no package name") {
		t.Fatalf("no package and no file: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runCmd(t, "-package", "shop", "-o", out, goodSpec); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "-check", "-o", out, goodSpec); code != 0 {
		t.Errorf("-check without -package: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runCmd(t, "-o", out, goodSpec); code != 0 {
		t.Errorf("regenerate without -package: exit %d, stderr %q", code, stderr)
	}
}

// "help" and "version" work as words too, and answer on stdout.
func TestHelpAndVersionWords(t *testing.T) {
	t.Setenv("GOPACKAGE", "")
	code, stdout, stderr := runCmd(t, "help")
	if code != 0 || !strings.Contains(stdout, "usage: retrygen") || stderr != "" {
		t.Errorf("help: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = runCmd(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "retrygen ") || stderr != "" {
		t.Errorf("version: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// help says what each command does, and a mistyped command is a usage error that names
// the command meant, not a spec that cannot be read; a file of that name is a spec.
func TestHelpNamesCommands(t *testing.T) {
	t.Setenv("GOPACKAGE", "")
	_, stdout, _ := runCmd(t, "help")
	for _, want := range []string{"plan     print each operation's retry policy", "diff     compare two versions", "herd     simulate clients"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, stdout)
		}
	}
	code, _, stderr := runCmd(t, "plna", "api.yaml")
	if code != 2 || !strings.Contains(stderr, `unknown command "plna": did you mean retrygen plan?`) {
		t.Errorf("plna: exit %d, stderr %q", code, stderr)
	}
	t.Chdir(t.TempDir())
	os.WriteFile("plna", []byte("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\n"), 0o644)
	t.Setenv("GOPACKAGE", "p")
	if code, _, stderr := runCmd(t, "plna"); code != 0 {
		t.Errorf("a spec file named plna: exit %d, stderr %q", code, stderr)
	}
}

// TestWarnings: -v prints the findings that do not stop generation, located; without it
// nothing is printed, and neither changes what is generated.
func TestWarnings(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "api.yaml")
	os.WriteFile(spec, []byte(`openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /tags:
    get:
      operationId: listTags
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: array}
`), 0o644)
	for _, args := range [][]string{{"plan", "-v", spec}, {"-package", "p", "-o", filepath.Join(dir, "a.go"), "-v", spec}} {
		code, _, stderr := runCmd(t, args...)
		if code != 0 || !strings.HasPrefix(stderr, "warning: "+spec+":11:13: GET /tags (listTags): ") || !strings.Contains(stderr, "items") {
			t.Errorf("%q: exit %d, stderr %q; want a located warning about items", args, code, stderr)
		}
	}
	for _, args := range [][]string{{"plan", spec}, {"-package", "p", "-o", filepath.Join(dir, "b.go"), spec}} {
		if code, _, stderr := runCmd(t, args...); code != 0 || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q; want silence without -v", args, code, stderr)
		}
	}
	// The headers differ only in the -o argument; the rest must not.
	a, _ := os.ReadFile(filepath.Join(dir, "a.go"))
	b, _ := os.ReadFile(filepath.Join(dir, "b.go"))
	_, restA, _ := bytes.Cut(a, []byte("\n"))
	_, restB, _ := bytes.Cut(b, []byte("\n"))
	if len(restA) == 0 || !bytes.Equal(restA, restB) || bytes.Contains(a[:len(a)-len(restA)], []byte("-v")) {
		t.Error("-v changed what was generated")
	}
}

// TestExitCodes runs the test binary as the retrygen command.
func TestExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"plan", goodSpec}, 0},
		{[]string{"plan", badSpec}, 1},
		{[]string{"plan"}, 2},
		{[]string{"-nosuchflag"}, 2},
	} {
		cmd := exec.Command(os.Args[0], tt.args...)
		cmd.Env = append(os.Environ(), "RETRYGEN_TEST_MAIN=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.code {
			t.Errorf("retrygen %q: exit %d, want %d (stderr %q)", tt.args, code, tt.code, stderr.String())
		}
		if code != 0 && !strings.Contains(stderr.String(), "retrygen: ") && !strings.Contains(stderr.String(), ".yaml:") {
			t.Errorf("retrygen %q: stderr %q lacks the prefix or a location", tt.args, stderr.String())
		}
	}
}

// Flags that Go's flag parsing leaves as arguments, before a command word or after a
// spec file, are named with where they go; after "--" every argument is a file.
func TestMisplacedFlags(t *testing.T) {
	t.Setenv("GOPACKAGE", "")
	spaced := filepath.Join(t.TempDir(), "my api.yaml")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-v", "plan", goodSpec}, "retrygen: plan is a command: it comes first, its flags after it, as in retrygen plan -v " + goodSpec + "\n"},
		{[]string{"-v", "-json", "plan", goodSpec}, "retrygen: plan is a command: it comes first, its flags after it, as in retrygen plan -v -json " + goodSpec + "\n"},
		{[]string{"-v", "plan", spaced}, "as in retrygen plan -v '" + spaced + "'\n"},
		{[]string{"-strict", "diff", "a.yaml", "b.yaml"}, "retrygen: diff is a command: it comes first, its flags after it, as in retrygen diff -strict a.yaml b.yaml\n"},
		{[]string{"-v", "version"}, "retrygen: version is a command: it comes first, its flags after it, as in retrygen version\n"},
		{[]string{"plan", goodSpec, "-json"}, "retrygen: flag -json comes after " + goodSpec + ": flags go before the spec file, which end them (see retrygen plan -h)\n"},
		{[]string{"plan", goodSpec, "--wide"}, "retrygen: flag --wide comes after " + goodSpec},
		{[]string{"diff", "a.yaml", "-allow=breaking", "b.yaml"}, "retrygen: flag -allow=breaking comes after a.yaml: flags go before the spec files"},
		{[]string{"diff", "a.yaml", "b.yaml", "-json"}, "retrygen: flag -json comes after a.yaml b.yaml: flags go before the spec files"},
		{[]string{"-package", "p", goodSpec, "-o", "x.go"}, "retrygen: flag -o comes after " + goodSpec + ": flags go before the spec file, which end them (see retrygen -h)\n"},
		{[]string{"-package", "p", "--", goodSpec, "-o"}, "retrygen: want exactly one spec file, got 2 arguments: " + goodSpec + " -o\n"},
		{[]string{"plan", "--", goodSpec, "-json"}, "retrygen: want exactly one spec file, got 2 arguments: " + goodSpec + " -json\n"},
		{[]string{"--", "plan", goodSpec}, "retrygen: want exactly one spec file, got 2 arguments: plan " + goodSpec + "\n"},
	} {
		code, stdout, stderr := runCmd(t, tt.args...)
		if code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, "retrygen: ") || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// A mistyped flag is named with the flag it looks like, and a wrong number of spec files
// with the files given, in words that fit the count.
func TestUnknownFlagsAndArgumentCounts(t *testing.T) {
	t.Setenv("GOPACKAGE", "")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-pakage", "p", goodSpec}, "retrygen: unknown flag -pakage: did you mean -package? (retrygen -h lists the flags)\n"},
		{[]string{"--chek", goodSpec}, "retrygen: unknown flag -chek: did you mean -check?"},
		{[]string{"-vv", goodSpec}, "retrygen: unknown flag -vv: did you mean -v?"},
		{[]string{"-x", goodSpec}, "retrygen: unknown flag -x (retrygen -h lists the flags)\n"},
		{[]string{"-nosuchflag", goodSpec}, "retrygen: unknown flag -nosuchflag (retrygen -h lists the flags)\n"},
		{[]string{"-a\x1b[2J", goodSpec}, `retrygen: unknown flag "-a\x1b[2J" (retrygen -h lists the flags)`},
		{[]string{"-" + strings.Repeat("p", 100000), goodSpec}, "retrygen: unknown flag -ppp"},
		{[]string{"plan", "-jsno", goodSpec}, "retrygen: unknown flag -jsno: did you mean -json? (retrygen plan -h lists the flags)\n"},
		{[]string{"diff", "-alow=breaking", "a.yaml", "b.yaml"}, "retrygen: unknown flag -alow: did you mean -allow?"},
		{[]string{"diff", "-allow=breakng", "a.yaml", "b.yaml"}, `retrygen: -allow: unknown kind "breakng": did you mean breaking? (want breaking, loosened or both)` + "\n"},
		{[]string{"diff", "-allow=all", "a.yaml", "b.yaml"}, `retrygen: -allow: unknown kind "all": want breaking, loosened or both` + "\n"},
		{[]string{"herd", "-clints", "3"}, "retrygen: unknown flag -clints: did you mean -clients?"},
		{[]string{"-package", "p"}, "retrygen: want exactly one spec file, got none\n"},
		{[]string{"diff", "a.yaml"}, "retrygen: want two spec files, OLD and NEW, got 1 argument: a.yaml\n"},
		{[]string{"plan", "a.yaml", "b c.yaml"}, "retrygen: want exactly one spec file, got 2 arguments: a.yaml 'b c.yaml'\n"},
		{[]string{"plan", "1", "2", "3", "4", "5", "6"}, "retrygen: want exactly one spec file, got 6 arguments: 1 2 3 4 …\n"},
	} {
		code, stdout, stderr := runCmd(t, tt.args...)
		if code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, tt.want) {
			t.Errorf("%.60q: exit %d, stderr %.300q; want exit 2 and %q first", tt.args, code, stderr, tt.want)
		}
	}
}

// A spec that is not there is reported as such, even where no package name is given.
func TestMissingSpecBeforePackage(t *testing.T) {
	t.Setenv("GOPACKAGE", "")
	missing := filepath.Join(t.TempDir(), "no such api.yaml")
	for _, args := range [][]string{{missing}, {"-o", filepath.Join(t.TempDir(), "c.go"), missing}, {"-package", "p", missing}} {
		code, _, stderr := runCmd(t, args...)
		if code != exitFail || !strings.Contains(stderr, missing+": no such file or directory") || strings.Contains(stderr, "package") {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 naming the missing spec", args, code, stderr)
		}
	}
}
