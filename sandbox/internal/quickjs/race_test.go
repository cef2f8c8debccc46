//go:build race

package quickjs

const raceEnabled = true
