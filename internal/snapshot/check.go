package snapshot

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// A snapshot is signed by a trusted installation, and still every member
// is held to what that installation could have stored: a signature says
// who made the file, not that what they put in it is sound.

// recordKinds are the kinds of owned record a snapshot lists.
var recordKinds = []string{RecordArtifact, RecordDecision, RecordMessage, RecordRun, RecordTask}

// generationID is a registry generation id: it names a directory, so
// nothing else is taken for one.
var generationID = regexp.MustCompile(`^[0-9a-f]{16}$`)

// sha256Hex is a digest as the snapshot writes one.
var sha256Hex = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// check refuses contents no installation stores: a record whose
// composition does not cover its stamp, a stamp that is not the record's,
// a choice learned for another seat or out of its layer, records out of
// order or twice.
func check(c Contents) error {
	p := c.Persona
	bad := func(member, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrBadMember, member, fmt.Sprintf(format, args...))
	}
	if addr, err := registry.ParseAddress(p.Address); err != nil || addr.String() != p.Address || addr.Profile() != p.Profile {
		return bad(MemberPersona, "address %q with profile %q is not a canonical seat (%v)", p.Address, p.Profile, err)
	}
	if _, err := registry.NormalizeName(p.Name); err != nil || !generationID.MatchString(p.ID) || p.Generation < 1 {
		return bad(MemberPersona, "generation %d %q (id %q) is not a registered generation (%v)", p.Generation, p.Name, p.ID, err)
	}
	if err := p.CheckComposition(); err != nil {
		return bad(MemberPersona, "%v", err)
	}
	if p.StampHash == "" {
		if len(c.Stamp) != 0 {
			return bad(MemberStamp, "the record has no stamp hash, yet the member holds %d bytes", len(c.Stamp))
		}
	} else {
		st, err := stamp.Verify(MemberStamp, c.Stamp, p.StampHash)
		if err != nil {
			return bad(MemberStamp, "%v", err)
		}
		if st.Persona.ID != p.ID || st.Path.Address != p.Address {
			return bad(MemberStamp, "the stamp is of %s (%s), the record of %s (%s)", st.Persona.ID, st.Path.Address, p.ID, p.Address)
		}
	}
	if err := checkChoices(MemberExperience, c.Experience, p, confirm.RememberPersona); err != nil {
		return err
	}
	if err := checkChoices(MemberClassOverlay, c.ClassOverlay, p, confirm.RememberClass); err != nil {
		return err
	}
	if c.Session != SessionOf(p.SessionLineage) {
		return bad(MemberSession, "lineage %q and harness session %q, the record's lineage is %q, its harness session %q",
			c.Session.Lineage, c.Session.HarnessSessionID, p.SessionLineage, SessionOf(p.SessionLineage).HarnessSessionID)
	}
	for i, r := range c.Records {
		switch {
		case !slices.Contains(recordKinds, r.Kind):
			return bad(MemberRecords, "record %d is of kind %q, not one of %s", i+1, r.Kind, strings.Join(recordKinds, ", "))
		case r.ID == "" || len(r.ID) > 256:
			return bad(MemberRecords, "record %d (%s) has an id of %d bytes", i+1, r.Kind, len(r.ID))
		case !sha256Hex.MatchString(r.SHA256):
			return bad(MemberRecords, "record %s %s has digest %q", r.Kind, r.ID, r.SHA256)
		case i > 0 && compareRecords(c.Records[i-1], r) >= 0:
			return bad(MemberRecords, "record %s %s is out of order or listed twice", r.Kind, r.ID)
		}
	}
	return nil
}

// checkChoices refuses a learned choice that is not of p's seat and
// class, not in the layer where, or listed out of order.
func checkChoices(member string, cs []confirm.Choice, p registry.Persona, where confirm.Remember) error {
	for i, c := range cs {
		var wrong string
		switch {
		case c.Where != where:
			wrong = fmt.Sprintf("it lives in the %q layer", c.Where)
		case c.Persona != p.Address || c.Profile != string(p.Profile):
			wrong = fmt.Sprintf("it was learned for %s (%s)", c.Persona, c.Profile)
		case where == confirm.RememberPersona && (c.Key.StampHash == "" || c.Key.ClassKey != ""):
			wrong = "an experience-layer choice is keyed by a stamp hash alone"
		case where == confirm.RememberClass && (c.Key.ClassKey == "" || c.Key.StampHash != ""):
			wrong = "a class-overlay choice is keyed by a class key alone"
		case c.Verdict != confirm.Allow && c.Verdict != confirm.Deny:
			wrong = "its verdict is neither allow nor deny"
		case c.Key.HandlerAction == "":
			wrong = "it names no handler action"
		case i > 0 && cs[i-1].ID() >= c.ID():
			wrong = "it is out of order or listed twice"
		}
		if wrong != "" {
			return fmt.Errorf("%w: %s: choice %d (%s): %s", ErrBadMember, member, i+1, c.ID(), wrong)
		}
	}
	return nil
}

// sortedChoices is a copy of cs in id order, never nil: an empty layer
// is written [].
func sortedChoices(cs []confirm.Choice) []confirm.Choice {
	out := append([]confirm.Choice{}, cs...)
	slices.SortFunc(out, func(a, b confirm.Choice) int { return strings.Compare(a.ID(), b.ID()) })
	return out
}
