//go:build race

package main

// raceSlowdown scales the deadlines of tests that time a process: under
// the race detector every access is several times slower, and what exits
// within a second takes a few. The claim is the same; its figure is the
// plain build's.
const raceSlowdown = 10
