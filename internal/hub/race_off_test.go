//go:build !race

package hub

// raceSlowdown is 1 outside the race detector (see race_on_test.go).
const raceSlowdown = 1

// raceMemory: no race detector, the memory bounds as written.
const raceMemory = 1
