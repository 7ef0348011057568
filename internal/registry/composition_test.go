package registry

import "testing"

// The composition hash covers the stamp (spec, virgo-capability-surface:
// the stamp "is covered by its composition hash"): it changes when either
// covered input changes, and it is the documented formula, so another
// language recomputes it (docs/stamp-v3.md; the vector is
// printf 'virgo-composition-v1\nsha256:aa\nsha256:bb\n' | sha256sum).
func TestComposeCoversEachInput(t *testing.T) {
	const character, stampHash = "sha256:aa", "sha256:bb"
	base := Compose(character, stampHash)
	if want := "sha256:686a26383df5d2e6ce5d7caa71b5562ab4881b5793f0e7d1bf07363d0f1cd5c4"; base != want {
		t.Fatalf("Compose = %s, want the documented %s", base, want)
	}
	for _, c := range []struct {
		name, character, stampHash string
	}{
		{"another character hash", "sha256:ab", stampHash},
		{"another stamp hash", character, "sha256:bc"},
		{"no stamp", character, ""},
		{"the two swapped", stampHash, character},
		{"a byte moved across the boundary", "sha256:aas", "ha256:bb"},
	} {
		if got := Compose(c.character, c.stampHash); got == base {
			t.Errorf("%s: Compose(%q, %q) = the base hash; the input is not covered", c.name, c.character, c.stampHash)
		}
	}
}
