package confirm

import (
	"strings"
	"testing"
)

// ParseTarget reads outside input: it never panics, and whatever it accepts
// is canonical (parses back to itself), ASCII, NUL-free and never climbs.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"path:memory/a.md", "path:../x", "path@ws-1:QUEUE.md", "address:work/core/lead",
		"run:work/core/t-1/r-1", "task:work/core/t-1", "decision:work/core/d-1", "surface:teams/chat-7",
		"external:https://Example.org/a/b", "path:memory\uff0fx", "path:%2e%2e", "path:a//b/./c/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			return
		}
		text := tg.String()
		again, err := ParseTarget(text)
		if err != nil || again != tg {
			t.Fatalf("%q -> %q does not parse back: %+v, %v", s, text, again, err)
		}
		for i := 0; i < len(text); i++ {
			if text[i] >= 0x80 || text[i] < 0x20 {
				t.Fatalf("%q accepted with byte 0x%02x", s, text[i])
			}
		}
		if tg.Kind == TargetPath {
			for seg := range strings.SplitSeq(tg.Value, "/") {
				if seg == ".." || seg == "" || seg == "." {
					t.Fatalf("%q accepted as path %q", s, tg.Value)
				}
			}
		}
	})
}

// ParsePrincipal reads --as and VIRGO_PRINCIPAL: never panics, never yields
// a system principal, and yields the input's canonical (lower-case) form.
func FuzzParsePrincipal(f *testing.F) {
	for _, s := range []string{"human:henry", "system:expiry", "work/core/lead", "human:Henry", "human:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrincipal(s)
		if err == nil && (p.Kind == PrincipalSystem || p.String() != strings.ToLower(s)) {
			t.Fatalf("%q parsed as %+v", s, p)
		}
	})
}
