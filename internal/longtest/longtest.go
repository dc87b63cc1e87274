// Package longtest gates the slow test suites: whole-corpus compiles, programs built from
// hostile specs, determinism across locales, validation of every public spec, recipes run
// in modules of their own. They run when RETRYGEN_LONG=1, as `.ci/run` sets it; the
// everyday `go test ./...` stays fast.
//
// The race detector finds nothing in a test that compiles programs in child processes,
// or that turns a large spec into a client in one goroutine, and makes it five to ten
// times slower. Such tests say so (Heavy, NoRace, HeavyOn): in a test binary built with
// -race they skip, or run small, and `.ci/run` runs their packages a second time without
// the detector. Tests of concurrent code keep it.
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

// Heavy is Only for a slow suite that gains nothing from the race detector: it also
// skips the test in a binary built with -race.
func Heavy(t testing.TB) {
	t.Helper()
	Only(t)
	NoRace(t)
}

// NoRace skips the test in a binary built with -race, for a test of the everyday suite
// that gains nothing from the race detector and is slow under it; .ci/run runs it in its
// pass without the detector.
func NoRace(t testing.TB) {
	t.Helper()
	if Race {
		t.Skip("runs without the race detector, as .ci/run's second pass does: it exercises no concurrent code")
	}
}

// HeavyOn reports whether the slow part of a test that gains nothing from the race
// detector runs: RETRYGEN_LONG=1, in a binary built without -race.
func HeavyOn() bool { return On() && !Race }
