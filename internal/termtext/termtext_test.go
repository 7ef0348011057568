package termtext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hostile is text a persona could write to take over an operator's terminal
// (a reported case: "a reason no\u001b]0;pwned\u0007\u001b[2J is stored; confirm show
// and audit print it raw"), to reorder what is read, or to hide characters.
var hostile = []string{
	"no\u001b]0;pwned\u0007\u001b[2J",
	"\u009b2J",                   // C1 CSI
	"ok\u202egnp.exe",            // right-to-left override
	"Spi\u200bca",                // zero-width space
	"a\u2066b\u2069",             // isolate
	"\x7f",                       // DEL
	"line\rover",                 // carriage return rewrites the line
	"\u001b]52;c;cGF5bG9hZA==\a", // OSC 52 clipboard write
	"bad\xff\xfeutf8",
}

func TestCheckRefusesEveryHostileText(t *testing.T) {
	for _, s := range hostile {
		err := Check(s, true)
		if !errors.Is(err, ErrUnsafeChar) && !errors.Is(err, ErrInvalidUTF8) {
			t.Errorf("Check(%q) = %v, want a refusal", s, err)
		}
	}
	for _, s := range []string{"", "plain", "Ünïcödé ✓ 漢字", "emoji 🚀"} {
		if err := Check(s, false); err != nil {
			t.Errorf("Check(%q) = %v, want nil", s, err)
		}
	}
	if err := Check("tab\tseparated", true); !errors.Is(err, ErrUnsafeChar) {
		t.Errorf("a tab in stored text: %v (a tab breaks every column it is drawn in)", err)
	}
	if err := Check("two\nlines", true); err != nil {
		t.Errorf("multiline text refused: %v", err)
	}
	if err := Check("two\nlines", false); !errors.Is(err, ErrUnsafeChar) {
		t.Errorf("a line break in one-line text: %v", err)
	}
}

func TestCheckNamesTheCharacterAndOffset(t *testing.T) {
	err := Check("ab\u202ec", false)
	if err == nil || !strings.Contains(err.Error(), "U+202E") || !strings.Contains(err.Error(), "offset 2") {
		t.Fatalf("Check = %v, want U+202E at offset 2 named", err)
	}
}

func TestCleanLeavesNoUnsafeCharacter(t *testing.T) {
	for _, s := range hostile {
		got := Clean(s)
		if !utf8.ValidString(got) {
			t.Errorf("Clean(%q) = %q: invalid UTF-8", s, got)
		}
		for _, r := range got {
			if Unsafe(r) {
				t.Errorf("Clean(%q) = %q keeps %U", s, got, r)
			}
		}
	}
	if s := "already clean ✓"; Clean(s) != s {
		t.Errorf("Clean changed clean text")
	}
	if got := CleanLines("a\x1b\nb"); got != "a\uFFFD\nb" {
		t.Errorf("CleanLines = %q", got)
	}
}

// writeAll writes s through a Writer in chunks of n bytes, splitting UTF-8
// sequences, and returns what reached the terminal.
func writeAll(t *testing.T, s string, n int) string {
	t.Helper()
	var out bytes.Buffer
	w := NewWriter(&out)
	for b := []byte(s); len(b) > 0; {
		k := min(n, len(b))
		if m, err := w.Write(b[:k]); err != nil || m != k {
			t.Fatalf("Write = %d, %v", m, err)
		}
		b = b[k:]
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestWriterEscapesWhatACommandPrints(t *testing.T) {
	for _, n := range []int{1, 2, 3, 1 << 20} {
		got := writeAll(t, "reason: no\u001b]0;pwned\u0007 ok\u202e\n\tnext ✓\xff", n)
		want := `reason: no\u001b]0;pwned\u0007 ok\u202e` + "\n\tnext ✓" + `\xff`
		if got != want {
			t.Errorf("chunks of %d: got %q, want %q", n, got, want)
		}
	}
}

func TestWriterKeepsJSONValidAndLossless(t *testing.T) {
	v := map[string]string{"reason": "a\u0085b\u202ec\x7fd\u200be"}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got := writeAll(t, string(b), 3)
	for _, r := range got {
		if Unsafe(r) {
			t.Fatalf("escaped JSON still holds %U: %q", r, got)
		}
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatalf("escaped JSON no longer parses: %v: %s", err, got)
	}
	if back["reason"] != v["reason"] {
		t.Fatalf("round trip changed the text: %q", back["reason"])
	}
}

// safePrefixReference is safePrefix, one rune at a time.
func safePrefixReference(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || Unsafe(r) && r != '\n' && r != '\t' {
			return i
		}
		i += n
	}
	return len(s)
}

// Text with nothing to escape is written as it is, and text with anything
// to escape is not: every byte value at every place of a word that passes
// reads eight bytes at a time.
func TestWriterPassesOnlySafeText(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			b := []byte(strings.Repeat("json: {\"a\"}", 2))[:20]
			b[at] = byte(c)
			if got, want := safePrefix(b), safePrefixReference(string(b)); got != want {
				t.Fatalf("safePrefix(%q) = %d, want %d", b, got, want)
			}
			if safePrefixReference(string(b)) == len(b) && writeAll(t, string(b), len(b)) != string(b) {
				t.Fatalf("safe %q was changed", b)
			}
		}
	}
}

func FuzzWriter(f *testing.F) {
	for _, s := range hostile {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 64 {
			n = 1 + (n&63+64)%64
		}
		if got, want := safePrefix([]byte(s)), safePrefixReference(s); got != want {
			t.Fatalf("safePrefix(%q) = %d, want %d", s, got, want)
		}
		got := writeAll(t, s, n)
		if !utf8.ValidString(got) {
			t.Fatalf("output is not valid UTF-8: %q", got)
		}
		for _, r := range got {
			if Unsafe(r) && r != '\n' && r != '\t' {
				t.Fatalf("output holds %U: %q", r, got)
			}
		}
		if Check(s, true) == nil && !strings.ContainsRune(s, '\t') && got != s {
			t.Fatalf("safe text changed: %q → %q", s, got)
		}
		if c := Clean(s); Check(c, false) != nil {
			t.Fatalf("Clean(%q) = %q is still refused", s, c)
		}
	})
}

func TestCleanKeepsPlainTextAndReplacesControls(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "",
		"lane review at 14:00":  "lane review at 14:00",
		"Zavijava — ünïcode ✓":  "Zavijava — ünïcode ✓",
		"a\tb\nc\rd":            "a\uFFFDb\uFFFDc\uFFFDd",
		"del\x7f":               "del\uFFFD",
		"c1 \u0085\u009b\u009f": "c1 \uFFFD\uFFFD\uFFFD",
		"raw \x9b byte":         "raw \uFFFD byte", // invalid UTF-8 a terminal may read as CSI
		"\u00a0nbsp":            "\u00a0nbsp",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	if got := CleanLines("+ a\x1b\n- b"); got != "+ a\uFFFD\n- b" {
		t.Errorf("cleanLines kept or lost the wrong bytes: %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { Clean("relaying the owner's decisions") }); n != 0 {
		t.Errorf("clean allocates %.0f times on clean text, want 0", n)
	}
}

func TestCheckFieldBoundsAndNamesTheField(t *testing.T) {
	if err := CheckField("title", "plain", 5, false); err != nil {
		t.Fatalf("5 bytes under a 5-byte limit: %v", err)
	}
	if err := CheckField("title", "plain!", 5, false); !errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), `"title"`) {
		t.Errorf("6 bytes: %v", err)
	}
	if err := CheckField("note", "a\nb", 8, false); !errors.Is(err, ErrUnsafeChar) || !strings.Contains(err.Error(), `"note"`) {
		t.Errorf("line break in a one-line field: %v", err)
	}
	if err := CheckField("note", "a\nb", 8, true); err != nil {
		t.Errorf("line break in a multi-line field: %v", err)
	}
}

// unsafeCategories are the Unicode tables whose every character is unsafe: the
// controls (Cc), the format characters (Cf: bidi controls, zero-width
// characters, the Tag block that carries invisible text to a model, the
// inhibit-shaping controls U+206A–206F), line and paragraph separators,
// and the invisible fillers and variation selectors Unicode marks as
// default-ignorable (U+3164, U+115F, U+034F, U+FE0F, U+E0100…).
var unsafeCategories = map[string]*unicode.RangeTable{
	"Cc": unicode.Cc, "Cf": unicode.Cf, "Zl": unicode.Zl, "Zp": unicode.Zp,
	"Other_Default_Ignorable_Code_Point": unicode.Other_Default_Ignorable_Code_Point,
	"Variation_Selector":                 unicode.Variation_Selector,
}

// eachRune calls f with every rune of t.
func eachRune(t *unicode.RangeTable, f func(rune)) {
	for _, r := range t.R16 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			f(c)
		}
	}
	for _, r := range t.R32 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			f(c)
		}
	}
}

// Every rune of every unsafe category, alone and inside a word, is refused
// by Check (named, with its offset), replaced by Clean and escaped by the
// Writer, so that escaped JSON still decodes to it. The hand table of
// before let 144 of them through, the Tag block among them.
func TestEveryRuneOfTheUnsafeCategories(t *testing.T) {
	n := 0
	for name, table := range unsafeCategories {
		eachRune(table, func(r rune) {
			if r == '\n' {
				return // Check's multiline mode is tested elsewhere
			}
			n++
			s := "Spica" + string(r) + "x"
			if !Unsafe(r) {
				t.Errorf("%s %U: not unsafe", name, r)
				return
			}
			for _, multiline := range []bool{false, true} {
				err := Check(s, multiline)
				if !errors.Is(err, ErrUnsafeChar) || !strings.Contains(err.Error(), fmt.Sprintf("%U", r)) || !strings.Contains(err.Error(), "offset 5") {
					t.Errorf("%s: Check(%+q, %v) = %v, want ErrUnsafeChar naming %U at offset 5", name, s, multiline, err, r)
				}
			}
			if got := Clean(s); got != "Spica\uFFFDx" {
				t.Errorf("%s: Clean(%+q) = %+q", name, s, got)
			}
			if r == '\t' {
				return // the Writer passes tabs: command output is laid out with them
			}
			b, _ := json.Marshal(s)
			got := writeAll(t, string(b), 3)
			for _, c := range got {
				if Unsafe(c) {
					t.Errorf("%s: the Writer let %U through: %+q", name, c, got)
				}
			}
			var back string
			if err := json.Unmarshal([]byte(got), &back); err != nil || back != s {
				t.Errorf("%s %U: escaped JSON %s decodes to %+q, %v", name, r, got, back, err)
			}
		})
	}
	if n < 2000 {
		t.Fatalf("only %d runes checked: the categories are not read", n)
	}
}

// What the categories must not take: text people write. Emoji stand alone
// (a sequence joined by ZWJ or turned by a variation selector is refused:
// terminals disagree on its width, so the columns drawn around it break).
func TestLegitimateTextIsKept(t *testing.T) {
	for _, s := range []string{
		"plain", "Ünïcödé ✓ 漢字 한국어 العربية עברית", "emoji 🚀✅", "\u00a0nbsp", "Zavijava — “quoted”",
		"ⲁ Coptic, ᚠ runes, 𓀀 hieroglyph", "e\u0301 combining acute", "ई देवनागरी",
	} {
		if err := Check(s, false); err != nil {
			t.Errorf("Check(%q) = %v, want nil", s, err)
		}
		if Clean(s) != s {
			t.Errorf("Clean(%q) changed it", s)
		}
	}
	for _, s := range []string{"👩\u200d💻", "⚠\ufe0f", "Spica\u3164", "Spica\u115f", "a\U000E0041b", "a\u206ab"} {
		if err := Check(s, false); !errors.Is(err, ErrUnsafeChar) {
			t.Errorf("Check(%+q) = %v, want ErrUnsafeChar", s, err)
		}
	}
}

// A command's output and the logs of the hub it serves share one Writer:
// lines written from two goroutines, each through the escaping path that
// reuses the Writer's buffer, arrive whole (and `make race` finds no
// race).
func TestWriterIsSafeForConcurrentUse(t *testing.T) {
	var out lockedBuf
	w := NewWriter(&out)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if g == 0 {
					_, _ = w.Write([]byte("served \u202e\n"))
				} else {
					_, _ = w.Write([]byte("log \x1b[2J line\n"))
				}
			}
		}()
	}
	wg.Wait()
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if line != `served \u202e` && line != `log \u001b[2J line` {
			t.Fatalf("a line came out mixed or escaped: %q", line)
		}
	}
}

// lockedBuf is the sink under the Writer, itself safe for concurrent use
// so the test sees only the Writer's own races.
type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
