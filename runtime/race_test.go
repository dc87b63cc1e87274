//go:build race

package runtime

// raceEnabled reports a build with the race detector, which changes allocation counts.
const raceEnabled = true
