//go:build race

package hub

// raceSlowdown scales the deadlines of tests that time the hub under
// load: the race detector makes every access several times slower, and a
// flood that leaves an operator an answer in 300 ms leaves it one in a few
// seconds. The claim the deadline checks (operators are never locked out)
// is the same; its figure is the plain build's.
const raceSlowdown = 10

// raceMemory scales the memory bounds of the same tests: the race detector
// keeps shadow memory beside the heap (5–10× by its documentation; a flood
// that grows the plain hub by 12 MiB grew the raced one by 81 MiB).
const raceMemory = 5
