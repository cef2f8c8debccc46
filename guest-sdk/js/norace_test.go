//go:build !race

package jsprelude_test

// raceSlowdown scales the corpus's time bound under the race detector.
const raceSlowdown = 1
