package hub

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdtest"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
)

// dialAs is a client of the hub serving home, with token tok (read from
// whichever home holds it: the secret travels with its owner).
func dialAs(t *testing.T, home registry.Home, tok string) *hubclient.Client {
	t.Helper()
	c, err := hubclient.Dial(context.Background(), home.Dir, hubclient.WithToken(tok))
	mustNil(t, err)
	t.Cleanup(func() { mustNil(t, c.Close()) })
	return c
}

// pendingIDs are the ids of a snapshot's pending confirmations, sorted.
func pendingIDs(t *testing.T, c *hubclient.Client) []string {
	t.Helper()
	s, err := c.Snapshot(context.Background())
	mustNil(t, err)
	var ids []string
	for _, cf := range s.Confirmations {
		ids = append(ids, cf.ID)
	}
	slices.Sort(ids)
	return ids
}

// settled waits until every hub has applied every write committed so far.
func settled(t *testing.T, hubs ...*testHub) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, th := range hubs {
		mustNil(t, th.hub.Settle(ctx))
	}
}

// "nothing of an installation's state is only in one
// host's home." Two hubs on two homes (two hosts) serve one installation
// from one etcd prefix: an operator enrolled through hub A works on hub B,
// a persona registered through A is approved through B, its runtime (whose
// token and stamp file are in A's home) authenticates to B and B serves its
// stamp from the store, both hubs show the same queue, an operator removed
// through B is refused by A, and a uid binding holds only on its own host.
func TestTwoHubsServeOneInstallation(t *testing.T) {
	m, err := etcdtest.Start(t.TempDir())
	mustNil(t, err)
	t.Cleanup(m.Stop) // after both hubs stop
	t.Setenv(storeurl.Env, "etcd://"+m.Endpoint+"/virgo/twohubs")
	ctx := context.Background()
	homeA, homeB := shortHome(t), shortHome(t)
	enrol(t, homeA.Dir, "henry") // an older home's token file: recorded at A's start
	a := startHub(t, homeA, Config{Host: "host-a"}, Timeouts{})
	b := startHub(t, homeB, Config{Host: "host-b"}, Timeouts{})

	henryTok, err := hubapi.OperatorToken(homeA.Dir, "henry")
	mustNil(t, err)
	henryA := dialAs(t, homeA, henryTok)
	henryB := dialAs(t, homeB, henryTok)
	if id, err := henryB.WhoAmI(ctx); err != nil || id.Principal != "human:henry" {
		t.Fatalf("henry, enrolled in A's home, on hub B: %+v, %v", id, err)
	}
	// An operator enrolled through A's API: the file in A's home, the
	// hash in the store, so B accepts the token.
	adaView, err := henryA.EnrolOperator(ctx, "ada", hubapi.NoUID)
	mustNil(t, err)
	if adaView.Host != "host-a" {
		t.Fatalf("ada's enrolment names host %q, want host-a", adaView.Host)
	}
	adaTok, err := hubapi.OperatorToken(homeA.Dir, "ada")
	mustNil(t, err)
	settled(t, a, b)
	if id, err := dialAs(t, homeB, adaTok).WhoAmI(ctx); err != nil || id.Principal != "human:ada" {
		t.Fatalf("ada, enrolled through hub A, on hub B: %+v, %v", id, err)
	}
	if _, err := os.Stat(hubapi.OperatorTokenPath(homeB.Dir, "ada")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("B's home has a token file of ada: %v; the secret stays on the enrolling host", err)
	}
	ops, err := henryB.Operators(ctx)
	mustNil(t, err)
	if len(ops) != 2 {
		t.Fatalf("hub B lists %d operators, want henry and ada: %+v", len(ops), ops)
	}

	// Both hubs' streams see the registration made through A.
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	streamB := henryB.Subscribe(subCtx, 0)
	reg, err := henryA.Register(ctx, hubapi.RegisterRequest{Address: "work/core/lead", Name: "Spica", Human: "human:henry"})
	mustNil(t, err)
	activation := reg.Confirmation.ID
	collect(t, streamB, 5*time.Second, func(cs []hubapi.Change) bool {
		return slices.ContainsFunc(cs, func(c hubapi.Change) bool { return c.ID == activation })
	})
	settled(t, a, b)
	if qa, qb := pendingIDs(t, henryA), pendingIDs(t, henryB); !slices.Equal(qa, qb) || !slices.Contains(qb, activation) {
		t.Fatalf("the queues differ: A %v, B %v (want both with %s)", qa, qb, activation)
	}

	// Approved through B; the runtime's token is issued on A (its home
	// holds the generation) and works on B.
	decided, err := henryB.Decide(ctx, activation, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	if decided.State != confirm.StateApproved {
		t.Fatalf("the activation through B is %s", decided.State)
	}
	lead := reg.Persona
	runtimeB := runtimeOn(t, homeB, homeA, lead)
	if _, err := os.Stat(homeB.GenerationDir(lead.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("hub B made the generation a directory in its home: %v", err)
	}
	view, err := runtimeB.Stamp(ctx, lead.ID)
	mustNil(t, err)
	if view.Hash != reg.StampHash || view.Stamp.Persona.ID != lead.ID {
		t.Fatalf("hub B served the stamp %s of %s, want %s of %s", view.Hash, view.Stamp.Persona.ID, reg.StampHash, lead.ID)
	}

	// A confirmation the runtime asks for through B is in A's queue too,
	// and counts toward the lead's pending requests on both hubs.
	asked, err := runtimeB.RequestConfirmation(ctx, deployOp("two-hubs-1"))
	mustNil(t, err)
	settled(t, a, b)
	if qa, qb := pendingIDs(t, henryA), pendingIDs(t, henryB); !slices.Equal(qa, qb) || !slices.Contains(qa, asked.Confirmation.ID) {
		t.Fatalf("the queues differ: A %v, B %v (want both with %s)", qa, qb, asked.Confirmation.ID)
	}
	for _, th := range []*testHub{a, b} {
		if got, _ := th.hub.Presence().Get(lead.ID); got.Waiting != 1 {
			t.Fatalf("a hub counts %d pending requests of the lead, want 1", got.Waiting)
		}
	}

	// A message sent through A reaches the lead's message stream open on B
	// (B's mailboxes follow its store watch).
	inbox, err := runtimeB.OpenMessageStream(ctx, "")
	mustNil(t, err)
	defer inbox.Close()
	deputy := reg2(t, henryA, henryB, "work/core/deputy", "Zaniah")
	deputyA := runtimeOn(t, homeA, homeA, deputy)
	_, err = deputyA.SendMessage(ctx, coord.Draft{To: lead.Address, Body: "through hub A"})
	mustNil(t, err)
	if m, err := inbox.Next(); err != nil || m.Body != "through hub A" || m.From.Address != deputy.Address {
		t.Fatalf("the lead's stream on B: %+v, %v", m, err)
	}

	// Removed through B: refused by A, whose home's token file goes.
	mustNil(t, henryB.RemoveOperator(ctx, "human:ada"))
	settled(t, a, b)
	_, err = whoAmIWith(t, homeA, adaTok)
	wantCode(t, err, "unauthenticated")
	if _, err := os.Stat(hubapi.OperatorTokenPath(homeA.Dir, "ada")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ada's token file is still in A's home after her removal: %v", err)
	}

	// A fresh home enrols nobody by a file: a command on host B finding no
	// operator file there takes itself for a first install and writes one,
	// but the installation has operators, so hub B does not record it.
	eveTok, err := hubapi.OperatorToken(homeB.Dir, "eve")
	mustNil(t, err)
	_, err = whoAmIWith(t, homeB, eveTok)
	wantCode(t, err, "unauthenticated")

	// A uid binds a user of one host: bob, bound on host A, is refused on B.
	_, err = henryA.EnrolOperator(ctx, "bob", os.Getuid())
	mustNil(t, err)
	bobTok, err := hubapi.OperatorToken(homeA.Dir, "bob")
	mustNil(t, err)
	settled(t, a, b)
	if id, err := whoAmIWith(t, homeA, bobTok); err != nil || id.Principal != "human:bob" {
		t.Fatalf("bob on the host he is bound on: %+v, %v", id, err)
	}
	_, err = whoAmIWith(t, homeB, bobTok)
	wantCode(t, err, "wrong_user")
}

// reg2 registers a generation through the first client's hub, approves
// its activation through the second's, and returns it.
func reg2(t *testing.T, via, approver *hubclient.Client, addr, name string) registry.Persona {
	t.Helper()
	ctx := context.Background()
	r, err := via.Register(ctx, hubapi.RegisterRequest{Address: addr, Name: name, Human: "human:henry"})
	mustNil(t, err)
	_, err = approver.Decide(ctx, r.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	return r.Persona
}

// runtimeOn is generation p's runtime on the hub serving home, with the
// token its hub issued in tokenHome (the registering home), once that hub
// accepts it: the token is issued when the activation reaches the
// registering hub's watch, and reaches other hubs by theirs.
func runtimeOn(t *testing.T, home, tokenHome registry.Home, p registry.Persona) *hubclient.Client {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(tokenHome.GenerationDir(p.ID) + "/" + hubapi.TokenFile)
		if tok := strings.TrimSpace(string(b)); err == nil && strings.HasPrefix(tok, hubapi.TokenPrefix) {
			c := dialAs(t, home, tok)
			id, err := c.WhoAmI(context.Background())
			if err == nil && id.PersonaID == p.ID {
				return c
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's runtime is not accepted by the hub of %s: %v", p.Address, home.Dir, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
