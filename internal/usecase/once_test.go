package usecase

import (
	"context"
	"errors"
	"testing"
)

// Once runs an effect outside the store once per key: a repeat replays the
// answer; a repeat after an attempt that died between its effect and its
// answer resumes (again set) instead of starting over; a failed effect
// leaves nothing, so the request can be sent again.
func TestOnceRunsAnOutsideEffectOncePerKey(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	k, err := NewKey("human:henry", "enrol-1", []byte("POST /v1/operators ada"))
	mustNil(t, err)
	var runs []bool
	effect := func(again bool) (string, error) {
		runs = append(runs, again)
		return "enrolled ada", nil
	}
	for range 2 {
		out, err := Once(ctx, in.cases, k, effect)
		if err != nil || out != "enrolled ada" {
			t.Fatalf("Once: %q %v", out, err)
		}
	}
	if len(runs) != 1 || runs[0] {
		t.Fatalf("effect runs %v, want one first run", runs)
	}

	died, err := NewKey("human:henry", "enrol-2", []byte("POST /v1/operators bob"))
	mustNil(t, err)
	var nothing string
	found, err := in.cases.intend(ctx, died, &nothing) // the attempt that died after its effect
	mustNil(t, err)
	if found != fresh {
		t.Fatalf("a new key found %v", found)
	}
	runs = nil
	if _, err := Once(ctx, in.cases, died, effect); err != nil || len(runs) != 1 || !runs[0] {
		t.Fatalf("the repeat of an attempt that died midway: runs %v, %v; want one run with again set", runs, err)
	}

	failing, err := NewKey("human:henry", "enrol-3", []byte("POST /v1/operators eve"))
	mustNil(t, err)
	boom := errors.New("disk full")
	if _, err := Once(ctx, in.cases, failing, func(bool) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Fatalf("a failed effect: %v", err)
	}
	runs = nil
	if _, err := Once(ctx, in.cases, failing, effect); err != nil || len(runs) != 1 || runs[0] {
		t.Fatalf("sent again after a failed effect: runs %v, %v; want a first run", runs, err)
	}
}
