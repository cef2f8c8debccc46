//go:build !race

package quickjs

const raceEnabled = false
