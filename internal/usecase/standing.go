package usecase

import (
	"context"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// CheckStanding checks an active generation's capability stamp — the
// stored bytes against its recorded hash, the JSON Schema and the semantic
// validator (so a stamp missing a required tool names it), then the boot
// check — before a front end advertises the generation as standing (spec:
// boot validation "refuses to advertise the persona as standing"), and
// that the record's composition hash covers that stamp: it is the one the
// record's character and stamp hashes compose, and the stamp was built from
// that character hash (registry.ErrCompositionMismatch otherwise). It
// returns why the generation is not standing, or nil; the front end then
// leaves it offline and accepts no token of it. A generation registered
// without a stamp has nothing to check. A local copy of the stamp on the
// front end's host is the front end's to hold to the hash (it watches the
// file while it serves).
//
// A check uses a cached stamp but does not cache the one it read: a hub
// checks every active generation right after it starts, and caching those
// would fill the cache (MaxCachedStamps) with the idle majority's stamps —
// about 12 MB of heap at 10,000 personas — before any of them acts. A
// generation's first request reads its stamp again, once, and decodes it
// without verifying it again (the check left its digest: readStoredStamp).
func (u *Cases) CheckStanding(p registry.Persona) error {
	if err := p.CheckComposition(); err != nil {
		return err
	}
	if p.StampHash == "" {
		return nil
	}
	st, ok := u.stamps.get(stampKey{p.ID, p.StampHash})
	if !ok {
		var err error
		if st, err = u.readStoredStamp(context.Background(), p); err != nil {
			return err
		}
	}
	if st.CompositionHash != p.CharacterHash {
		return fmt.Errorf("%s (%s, generation %d): %w: its stamp was built from character hash %s, the record's is %s; the record was changed outside the registry: restore it, or retire the generation and register a new one",
			p.Address, p.Name, p.Generation, registry.ErrCompositionMismatch, st.CompositionHash, p.CharacterHash)
	}
	return bootCheck(st)
}

// bootCheck proves the three consumer projections carry the same tools and
// every handler_action and runtime binding exists (spec: "prove at boot
// that every handler and transitive runtime binding exists").
func bootCheck(st stamp.Stamp) error {
	if err := stamp.CheckProjections(stamp.ProjectTools(st.Tools)); err != nil {
		return err
	}
	return stamp.BootCheck(st, stamp.Handlers())
}
