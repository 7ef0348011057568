// Package confirmtest builds the real factory stamps the tests of the
// confirmation rules and of their stored queue both decide over.
package confirmtest

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// BuildStamp makes a real factory stamp for address, with the tests' bound
// human (human:henry) and owning lead, and returns it with its canonical
// hash.
func BuildStamp(t testing.TB, address string, gen int, extraMutable ...string) (*stamp.Stamp, string) {
	t.Helper()
	in := stamp.Input{
		Persona:         stamp.Identity{ID: "p" + digest(address)[:8], Name: "Vega", Generation: gen, SessionLineage: "s-1"},
		CompositionHash: "sha256:" + digest("composition", address) + digest("c2", address),
		Address:         address,
		GraphNamespace:  "virgo",
		Authority:       stamp.Authority{Human: "human:henry"},
		Workspace:       stamp.Workspace{Root: "ws/" + address, MutablePaths: extraMutable}, // as stamp.InputFor roots it
	}
	switch address {
	case "root/secretary", "home/secretary", "work/coordinator":
		in.HumanSurfaces = []stamp.SurfaceBinding{{Surface: stamp.DefaultSurface, Target: "human:henry"}}
		if address == "work/coordinator" {
			in.Authority.LaneApprover = "human:ada"
		}
	case "work/core/deputy":
		in.Authority.OwningLead = "work/core/lead"
	case "work/core/lead":
		in.Workspace.Repository = "/src/core"
	}
	st, err := stamp.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := stamp.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := stamp.Hash(b)
	if err != nil {
		t.Fatal(err)
	}
	return &st, hash
}

// digest is a short stable hash of parts joined by NUL: a stamp's ids
// and composition hash are fixed by its address.
func digest(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}
