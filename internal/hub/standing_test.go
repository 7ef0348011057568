package hub

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// stampFile is the local copy of p's capability stamp in th's home.
func (th *testHub) stampFile(p registry.Persona) string {
	return filepath.Join(th.home.GenerationDir(p.ID), stamp.FileName)
}

// wantNotStanding asserts that p is shown not standing, in presence and in
// its record's view, for the reason (missing, unreadable or changed).
func wantNotStanding(t testing.TB, op *hubclient.Client, p registry.Persona, reason string) {
	t.Helper()
	ctx := context.Background()
	v, err := op.Persona(ctx, p.Address)
	mustNil(t, err)
	if v.Presence == nil || v.Presence.State == hubapi.StateStanding || !strings.Contains(v.Presence.Problem, "not standing") ||
		!strings.Contains(v.Presence.Problem, reason) {
		t.Fatalf("persona show of %s: %+v; want not standing, naming the stamp file %s", p.Address, v.Presence, reason)
	}
	ps, err := op.Presence(ctx)
	mustNil(t, err)
	for _, pr := range ps {
		if pr.ID == p.ID {
			if pr.State == hubapi.StateStanding || !strings.Contains(pr.Problem, reason) {
				t.Fatalf("presence of %s: %s %q; want not standing, the stamp file %s", p.Address, pr.State, pr.Problem, reason)
			}
			return
		}
	}
	t.Fatalf("%s is not in presence", p.Address)
}

// wantStanding asserts that p is shown standing again, without a problem.
func wantStanding(t testing.TB, op *hubclient.Client, p registry.Persona) {
	t.Helper()
	v, err := op.Persona(context.Background(), p.Address)
	mustNil(t, err)
	if v.Presence == nil || v.Presence.Problem != "" || v.Presence.State == hubapi.StateOffline {
		t.Fatalf("persona show of %s: %+v; want it standing again", p.Address, v.Presence)
	}
}

// authorizeOf asks the hub, as op, for a recoverable workspace write of p.
func authorizeOf(op *hubclient.Client, p registry.Persona) error {
	_, err := op.Authorize(context.Background(), hubapi.OperationRequest{Persona: p.Address, Tool: "workspace_write",
		Target: "path:memory/notes.md", Shape: "write:overwrite"})
	return err
}

// The spec: "Startup fails if the stamp is missing". A persona whose
// CAPABILITY-STAMP.json is moved away is not standing — in presence and in
// persona show, with the reason — and every call for it is refused (its
// runtime's, an operator's authorize, connecting anew), until the file is
// back intact: then it stands again.
func TestAMissingStampFileIsNotStanding(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	other := th.addPersona(t, "work/web/lead", "Arcturus")
	henry := th.operator(t, "henry")
	rt := th.runtime(t, lead)
	_, err := rt.Beat(ctx)
	mustNil(t, err)
	mustNil(t, authorizeOf(henry, lead))

	path := th.stampFile(lead)
	aside := path + ".moved"
	mustNil(t, os.Rename(path, aside))

	_, err = rt.Beat(ctx)
	wantCode(t, err, "stamp_missing")
	_, err = rt.Beat(ctx) // still refused, and still saying why
	wantCode(t, err, "stamp_missing")
	wantCode(t, authorizeOf(henry, lead), "stamp_missing")
	_, err = henry.Stamp(ctx, lead.Address)
	wantCode(t, err, "stamp_missing")
	wantNotStanding(t, henry, lead, "missing")
	// Another persona is untouched.
	if _, err := th.runtime(t, other).Beat(ctx); err != nil {
		t.Fatalf("another persona's beat: %v", err)
	}

	mustNil(t, os.Rename(aside, path))
	if _, err := rt.Beat(ctx); err != nil {
		t.Fatalf("a beat with the stamp file back intact: %v", err)
	}
	mustNil(t, authorizeOf(henry, lead))
	wantStanding(t, henry, lead)
}

// A stamp file that cannot be read (here: a directory in its place, which
// no reader can open as the file, whoever runs the test) is not standing,
// named unreadable; changing one byte of it is not standing, named changed.
func TestAnUnreadableOrChangedStampFileIsNotStanding(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	henry := th.operator(t, "henry")
	rt := th.runtime(t, lead)
	path := th.stampFile(lead)
	b, err := os.ReadFile(path)
	mustNil(t, err)

	mustNil(t, os.Rename(path, path+".moved"))
	mustNil(t, os.Mkdir(path, 0o700))
	_, err = rt.Beat(ctx)
	wantCode(t, err, "stamp_unreadable")
	wantCode(t, authorizeOf(henry, lead), "stamp_unreadable")
	wantNotStanding(t, henry, lead, "unreadable")
	mustNil(t, os.Remove(path))
	mustNil(t, os.Rename(path+".moved", path))
	_, err = rt.Beat(ctx)
	mustNil(t, err)
	wantStanding(t, henry, lead)

	// One byte changed, the file still a valid stamp: a hex digit of its
	// composition hash.
	changed := append([]byte(nil), b...)
	at := bytes.Index(changed, []byte(`"composition_hash": "sha256:`)) + len(`"composition_hash": "sha256:`)
	if changed[at] == '0' {
		changed[at] = '1'
	} else {
		changed[at] = '0'
	}
	mustNil(t, os.Chmod(path, 0o600))
	mustNil(t, os.WriteFile(path, changed, 0o600))
	_, err = rt.Beat(ctx)
	wantCode(t, err, "stamp_hash_mismatch")
	wantCode(t, authorizeOf(henry, lead), "stamp_hash_mismatch")
	wantNotStanding(t, henry, lead, "changed")

	mustNil(t, os.WriteFile(path, b, 0o600))
	_, err = rt.Beat(ctx)
	mustNil(t, err)
	mustNil(t, authorizeOf(henry, lead))
	wantStanding(t, henry, lead)
}

// A hub started while a persona's stamp file is missing does not mark it
// standing — not even for the moment before its start's stamp checks run —
// and refuses its runtime and every decision for it; the file put back, the
// persona stands again.
func TestARestartedHubDoesNotStandAPersonaWithoutItsStamp(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	path := th.stampFile(lead)
	th.stop()
	mustNil(t, os.Rename(path, path+".moved"))

	// The hub's Ready comes before its start's stamp checks: what a reader
	// sees then is what the start decided.
	th = startHub(t, home, Config{}, Timeouts{})
	henry := th.operator(t, "henry")
	wantNotStanding(t, henry, lead, "missing")
	c, err := hubclient.Dial(context.Background(), home.Dir, hubclient.WithTokenFile(filepath.Join(home.GenerationDir(lead.ID), hubapi.TokenFile)))
	mustNil(t, err)
	defer c.Close()
	_, err = c.Beat(context.Background())
	wantCode(t, err, "stamp_missing")
	wantCode(t, authorizeOf(henry, lead), "stamp_missing")

	mustNil(t, os.Rename(path+".moved", path))
	_, err = c.Beat(context.Background())
	mustNil(t, err)
	wantStanding(t, henry, lead)
}

// What hub.New alone decides, before it serves and before the full checks
// (checkAllStamps): a stamp file missing, a directory in its place or a
// link to it (never followed, even to the intact file) is not standing
// from the first answer, each named; an intact one stands.
func TestAHubStartJudgesEveryStampFileBeforeItServes(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	intact := th.addPersona(t, "work/core/lead", "Spica")
	missing := th.addPersona(t, "work/web/lead", "Arcturus")
	directory := th.addPersona(t, "work/api/lead", "Vega")
	linked := th.addPersona(t, "work/ops/lead", "Deneb")
	th.stop()
	mustNil(t, os.Rename(th.stampFile(missing), th.stampFile(missing)+".moved"))
	mustNil(t, os.Rename(th.stampFile(directory), th.stampFile(directory)+".moved"))
	mustNil(t, os.Mkdir(th.stampFile(directory), 0o700))
	mustNil(t, os.Rename(th.stampFile(linked), th.stampFile(linked)+".moved"))
	mustNil(t, os.Symlink(th.stampFile(linked)+".moved", th.stampFile(linked)))

	st, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	mustNil(t, err)
	defer st.Close()
	h, err := New(context.Background(), Config{Home: home, Store: st})
	mustNil(t, err)
	for _, c := range []struct {
		p       registry.Persona
		problem string
	}{{intact, ""}, {missing, "missing"}, {directory, "unreadable"}, {linked, "unreadable"}} {
		pr, ok := h.Presence().Get(c.p.ID)
		if !ok {
			t.Fatalf("%s is not in presence", c.p.Address)
		}
		if c.problem == "" && pr.Problem != "" || !strings.Contains(pr.Problem, c.problem) {
			t.Errorf("%s at start: problem %q; want %q", c.p.Address, pr.Problem, c.problem)
		}
	}
}

// A persona whose runtime is quiet is shown not standing too, within the
// stamp sweep, when its stamp file goes missing: nobody needs to call for
// the hub to notice (the tracker is read in process, so no request checks
// the file); and standing again when the file is back.
func TestAQuietPersonaLosingItsStampIsShownNotStanding(t *testing.T) {
	th := startHub(t, shortHome(t), Config{StampSweep: 50 * time.Millisecond}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	path := th.stampFile(lead)
	problem := func() string {
		pr, ok := th.hub.Presence().Get(lead.ID)
		if !ok {
			t.Fatalf("%s is not in presence", lead.Address)
		}
		return pr.Problem
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s not seen in 5 s (presence problem %q)", what, problem())
			}
		}
	}
	mustNil(t, os.Rename(path, path+".moved"))
	waitFor("the missing stamp", func() bool { return strings.Contains(problem(), "missing") })
	mustNil(t, os.Rename(path+".moved", path))
	waitFor("the stamp back", func() bool { return problem() == "" })
}

// A decision for a generation that the start's full stamp check has not
// reached yet (it runs after the hub serves, one generation after another:
// seconds at 10,000) checks it first: a record changed behind the registry
// while the hub was down is refused at its first decision, not only once
// the background pass gets to it.
func TestADecisionBeforeTheStartsFullCheckChecksFirst(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	th.stop()

	st, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	mustNil(t, err)
	defer st.Close()
	tampered := lead
	tampered.Composition = registry.Compose(lead.CharacterHash, "")
	b, err := registry.EncodePersona(tampered)
	mustNil(t, err)
	_, err = st.Txn(context.Background(), nil, []store.Op{store.Put(roster.PrefixPersona+lead.ID, b)})
	mustNil(t, err)

	// New without Run: the full check never starts, as when a decision
	// comes in before the background pass reaches this generation.
	h, err := New(context.Background(), Config{Home: home, Store: st})
	mustNil(t, err)
	<-h.present
	if err := h.ProveStamp(context.Background(), lead.ID); !errors.Is(err, registry.ErrCompositionMismatch) {
		t.Fatalf("a decision for a record whose composition no longer covers its stamp, before the full check: %v; want %v",
			err, registry.ErrCompositionMismatch)
	}
	h.stamps.mu.Lock()
	_, unchecked := h.stamps.unchecked[lead.ID]
	h.stamps.mu.Unlock()
	if unchecked {
		t.Fatal("a refused generation is still on the unchecked list: every decision would check it again")
	}
	if err := h.ProveStamp(context.Background(), lead.ID); !errors.Is(err, registry.ErrCompositionMismatch) {
		t.Fatalf("the next decision: %v; want it refused for good", err)
	}
}
