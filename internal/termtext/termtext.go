// Package termtext decides which characters of untrusted text may reach an
// operator's terminal, refuses text that holds any other, and cleans text on
// its way out. Personas are models and may be hostile: a summary, a reason or
// an operation they wrote is shown on a human's terminal, where a control
// sequence could clear the screen, retitle the window, write the clipboard
// (OSC 52), reorder what the human reads (a bidi override) or hide text
// (invisible characters, which a model reads and a human does not). The console,
// every command's output and the hub's input checks share this one table.
package termtext

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/rangetable"
)

// categories are the characters that never reach a terminal as themselves,
// named for refusals, in the order they are named (a bidi control is a
// format character too; it is named for what it does). They are Unicode's
// own tables, so the set grows with Go's Unicode version, never by hand:
//   - Cc, controls: a terminal acts on them (escape sequences, carriage
//     return, C1 CSI).
//   - Cf, format characters: bidi controls reorder what is read ("Trojan
//     Source"); zero-width characters, the Tag block U+E0000–E007F
//     (invisible text, the classic prompt-injection carrier), the shaping
//     controls U+206A–206F, U+0600 and the musical, shorthand and
//     hieroglyph format controls draw as nothing or as something else.
//   - Zl and Zp: line and paragraph separators break a line.
//   - Variation selectors (U+FE00–FE0F, U+E0100–E01EF, the Mongolian free
//     variation selectors) and Unicode's other default-ignorable code
//     points — the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, the
//     combining grapheme joiner U+034F, the Khmer inherent vowels U+17B4
//     and U+17B5, and the ranges reserved for more — are invisible: "Spica"
//     and "Spica\u3164" draw alike. A variation selector or a zero-width
//     joiner inside an emoji sequence is refused too: terminals disagree
//     on the width of what it makes, so every column drawn after it moves.
var categories = []struct {
	table *unicode.RangeTable
	what  string
}{
	{unicode.Cc, "control"},
	{unicode.Bidi_Control, "bidi control"},
	{unicode.Cf, "invisible format character"},
	{unicode.Zl, "line separator"},
	{unicode.Zp, "paragraph separator"},
	{unicode.Variation_Selector, "variation selector"},
	{unicode.Other_Default_Ignorable_Code_Point, "invisible filler"},
}

// unsafeRunes is every category in one table, looked up once per rune.
var unsafeRunes = func() *unicode.RangeTable {
	ts := make([]*unicode.RangeTable, len(categories))
	for i, c := range categories {
		ts[i] = c.table
	}
	return rangetable.Merge(ts...)
}()

// Kind names what kind of unsafe character r is ("control", "bidi
// control", "invisible filler"…), or returns "" when r is safe: refusals
// elsewhere name the character the way Check does.
func Kind(r rune) string {
	if r >= 0x20 && r < 0x7f || !unicode.Is(unsafeRunes, r) {
		return "" // the common case first: printable ASCII
	}
	for _, c := range categories {
		if unicode.Is(c.table, r) {
			return c.what
		}
	}
	return ""
}

// Unsafe reports whether r must not reach a terminal as itself.
func Unsafe(r rune) bool {
	return !(r >= 0x20 && r < 0x7f) && unicode.Is(unsafeRunes, r)
}

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
		if what := Kind(r); what != "" && !(multiline && r == '\n') {
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
