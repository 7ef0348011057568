// Package termtext decides which characters of untrusted text may reach an
// operator's terminal, refuses text that holds any other, and cleans text on
// its way out. Personas are models and may be hostile: a summary, a reason or
// an operation they wrote is shown on a human's terminal, where a control
// sequence could clear the screen, retitle the window, write the clipboard
// (OSC 52) or reorder what the human reads (a bidi override). The console,
// every command's output and the hub's input checks share this one table.
package termtext

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A span is an inclusive range of runes that never reach a terminal as
// themselves.
type span struct {
	lo, hi rune
	what   string
}

// unsafeRunes is the table of characters that are never shown as
// themselves: controls (a terminal acts on them), bidi controls (they
// reorder what is read: "Trojan Source") and invisible characters (they make
// two different strings look the same). Sorted by lo.
var unsafeRunes = []span{
	{0x0000, 0x001f, "C0 control"},
	{0x007f, 0x009f, "DEL or C1 control"},
	{0x00ad, 0x00ad, "soft hyphen"},
	{0x061c, 0x061c, "bidi control (arabic letter mark)"},
	{0x180e, 0x180e, "invisible (mongolian vowel separator)"},
	{0x200b, 0x200d, "zero-width character"},
	{0x200e, 0x200f, "bidi control (directional mark)"},
	{0x2028, 0x2029, "line or paragraph separator"},
	{0x202a, 0x202e, "bidi control (embedding or override)"},
	{0x2060, 0x2064, "invisible (word joiner or invisible operator)"},
	{0x2066, 0x2069, "bidi control (isolate)"},
	{0xfeff, 0xfeff, "zero-width no-break space (BOM)"},
	{0xfff9, 0xfffb, "interlinear annotation control"},
}

// class returns what kind of unsafe character r is, or "" when r is safe.
func class(r rune) string {
	if r >= 0x20 && r < 0x7f {
		return "" // the common case: printable ASCII
	}
	for _, s := range unsafeRunes {
		if r < s.lo {
			return ""
		}
		if r <= s.hi {
			return s.what
		}
	}
	return ""
}

// Unsafe reports whether r must not reach a terminal as itself.
func Unsafe(r rune) bool { return class(r) != "" }

// ErrInvalidUTF8 is refused text that is not valid UTF-8 (a terminal may read
// its stray bytes as C1 controls).
var ErrInvalidUTF8 = errors.New("text is not valid UTF-8")

// ErrUnsafeChar is refused text holding a control, bidi or invisible character.
var ErrUnsafeChar = errors.New("text holds a control, bidi or invisible character")

// Check refuses text a persona or operator may not store: invalid UTF-8, or
// any unsafe character (line breaks included: every stored text is one line
// unless multiline is true, which allows "\n" alone). The error names the
// character and its byte offset.
func Check(s string, multiline bool) error {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return fmt.Errorf("%w: byte 0x%02x at offset %d", ErrInvalidUTF8, s[i], i)
		}
		if what := class(r); what != "" && !(multiline && r == '\n') {
			return fmt.Errorf("%w: %U (%s) at offset %d", ErrUnsafeChar, r, what, i)
		}
		i += n
	}
	return nil
}

// ErrTooLong is refused text over its field's limit.
var ErrTooLong = errors.New("text is over its limit")

// CheckField is Check for a bounded record field: it refuses text over max
// bytes too, and every refusal names the field. Record packages (runs,
// decisions) check what a persona writes with it before storing it.
func CheckField(field, s string, max int, multiline bool) error {
	if len(s) > max {
		return fmt.Errorf("field %q: %w: %d bytes, over the %d-byte limit", field, ErrTooLong, len(s), max)
	}
	if err := Check(s, multiline); err != nil {
		return fmt.Errorf("field %q: %w", field, err)
	}
	return nil
}

// Clean returns s with every unsafe character and every byte of invalid UTF-8
// replaced by U+FFFD, so it draws as one line of plain text. Clean text is
// returned as is, without allocating.
func Clean(s string) string {
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
		i++
	}
	if i == len(s) {
		return s
	}
	if clean(s[i:]) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if Unsafe(r) {
			r = utf8.RuneError
		}
		b.WriteRune(r) // invalid UTF-8 ranges as RuneError: written as U+FFFD
	}
	return b.String()
}

// CleanLines is Clean for multi-line text: line breaks are kept, every line
// is cleaned.
func CleanLines(s string) string {
	if Clean(s) == s {
		return s
	}
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = Clean(lines[i])
	}
	return strings.Join(lines, "\n")
}

// clean reports whether s is valid UTF-8 with no unsafe character.
func clean(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || Unsafe(r) {
			return false
		}
	}
	return true
}
