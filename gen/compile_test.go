package gen

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
	"github.com/retrygen/retrygen/internal/tempmod"
)

// tempModule creates a module that builds against this repository's runtime, offline.
func tempModule(t *testing.T) string {
	t.Helper()
	return tempmod.New(t, "..", "retrygen.test/clients")
}

// writePackage writes files into the package folder pkg of the module at dir.
func writePackage(t *testing.T, dir, pkg string, files map[string][]byte) {
	t.Helper()
	p := filepath.Join(dir, pkg)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(p, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goCmd runs the go command in dir, offline, and fails the test with its output when it
// fails.
func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = tempmod.Env()
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
}

// TestGoldenCompiles builds and vets every golden client against the local runtime, and
// runs the tests a case carries (client_test.go) against its generated client.
func TestGoldenCompiles(t *testing.T) {
	longtest.NoRace(t)
	dir := tempModule(t)
	for _, name := range goldenCases(t) {
		want, err := os.ReadFile(filepath.Join(goldenDir, name, "want.go"))
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{"client_gen.go": want}
		test, err := os.ReadFile(filepath.Join(goldenDir, name, "client_test.go"))
		if err == nil {
			files["client_test.go"] = test
		}
		writePackage(t, dir, name, files)
		if splitCases[name] {
			// The same client in parts, as a larger one is written: its tests run on them.
			files := splitClient(t, name, len(want)/3)
			if test != nil {
				files["client_test.go"] = test
			}
			writePackage(t, dir, name+"split", files)
		}
	}
	goCmd(t, dir, "vet", "./...")
	goCmd(t, dir, "test", "-count=1", "./...")
}

// splitCases are the golden cases TestGoldenCompiles also builds and tests in parts.
var splitCases = map[string]bool{"paging": true, "semantics": true}

// splitClient generates the golden case name in files of at most splitAbove bytes, by the
// names PartName gives them.
func splitClient(t *testing.T, name string, splitAbove int) map[string][]byte {
	t.Helper()
	spec, err := Load(filepath.Join(goldenDir, name, "spec.yaml"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := GenerateFiles(spec, GenerateOptions{Package: name, Command: "-package " + name + " -o want.go spec.yaml"}, splitAbove)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) < 3 {
		t.Fatalf("%s in parts of %d bytes: %d files, want 3 or more", name, splitAbove, len(parts))
	}
	files := map[string][]byte{}
	for _, p := range parts {
		files[PartName("client_gen.go", p.Part)] = p.Source
	}
	return files
}

// TestAllSpecsCompile generates a client for every description in the spec corpus and
// builds and vets them all, one package per spec; then it runs the tasks of
// docs/client.md (testdata/sdk: the everyday ones, the page walks and the ones users of
// other SDKs write by hand) with the openai, github and stripe clients.
func TestAllSpecsCompile(t *testing.T) {
	longtest.Heavy(t)
	specs := corpus.Dir(t)
	entries, err := os.ReadDir(specs)
	if err != nil {
		t.Fatal(err)
	}
	dir := tempModule(t)
	n := 0
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || ext != ".yaml" && ext != ".json" && ext != ".yml" {
			continue
		}
		pkg := packageName(e.Name())
		path := filepath.Join(specs, e.Name())
		spec, err := Load(path, LoadOptions{})
		if err != nil {
			t.Errorf("%s: load: %v", e.Name(), err)
			continue
		}
		// In files as the retrygen command writes them.
		parts, err := GenerateFiles(spec, GenerateOptions{Package: pkg, Command: "-package " + pkg + " " + e.Name()}, SplitAbove)
		if err != nil {
			t.Errorf("%s: generate: %v", e.Name(), err)
			continue
		}
		files, lines := map[string][]byte{}, 0
		for _, p := range parts {
			if len(p.Source) > SplitAbove {
				t.Errorf("%s: part %d holds %d bytes, over %d", e.Name(), p.Part, len(p.Source), SplitAbove)
			}
			files[PartName("client_gen.go", p.Part)] = p.Source
			lines += strings.Count(string(p.Source), "\n")
		}
		writePackage(t, dir, pkg, files)
		t.Logf("%s: %d lines in %d files", e.Name(), lines, len(parts))
		n++
	}
	if n == 0 {
		t.Fatalf("no specs in %s", specs)
	}
	if t.Failed() {
		return
	}
	tasks := map[string][]byte{}
	names, err := filepath.Glob(filepath.Join("..", "testdata", "sdk", "*_test.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("the tasks of testdata/sdk: %v", err)
	}
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		tasks[filepath.Base(name)] = src
	}
	writePackage(t, dir, "sdktasks", tasks)
	buildWithCompileCost(t, dir, "stripe", "github", "openai")
	goCmd(t, dir, "vet", "./...")
	goCmd(t, dir, "test", "-count=1", "./sdktasks")
}

// buildWithCompileCost builds every package of the module in dir and logs what compiling
// each of the client packages pkgs cost: the compiler's time and the functions it
// compiled (its -bench report), and the peak memory of the build's largest compile. It
// asserts nothing: a machine's load decides the time.
func buildWithCompileCost(t *testing.T, dir string, pkgs ...string) {
	t.Helper()
	args := []string{"build"}
	reports := make([]string, len(pkgs))
	for i, pkg := range pkgs {
		reports[i] = filepath.Join(t.TempDir(), pkg+".bench")
		args = append(args, "-gcflags=retrygen.test/clients/"+pkg+"=-bench="+reports[i])
	}
	cmd := exec.Command("go", append(args, "./...")...)
	cmd.Dir = dir
	cmd.Env = tempmod.Env()
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./...: %v\n%s", err, out)
	}
	t.Logf("go build ./...: %v, peak %s", time.Since(start).Round(time.Millisecond), peakMemory(cmd.ProcessState))
	for i, pkg := range pkgs {
		data, err := os.ReadFile(reports[i])
		if err != nil {
			t.Fatal(err)
		}
		var total, funcs string
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			switch {
			case len(f) >= 3 && strings.HasSuffix(f[0], ":total"):
				total = f[2] + " ns"
			case len(f) >= 8 && strings.HasSuffix(f[0], ":be:compilefuncs"):
				funcs = f[6] + " funcs"
			}
		}
		t.Logf("compile %s: %s, %s", pkg, total, funcs)
	}
}

var nonIdent = regexp.MustCompile(`[^a-z0-9]+`)

// packageName makes a package name of a spec's file name: "openrouter-31.yaml" gives
// "openrouter31".
func packageName(file string) string {
	base := strings.TrimSuffix(file, filepath.Ext(file))
	name := nonIdent.ReplaceAllString(strings.ToLower(base), "")
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "spec" + name
	}
	return name
}
