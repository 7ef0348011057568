package registry

import (
	_ "embed"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.mau.fi/util/confusable"

	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// MaxNameLen is the longest persona name, in characters.
const MaxNameLen = 40

//go:embed names.txt
var namesData string

// ConstellationNames are the suggested persona names, in suggestion order
// (names.txt, a data file, so the list is edited without touching code).
var ConstellationNames = parseNames(namesData)

func parseNames(data string) []string {
	var out []string
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// NormalizeName trims a persona name and checks the name rules: 1 to 40
// characters, letters, digits, spaces, '-' and '\”. "Rijl al Awwa" is valid.
func NormalizeName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" {
		return "", fmt.Errorf("%w: the name is empty; try `virgo-tui persona names` for free ones", ErrInvalidName)
	}
	if utf8.RuneCountInString(n) > MaxNameLen {
		return "", fmt.Errorf("%q: %w: at most %d characters", n, ErrInvalidName, MaxNameLen)
	}
	for _, r := range n {
		if termtext.Unsafe(r) {
			return "", fmt.Errorf("%+q: %w: %U is a %s, which draws as nothing or as something else; a name must look like what it is",
				n, ErrInvalidName, r, termtext.Kind(r))
		}
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '-' || r == '\'') {
			return "", fmt.Errorf("%q: %w: %q is not allowed; use letters, digits, spaces, '-' and '\\''", n, ErrInvalidName, r)
		}
	}
	return n, nil
}

// NameKey is the uniqueness key of a name: names compare case-insensitively.
func NameKey(name string) string { return strings.ToLower(name) }

// NameLooks are the looks of a name, the keys under which no other
// name may be registered, so that names that only look alike ("Spica" and
// "Ѕpica" with a Cyrillic Ѕ, "Heze" and "Ηeze" with a Greek Η or "Нeze"
// with a Cyrillic Н, "SPICA" and "SPІCA") are one name and only one of
// them can be registered — an operator reading a name must be reading the
// persona it names.
//
// A look is the UTS #39 skeleton (confusables.txt, through
// go.mau.fi/util/confusable), lower-cased. UTS #39's skeleton is case
// sensitive, and names compare without case, so a name has two: the
// skeleton of the name as typed (Greek Η is confusable with H, while its
// lower case η is not with h) and of its lower case (Cyrillic і is
// confusable with i, while its upper case І maps to l, as I does). Before
// either, every character termtext refuses is dropped: UTS #39 removes
// default-ignorable code points first (the library only drops what is not
// graphic, and keeps the Hangul fillers, which are letters), and a name
// stored before such characters were refused must still hold its look.
func NameLooks(name string) []string {
	visible := strings.Map(func(r rune) rune {
		if termtext.Unsafe(r) {
			return -1
		}
		return r
	}, name)
	asTyped := strings.ToLower(confusable.Skeleton(visible))
	folded := strings.ToLower(confusable.Skeleton(strings.ToLower(visible)))
	if asTyped == folded {
		return []string{asTyped}
	}
	return []string{folded, asTyped}
}

// Suggestion is the i-th name of the endless suggestion sequence: the list
// once, then every name again with " II", then " III", and so on. It is
// deterministic and never empty.
func Suggestion(i int) string {
	n := len(ConstellationNames)
	base, round := ConstellationNames[i%n], i/n
	if round == 0 {
		return base
	}
	return base + " " + roman(round+1)
}

// roman renders n ≥ 1 in Roman numerals.
func roman(n int) string {
	var b strings.Builder
	for _, step := range []struct {
		v int
		s string
	}{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"},
		{50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}} {
		for n >= step.v {
			b.WriteString(step.s)
			n -= step.v
		}
	}
	return b.String()
}
