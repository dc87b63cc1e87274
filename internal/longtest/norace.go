//go:build !race

package longtest

// Race reports whether the test binary was built with the race detector.
const Race = false
