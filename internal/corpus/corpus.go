// Package corpus locates, for tests, the corpus of real public OpenAPI descriptions: the
// folder shared/specs beside the repository (../shared/specs from its root, history/
// holding earlier versions of some of them), or the folder RETRYGEN_SPECS names. The
// corpus is not part of the repository; a test that needs it skips, saying why, in a clone
// without it, unless RETRYGEN_SPECS_REQUIRED=1 (as .ci/run sets it) makes that a failure.
package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names the corpus folder, overriding ../shared/specs; Required makes its absence fail
// the tests that need it.
const (
	Env      = "RETRYGEN_SPECS"
	Required = "RETRYGEN_SPECS_REQUIRED"
)

// Dir returns the corpus folder, or skips t when there is none.
func Dir(t testing.TB) string {
	t.Helper()
	dir, ok := Find()
	if !ok {
		absent(t, t.Skip, "skipped: no spec corpus at "+dir+" (a clone without ../shared/specs beside it; set "+Env+" to its folder)")
	}
	return dir
}

// absent reports that the corpus is missing: it fails t under RETRYGEN_SPECS_REQUIRED=1,
// else hands msg to report (t.Skip or t.Log).
func absent(t testing.TB, report func(...any), msg string) {
	t.Helper()
	if os.Getenv(Required) == "1" {
		t.Fatal(msg)
	}
	report(msg)
}

// Path returns the corpus file name (e.g. "stripe.yaml", "history/openai-2026-08-10.yaml"),
// or skips t when the corpus is absent. A corpus without the file fails t.
func Path(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join(Dir(t), filepath.FromSlash(name))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the spec corpus lacks %s: %v", name, err)
	}
	return path
}

// Optional returns the corpus folder and whether it exists, for a test that checks the
// repository's own files too: when the corpus is absent it says so in the test's log and
// goes on, unless RETRYGEN_SPECS_REQUIRED=1, where the test fails.
func Optional(t testing.TB) (string, bool) {
	t.Helper()
	dir, ok := Find()
	if !ok {
		absent(t, t.Log, "no spec corpus at "+dir+" (set "+Env+" to its folder): the repository's files only")
	}
	return dir, ok
}

// Find returns the corpus folder and whether it exists; it does not need a test.
func Find() (string, bool) {
	dir := os.Getenv(Env)
	if dir == "" {
		dir = filepath.Join(moduleRoot(), "..", "shared", "specs")
	}
	info, err := os.Stat(dir)
	return dir, err == nil && info.IsDir()
}

// moduleRoot is the folder above the working directory (a test's is its package's) that
// holds go.mod, or the working directory.
func moduleRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}

// MultiFile returns the description at name (e.g.
// "digitalocean/specification/DigitalOcean-public.v2.yaml") in the folder of descriptions
// written across several files, shared/multifile beside the spec corpus, or skips t when
// that folder is absent (failing it under RETRYGEN_SPECS_REQUIRED=1). A folder without the
// file fails t.
func MultiFile(t testing.TB, name string) string {
	t.Helper()
	specs, _ := Find()
	dir := filepath.Join(filepath.Dir(specs), "multifile")
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		msg := "skipped: no multi-file descriptions at " + dir + " (a clone without ../shared/multifile beside it)"
		if os.Getenv(Required) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	path := filepath.Join(dir, filepath.FromSlash(name))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the multi-file descriptions lack %s: %v", name, err)
	}
	return path
}
