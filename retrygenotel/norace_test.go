//go:build !race

package retrygenotel_test

const raceEnabled = false
