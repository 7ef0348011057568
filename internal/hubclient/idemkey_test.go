package hubclient

import (
	"regexp"
	"testing"
	"time"
)

// A write's Idempotency-Key is valid for the hub (docs/api.md: 1 to 128
// letters, digits, '.', '_', ':' or '-'), new for every write, and sorts
// after the keys made before it, so the hub's records of a client's writes
// append to its store instead of landing on random pages.
func TestIdempotencyKeysAreValidUniqueAndInTimeOrder(t *testing.T) {
	valid := regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
	seen := map[string]bool{}
	prev := NewIdempotencyKey()
	for range 50 {
		time.Sleep(time.Millisecond / 4)
		k := NewIdempotencyKey()
		if !valid.MatchString(k) {
			t.Fatalf("key %q is not a valid Idempotency-Key", k)
		}
		if seen[k] {
			t.Fatalf("key %q made twice", k)
		}
		seen[k] = true
		if k[:11] < prev[:11] {
			t.Fatalf("key %q of a later write sorts before %q", k, prev)
		}
		prev = k
	}
	a := NewIdempotencyKey()
	time.Sleep(2 * time.Millisecond)
	if b := NewIdempotencyKey(); b <= a {
		t.Fatalf("key %q made 2 ms after %q sorts before it", b, a)
	}
}
