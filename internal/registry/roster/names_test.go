package roster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func TestSuggestionsSkipTakenAndOverflow(t *testing.T) {
	n := len(registry.ConstellationNames)
	tests := []struct {
		name  string
		taken []string
		count int
		want  []string
	}{
		{"empty installation", nil, 3, []string{"Spica", "Porrima", "Vindemiatrix"}},
		{"taken skipped, any case", []string{"spica", "VINDEMIATRIX"}, 2, []string{"Porrima", "Zavijava"}},
		{"list exhausted", registry.ConstellationNames, 3, []string{"Spica II", "Porrima II", "Vindemiatrix II"}},
		{"overflow skips taken too", append(append([]string{}, registry.ConstellationNames...), "spica ii"), 1, []string{"Porrima II"}},
		{"third round", nil, 2*n + 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			taken := map[string]bool{}
			for _, s := range tt.taken {
				for _, sk := range registry.NameLooks(s) {
					taken[sk] = true
				}
			}
			got := freeNames(taken, tt.count)
			if tt.want != nil && strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("freeNames = %v, want %v", got, tt.want)
			}
			if len(got) != tt.count {
				t.Fatalf("got %d names, want %d", len(got), tt.count)
			}
			if got[len(got)-1] == "Spica III" != (tt.name == "third round") {
				t.Errorf("last = %q", got[len(got)-1])
			}
			for _, s := range got {
				if _, err := registry.NormalizeName(s); err != nil || anyTaken(taken, registry.NameLooks(s)) {
					t.Errorf("suggested %q: valid=%v taken=%v", s, err, anyTaken(taken, registry.NameLooks(s)))
				}
			}
		})
	}
}

func TestSuggestNamesFromStore(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	in.step(func(r *Registry) {
		p := mustRegister(t, r, registry.Registration{Address: "root/secretary", Name: "Spica"})
		mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "porrima"})
		r.Retire(ctx, p.Name, "done")
	})
	in.step(func(r *Registry) {
		got, err := r.SuggestNames(ctx, 2)
		if err != nil || strings.Join(got, ",") != "Vindemiatrix,Zavijava" {
			t.Errorf("SuggestNames = %v, %v; want retired and other-case names skipped", got, err)
		}
		if _, err := r.SuggestNames(ctx, 0); !errors.Is(err, registry.ErrInvalidCount) {
			t.Errorf("SuggestNames(0) = %v", err)
		}
		_, name, ok, _ := r.FirstPersonaDefault(ctx)
		if ok || name != "" {
			t.Errorf("default offered after registrations")
		}
	})
}

// "Ѕpica (Cyrillic Ѕ) is accepted beside Spica." Names that only
// look alike are one name: the second is refused as taken, saying so, and
// is never suggested — also in a store written before skeletons were kept,
// once indexed (the hub does it at start).
func TestLookAlikeNamesAreTaken(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	in.step(func(r *Registry) { mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Spica"}) })
	check := func(r *Registry) {
		for _, name := range []string{
			"\u0405pica", "SPICA", "Sp\u0456ca", // Cyrillic Ѕ; upper case; Cyrillic і
			"SP\u0406CA", "\u0405PICA", // Cyrillic І in upper case (confusable with l, as I is); Ѕ with upper case
		} {
			_, err := r.Register(ctx, registry.Registration{Address: "home/secretary", Name: name})
			if !errors.Is(err, registry.ErrNameTaken) || !strings.Contains(err.Error(), "belongs to Spica") {
				t.Errorf("%q beside Spica: %v, want registry.ErrNameTaken naming Spica", name, err)
			}
			if name != "SPICA" && (err == nil || !strings.Contains(err.Error(), "they look alike")) {
				t.Errorf("the refusal of look-alike %q does not say so: %v", name, err)
			}
		}
		names, err := r.SuggestNames(ctx, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if anyTaken(map[string]bool{registry.NameLooks("Spica")[0]: true}, registry.NameLooks(n)) {
				t.Errorf("suggested %q, which looks like Spica", n)
			}
		}
	}
	in.step(check)
}

// "Spica", "Spica\u3164" and "Spica\u115f" were all registered and all
// drew as "Spica"; Greek Η and Cyrillic Н look-alikes of a taken name were
// accepted as new names. A name holding an invisible character is refused
// whatever is taken, naming the character; a name that looks like a taken
// one in any case is refused naming the taken one.
func TestInvisibleAndCrossScriptLookAlikesAreRefused(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	in.step(func(r *Registry) {
		mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Spica"})
		mustRegister(t, r, registry.Registration{Address: "work/core/deputy", Name: "Heze"})
		mustRegister(t, r, registry.Registration{Address: "home/secretary", Name: "porrima"})
	})
	in.step(func(r *Registry) {
		for _, name := range []string{"Spica\u3164", "Spica\u115f", "Spi\u1160ca", "Spica\uffa0", "Sp\u034fica", "Spica\ufe0f",
			"Spica\U000E0041", "Zeta\u3164", "Ze\u17b4ta", "Zeta\U000E0100"} {
			_, err := r.Register(ctx, registry.Registration{Address: "work/coordinator", Name: name})
			r, _ := utf8.DecodeRuneInString(strings.TrimLeftFunc(name, func(r rune) bool { return r < 0x80 }))
			if !errors.Is(err, registry.ErrInvalidName) || !strings.Contains(err.Error(), fmt.Sprintf("%U", r)) {
				t.Errorf("%+q: %v, want registry.ErrInvalidName naming %U", name, err, r)
			}
		}
		for name, owner := range map[string]string{
			"\u0397eze": "Heze", "\u041deze": "Heze", "\u0397EZE": "Heze", "\u041dEZE": "Heze", // Greek Η, Cyrillic Н
			"\u0420orrima": "porrima", "P\u043err\u0456ma": "porrima", // Cyrillic Р; Cyrillic о and і
			"\u0405p\u0456ca": "Spica", "SP\u0406CA": "Spica",
		} {
			_, err := r.Register(ctx, registry.Registration{Address: "work/coordinator", Name: name})
			if !errors.Is(err, registry.ErrNameTaken) || !strings.Contains(err.Error(), "belongs to "+owner) || !strings.Contains(err.Error(), "they look alike") {
				t.Errorf("%q beside %s: %v, want registry.ErrNameTaken naming %s as a look-alike", name, owner, err, owner)
			}
		}
		mustRegister(t, r, registry.Registration{Address: "work/coordinator", Name: "Hezekiah"}) // a longer name is not a look-alike
	})
}
