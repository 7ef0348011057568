package registry

import (
	"errors"
	"strings"
	"testing"
)

// The suggestions, in their order: "Spica, Porrima, Vindemiatrix, Zavijava,
// Auva, Heze, Zaniah, Syrma, Kang, Khambalia, Rijl al Awwa, Elgafar, Lich".
func TestConstellationNamesOrderAndValidity(t *testing.T) {
	head := "Spica,Porrima,Vindemiatrix,Zavijava,Auva,Heze,Zaniah,Syrma,Kang,Khambalia,Rijl al Awwa,Elgafar"
	if got := strings.Join(ConstellationNames[:12], ","); got != head {
		t.Errorf("list starts %s, want %s", got, head)
	}
	seen := map[string]bool{}
	for _, n := range ConstellationNames {
		if _, err := NormalizeName(n); err != nil {
			t.Errorf("listed name %q is invalid: %v", n, err)
		}
		if seen[NameKey(n)] {
			t.Errorf("%q listed twice", n)
		}
		seen[NameKey(n)] = true
	}
	if !seen["lich"] {
		t.Errorf("Lich missing")
	}
}

func TestRoman(t *testing.T) {
	for n, want := range map[int]string{2: "II", 4: "IV", 9: "IX", 14: "XIV", 40: "XL", 1994: "MCMXCIV"} {
		if got := roman(n); got != want {
			t.Errorf("roman(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestNormalizeName(t *testing.T) {
	good := map[string]string{"Rijl al Awwa": "Rijl al Awwa", " Heze ": "Heze", "O'Neil-2": "O'Neil-2", "Mönch": "Mönch",
		strings.Repeat("é", 40): strings.Repeat("é", 40)}
	for in, want := range good {
		if got, err := NormalizeName(in); err != nil || got != want {
			t.Errorf("NormalizeName(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "   ", "a/b", "tab\there", "x_y", "emoji🙂", strings.Repeat("a", 41)} {
		if _, err := NormalizeName(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("NormalizeName(%q) = %v, want ErrInvalidName", bad, err)
		}
	}
}

func TestNormalizeHuman(t *testing.T) {
	t.Setenv("USER", "")
	for in, want := range map[string]string{"": "human:owner", "ada": "human:ada", "human:ada.l": "human:ada.l"} {
		if got, err := NormalizeHuman(in); err != nil || got != want {
			t.Errorf("NormalizeHuman(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	t.Setenv("USER", "bad user")
	if got, _ := NormalizeHuman(""); got != "human:owner" {
		t.Errorf("unusable $USER gave %q", got)
	}
	for _, bad := range []string{"human:", "human:-x", "human:a b", "persona:ada", "human:" + strings.Repeat("a", 65)} {
		if _, err := NormalizeHuman(bad); !errors.Is(err, ErrInvalidHuman) {
			t.Errorf("NormalizeHuman(%q) = %v, want ErrInvalidHuman", bad, err)
		}
	}
}
