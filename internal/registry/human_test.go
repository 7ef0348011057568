package registry

import (
	"errors"
	"testing"
)

// The confirmation queue compares principals case-insensitively; the
// registry must store the one canonical form, or a bound human:Henry could
// never decide as human:henry.
func TestNormalizeHumanCanonicalForm(t *testing.T) {
	for in, want := range map[string]string{
		"human:Henry": "human:henry",
		"Henry":       "human:henry",
		"human:ada":   "human:ada",
		" human:A.b ": "human:a.b",
	} {
		got, err := NormalizeHuman(in)
		if err != nil || got != want {
			t.Errorf("NormalizeHuman(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := NormalizeHuman("human:bad name"); !errors.Is(err, ErrInvalidHuman) {
		t.Errorf("a space in a human name: err = %v, want ErrInvalidHuman", err)
	}
}
