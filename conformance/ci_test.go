package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// .ci/run checks for the spec corpus before it does anything that takes time: with go
// standing in for a stub that answers only its version, it stops at once, saying where
// the corpus should be.
func TestCIChecksTheCorpusFirst(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	stubs := t.TempDir()
	calls := filepath.Join(stubs, "calls")
	stub := func(name, script string) {
		if err := os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stub("go", `echo "go $*" >>`+calls+`
if [ "$*" = "env GOVERSION" ]; then echo go1.26.0; exit 0; fi
exit 99
`)
	stub("gcc", "exit 0\n")
	missing := filepath.Join(t.TempDir(), "no specs")
	cmd := exec.Command("bash", filepath.Join("..", ".ci", "run"))
	cmd.Env = append(os.Environ(), "PATH="+stubs+string(os.PathListSeparator)+os.Getenv("PATH"), "RETRYGEN_SPECS="+missing)
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), "ci: no spec corpus at "+missing) {
		t.Errorf("exit %d (%v), output:\n%s\nwant exit 1 naming the missing corpus", code, err, out)
	}
	if got, _ := os.ReadFile(calls); strings.TrimSpace(string(got)) != "go env GOVERSION" {
		t.Errorf("go was called before the corpus check:\n%s", got)
	}
}
