package longtest

import (
	"runtime/debug"
	"testing"
)

// Race says what the build says: the test binary's build settings record -race.
func TestRaceIsTheBuilds(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information")
	}
	race := false
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			race = s.Value == "true"
		}
	}
	if race != Race {
		t.Errorf("Race is %v in a binary built with -race=%v", Race, race)
	}
}
