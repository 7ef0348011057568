package usecase

import (
	"context"
	"errors"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// clock is a settable clock for expiry.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// installation is the use cases over a real bbolt file in a temporary home.
type installation struct {
	st    store.Store
	home  registry.Home
	reg   *roster.Registry
	queue *queue.Queue
	cases *Cases
	clk   *clock
}

func newInstallation(t testing.TB) *installation {
	t.Helper()
	home := registry.Home{Dir: t.TempDir()}
	st, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := &clock{t: time.Date(2026, 8, 4, 9, 0, 0, 0, time.UTC)}
	reg := roster.New(st, home, roster.WithClock(clk.Now))
	q := queue.New(st, queue.Options{Now: clk.Now})
	return &installation{st: st, home: home, reg: reg, queue: q, clk: clk,
		cases: New(Config{Store: st, Registry: reg, Queue: q, Now: clk.Now})}
}

var henry = confirm.Principal{Kind: confirm.PrincipalHuman, Name: "henry"}

func mustNil(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A registration commits the persona, its seat, its name, its stamp hash and
// its activation request together; approving the activation activates it
// in the decision's transaction.
func TestRegisterThenApproveActivates(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	res, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:henry"}})
	mustNil(t, err)
	p, err := in.reg.Get(ctx, res.Persona.ID)
	mustNil(t, err)
	if p.State != registry.StatePending || p.StampHash == "" || p.StampHash != res.StampHash {
		t.Fatalf("registered %+v; want pending with stamp %s", p, res.StampHash)
	}
	if _, err := in.cases.LoadStamp(context.Background(), p); err != nil {
		t.Fatalf("the stamp of a registered generation: %v", err)
	}
	c := res.Confirmation
	if c == nil || c.Kind != confirm.KindActivation || c.Authority != henry || c.StampHash != p.StampHash {
		t.Fatalf("activation request %+v", c)
	}
	c, err = in.cases.Decide(ctx, Key{}, henry, c.ID, true, confirm.RememberNone, "")
	mustNil(t, err)
	if p, _ = in.reg.Get(ctx, p.ID); c.State != confirm.StateApproved || p.State != registry.StateActive {
		t.Fatalf("after approval: confirmation %s, persona %s; want approved and active", c.State, p.State)
	}
	if _, err := in.cases.Decide(ctx, Key{}, henry, c.ID, true, confirm.RememberNone, ""); !errors.Is(err, confirm.ErrAlreadyDecided) {
		t.Fatalf("deciding again: %v, want ErrAlreadyDecided", err)
	}
}

// A registration refused by validation, or refused because its seat is
// taken, stores nothing, leaves no directory and uses up no name.
func TestRefusedRegistrationUsesUpNothing(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	if _, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/lead", Name: "Spica", Human: "human:henry"}}); !errors.Is(err, registry.ErrInvalidAddress) {
		t.Fatalf("a project-bound role without a project: %v, want ErrInvalidAddress", err)
	}
	_, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Heze", Human: "human:henry"}})
	mustNil(t, err)
	if _, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Porrima", Human: "human:henry"}}); !errors.Is(err, registry.ErrSeatTaken) {
		t.Fatalf("a taken seat: %v, want ErrSeatTaken", err)
	}
	rev, err := in.st.Rev(ctx)
	mustNil(t, err)
	for i, name := range []string{"Spica", "Porrima"} {
		seat := []string{"home/secretary", "work/coordinator"}[i]
		if _, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: seat, Name: name, Human: "human:henry"}}); err != nil {
			t.Fatalf("%s after its refused registration: %v; a refusal must not use up the name", name, err)
		}
		_, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/web/lead", Name: name, Human: "human:henry"}})
		if !errors.Is(err, registry.ErrNameTaken) {
			t.Fatalf("%s twice: %v, want ErrNameTaken", name, err)
		}
		if got, _ := in.st.Rev(ctx); got != rev+1 {
			t.Fatalf("revision %d after one registration from %d: a refusal wrote something", got, rev)
		}
		rev++
	}
	dirs, err := os.ReadDir(in.home.Dir + "/personas")
	mustNil(t, err)
	if len(dirs) != 3 {
		t.Fatalf("%d generation directories for 3 registrations: a refusal left one behind", len(dirs))
	}
}

// Denying an activation refuses the generation and frees the seat in the
// decision's transaction; an expired one is refused by the sweep the same
// way, and an approved retirement retires.
func TestDecisionsCarryTheirLifecycleEffect(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	denied, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:henry"}})
	mustNil(t, err)
	_, err = in.cases.Decide(ctx, Key{}, henry, denied.Confirmation.ID, false, confirm.RememberNone, "wrong repository")
	mustNil(t, err)
	if p, _ := in.reg.Get(ctx, denied.Persona.ID); p.State != registry.StateRefused || p.RefuseReason != "wrong repository" {
		t.Fatalf("denied activation: %s (%q), want refused with the reason", p.State, p.RefuseReason)
	}
	expiring, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Heze", Human: "human:henry"}})
	mustNil(t, err)
	in.clk.advance(queue.DefaultTTL + time.Second)
	n, err := in.cases.Sweep(ctx)
	if err != nil || n != 1 {
		t.Fatalf("sweep expired %d (%v), want 1", n, err)
	}
	if p, _ := in.reg.Get(ctx, expiring.Persona.ID); p.State != registry.StateRefused {
		t.Fatalf("expired activation: persona %s, want refused", p.State)
	}
	active, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Auva", Human: "human:henry"}})
	mustNil(t, err)
	_, err = in.cases.Decide(ctx, Key{}, henry, active.Confirmation.ID, true, confirm.RememberNone, "")
	mustNil(t, err)
	p, err := in.reg.Get(ctx, active.Persona.ID)
	mustNil(t, err)
	r, err := in.cases.Retire(ctx, Key{}, Caller{Principal: henry}, p.ID, "project closed")
	mustNil(t, err)
	_, err = in.cases.Decide(ctx, Key{}, henry, r.Confirmation.ID, true, confirm.RememberNone, "")
	mustNil(t, err)
	if p, _ = in.reg.Get(ctx, p.ID); p.State != registry.StateRetired || p.RetireReason != "project closed" {
		t.Fatalf("approved retirement: %s (%q), want retired with the requester's reason", p.State, p.RetireReason)
	}
}

// A stamp is read from disk and verified once per (generation, hash), then
// served from memory: a request reads no file, and its policy index is
// built once. A record naming another hash
// is verified against the file again (and here refused).
func TestStampIsVerifiedOnceThenCached(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	res, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:henry"}})
	mustNil(t, err)
	p := res.Persona
	first, err := in.cases.LoadStamp(context.Background(), p)
	mustNil(t, err)
	mustNil(t, os.Remove(in.home.GenerationDir(p.ID)+"/CAPABILITY-STAMP.json"))
	again, err := in.cases.LoadStamp(context.Background(), p)
	if err != nil || again.Persona.ID != first.Persona.ID {
		t.Fatalf("a verified stamp read again: %v; want it from memory", err)
	}
	// Its policy index is built once too: every request's policy shares
	// the stamp it indexed, with the request's own options applied.
	pol, err := in.cases.Policy(ctx, p)
	mustNil(t, err)
	pol2, err := in.cases.Policy(ctx, p)
	mustNil(t, err)
	if pol == pol2 || pol.Stamp() != pol2.Stamp() || pol.Hash() != p.StampHash {
		t.Fatalf("two requests' policies: %p and %p over stamps %p and %p; want two policies over one kept index", pol, pol2, pol.Stamp(), pol2.Stamp())
	}
	p.StampHash = "sha256:00"
	if _, err := in.cases.LoadStamp(context.Background(), p); err == nil {
		t.Fatal("a stamp under another hash was served from memory; want it verified against the file")
	}
	if _, err := in.cases.Policy(ctx, p); err == nil {
		t.Fatal("the policy of a stamp under another hash was served from memory; want its stamp verified against the file")
	}
}

// The preview is a dry run of the registration itself: it writes nothing
// (no record, no directory, no name used up), refuses what registration
// would refuse, and shows the stamp registration then writes, identity
// aside.
func TestPreviewIsTheRegistrationWritingNothing(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	reg := Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:henry"}}
	rev, _ := in.st.Rev(ctx)
	pv, err := in.cases.Preview(ctx, reg)
	mustNil(t, err)
	if got, _ := in.st.Rev(ctx); got != rev {
		t.Fatalf("a preview wrote (revision %d → %d)", rev, got)
	}
	if _, err := os.Stat(in.home.PersonasDir()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a preview made a generation directory: %v", err)
	}
	if pv.Previous != nil || pv.Persona.Generation != 1 || pv.StampHash == "" {
		t.Fatalf("preview of a new seat: %+v", pv)
	}
	res, err := in.cases.Register(ctx, Key{}, reg)
	mustNil(t, err)
	p, err := in.reg.Get(ctx, res.Persona.ID)
	mustNil(t, err)
	st, err := in.cases.LoadStamp(context.Background(), p)
	mustNil(t, err)
	if !reflect.DeepEqual(st.Tools, pv.Stamp.Tools) || !reflect.DeepEqual(st.Path, pv.Stamp.Path) || !reflect.DeepEqual(st.Authority, pv.Stamp.Authority) {
		t.Fatalf("registration wrote another stamp than its preview showed")
	}
	if _, err := in.cases.Preview(ctx, Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Heze", Human: "human:henry"}}); !errors.Is(err, registry.ErrSeatTaken) {
		t.Fatalf("preview of a taken seat: %v, want registration's refusal ErrSeatTaken", err)
	}
}
