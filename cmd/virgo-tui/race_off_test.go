//go:build !race

package main

// raceSlowdown is 1 outside the race detector (see race_on_test.go).
const raceSlowdown = 1
