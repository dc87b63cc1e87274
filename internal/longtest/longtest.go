// Package longtest gates the slow test suites: whole-corpus compiles, programs built from
// hostile specs, determinism across locales, validation of every public spec, recipes run
// in modules of their own. They run when RETRYGEN_LONG=1, as `.ci/run` sets it; the
// everyday `go test ./...` stays fast.
package longtest

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the slow suites on.
const Env = "RETRYGEN_LONG"

// On reports whether RETRYGEN_LONG=1 asks for the slow suites, for a test whose slow part
// is optional.
func On() bool { return os.Getenv(Env) == "1" }

// Only skips the test unless RETRYGEN_LONG=1 asks for the slow suites.
func Only(t testing.TB) {
	t.Helper()
	if !On() {
		t.Skip("slow suite: run with " + Env + "=1 (.ci/run does)")
	}
}
