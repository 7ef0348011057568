package hubapi

import (
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
)

// The runtime token a generation's directory holds and an
// operator's token file are authority material in the one table the handler
// reads, whatever a workspace path spells them as.
func TestTokensAreAuthorityMaterial(t *testing.T) {
	operator, err := filepath.Rel("home", OperatorTokenPath("home", "Henry"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{TokenFile, "personas/p-1/" + TokenFile, filepath.ToSlash(operator)} {
		if m, ok := confirm.MaterialAt(p); !ok || !m.Authority {
			t.Errorf("%s: %+v, %v; want authority material", p, m, ok)
		}
	}
}
