package confirm

import (
	"path"
	"strings"
	"testing"
)

// ParseTarget reads outside input: it never panics, and whatever it accepts
// is canonical (parses back to itself), ASCII, NUL-free and never climbs.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"path:memory/a.md", "path:../x", "path@ws-1:QUEUE.md", "address:work/core/lead",
		"run:work/core/t-1/r-1", "task:work/core/t-1", "decision:work/core/d-1", "surface:virgo-channel/human:henry",
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

// refMatch is the plain reading of a workspace glob: path.Match per
// segment, "**" any number of whole segments (one or more at the end).
func refMatch(pattern, p []string) bool {
	if len(pattern) == 0 {
		return len(p) == 0
	}
	if pattern[0] == "**" {
		if len(pattern) == 1 {
			return len(p) > 0
		}
		for i := 0; i <= len(p); i++ {
			if refMatch(pattern[1:], p[i:]) {
				return true
			}
		}
		return false
	}
	if len(p) == 0 {
		return false
	}
	ok, _ := path.Match(pattern[0], p[0])
	return ok && refMatch(pattern[1:], p[1:])
}

// The secret and authority table's compiled matcher (one walk, map
// lookups) finds exactly the first row the plain reading does.
func FuzzMaterialMatchesPlainGlobs(f *testing.F) {
	for _, s := range []string{"memory/notes.md", "a/.ssh/b", "x/.aws/credentials", ".aws/credentials", "credentials.json",
		"a/credentialsx.json", "tokens/x", "a/my.token", "secrets", "secrets/a", ".env.local", "k/.kube/config", "id_rsa.pub"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := NormalizePath(s)
		if err != nil {
			return
		}
		p = strings.ToLower(p)
		want := -1
		for i, m := range SecretMaterial {
			if refMatch(strings.Split(strings.ToLower(m.Pattern), "/"), strings.Split(p, "/")) {
				want = i
				break
			}
		}
		got, ok := materialGlobs.firstIndex(p)
		if !ok {
			got = -1
		}
		if got != want {
			t.Fatalf("%q: compiled row %d, plain reading row %d", p, got, want)
		}
	})
}
