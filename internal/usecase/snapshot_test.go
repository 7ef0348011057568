package usecase

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/coord/switchboard"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/decisions/ledger"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/runs/journal"
	"github.com/virgo-hub/virgo-tui/internal/snapshot"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
)

// putAll writes kvs in transactions of the store's size.
func putAll(tb testing.TB, st store.Store, ops []store.Op) {
	tb.Helper()
	for len(ops) > 0 {
		n := min(len(ops), store.MaxTxnOps)
		_, err := st.Txn(context.Background(), nil, ops[:n])
		mustNil(tb, err)
		ops = ops[n:]
	}
}

func put(tb testing.TB, key string, v any) store.Op {
	tb.Helper()
	b, err := json.Marshal(v)
	mustNil(tb, err)
	return store.Put(key, b)
}

// ownRecords writes n records p owns, a quarter of each kind the snapshot
// lists (tasks, runs, artifacts, decisions), as their books store them.
func ownRecords(tb testing.TB, in *installation, p registry.Persona, n int) {
	tb.Helper()
	by, at := confirm.PersonaPrincipal(p.Address), in.clk.Now()
	var ops []store.Op
	for i := range n {
		id := fmt.Sprintf("%06d", i)
		ref := runs.TaskRef{Scope: "work", Project: "core", Task: "t-" + id}
		switch i % 4 {
		case 0:
			ops = append(ops, put(tb, board.PrefixRecord+"t-"+id, tasks.Task{ID: "t-" + id, Scope: "work", Project: "core",
				Assignee: tasks.Party{ID: p.ID, Address: p.Address}, By: tasks.Party{ID: "human:henry"}, Title: "task " + id, State: tasks.StateAssigned}))
		case 1:
			ops = append(ops, put(tb, journal.PrefixRun+"r-"+id, runs.Run{ID: "r-" + id, TaskRef: ref, Seq: 1, Title: "run " + id, State: "running", CreatedBy: by, Created: at, Updated: at}))
		case 2:
			ops = append(ops, put(tb, fmt.Sprintf("%sr-%s/0001", journal.PrefixArtifact, id), runs.Artifact{Run: "r-" + id, TaskRef: ref, Seq: 1, Name: "out",
				SHA256: "0000000000000000000000000000000000000000000000000000000000000000", Path: "out", By: by, Time: at}))
		case 3:
			ops = append(ops, put(tb, ledger.PrefixItem+"d-"+id, decisions.Decision{ID: "d-" + id, Seq: i, Question: "which?",
				Options: []string{"a", "b"}, RaisedBy: by, Raised: at, State: "open"}))
		}
	}
	putAll(tb, in.st, ops)
}

// learn writes n remembered approvals of p's, keyed by its stamp.
func learn(tb testing.TB, in *installation, p registry.Persona, n int) {
	tb.Helper()
	ctx := context.Background()
	keys, err := in.cases.LearnKeys(ctx, p)
	mustNil(tb, err)
	cs := make([]confirm.Choice, n)
	for i := range cs {
		cs[i] = confirm.Choice{Key: confirm.PromptKey{StampHash: keys.StampHash, HandlerAction: "deployment.publish",
			Target: confirm.Target{Kind: confirm.TargetExternal, Value: fmt.Sprintf("https://example.org/%d", i)}, Shape: "deploy"},
			Verdict: confirm.Allow, Boundary: confirm.BoundaryPublication, Persona: p.Address, Profile: string(p.Profile),
			Where: confirm.RememberPersona, Decider: henry, ConfirmationID: fmt.Sprintf("c-%012d", i), CreatedAt: in.clk.Now()}
	}
	for len(cs) > 0 {
		plan, rest, _, err := in.queue.Prompts().PlanRestore(ctx, cs, store.MaxTxnOps)
		mustNil(tb, err)
		_, err = plan.Commit(ctx, in.st)
		mustNil(tb, err)
		cs = rest
	}
}

// The records a snapshot lists are the generation's: those of another
// seat, and those its seat made before the generation held it, are not;
// each digest is the stored bytes'.
func TestSnapshotListsTheRecordsItOwns(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	p := activeLead(t, in)
	ownRecords(t, in, p, 8)
	other := p
	other.Address = "work/web/lead"
	early := p
	early.CreatedAt = p.CreatedAt.Add(-time.Hour)
	inbox := func(seat string, seq int) string {
		return fmt.Sprintf("%s%s/#%020d", switchboard.PrefixInbox, seat, seq)
	}
	putAll(t, in.st, []store.Op{
		put(t, journal.PrefixRun+"r-other", runs.Run{ID: "r-other", CreatedBy: confirm.PersonaPrincipal(other.Address), Created: in.clk.Now()}),
		put(t, journal.PrefixRun+"r-early", runs.Run{ID: "r-early", CreatedBy: confirm.PersonaPrincipal(p.Address), Created: early.CreatedAt}),
		put(t, inbox(p.Address, 1), coord.Message{ID: "m-1", To: p.Address, Body: "for the lead", SentAt: in.clk.Now()}),
		put(t, inbox(p.Address, 2), coord.Message{ID: "m-2", To: p.Address, Body: "for its seat's last holder", SentAt: early.CreatedAt}),
		put(t, inbox(other.Address, 1), coord.Message{ID: "m-1", To: other.Address, Body: "for another seat", SentAt: in.clk.Now()}),
	})
	c, err := in.cases.Snapshot(ctx, "work/core/lead")
	mustNil(t, err)
	if len(c.Records) != 9 {
		t.Fatalf("%d records listed, want the 9 the generation owns: %+v", len(c.Records), c.Records)
	}
	kv, err := in.st.Get(ctx, board.PrefixRecord+"t-000000")
	mustNil(t, err)
	for _, r := range c.Records {
		if r.ID == "t-000000" && r.SHA256 != snapshot.RecordDigest(kv.Value) {
			t.Fatalf("task t-000000 listed with digest %s, its stored bytes have %s", r.SHA256, snapshot.RecordDigest(kv.Value))
		}
	}
}

// A thousand learned choices restore in transactions of the store's size,
// every one of them, and match as they were under an equal stamp.
func TestRestoreCarriesAThousandChoices(t *testing.T) {
	from := newInstallation(t)
	ctx := context.Background()
	p := activeLead(t, from)
	learn(t, from, p, 1000)
	c, err := from.cases.Snapshot(ctx, p.ID)
	mustNil(t, err)
	to := newInstallation(t)
	res, err := to.cases.Restore(ctx, c)
	mustNil(t, err)
	if !res.Registered || !res.StampEqual || res.Written != 1000 || res.Review != 0 {
		t.Fatalf("restore of 1,000 choices: %+v", res)
	}
	got, err := to.queue.Prompts().List(ctx, p.Address, string(p.Profile))
	mustNil(t, err)
	if len(got) != 1000 {
		t.Fatalf("%d choices stored, want 1000", len(got))
	}
}

// BenchmarkSnapshot: the snapshot and the restore of a persona with 10,000
// owned records and 1,000 learned choices, beside a plain read of the same
// records and choices (baseline-read): what making the snapshot adds to
// reading what it lists is the ownership decoding, the digests, the
// encoding and the signature. verify is snapshot.Open of the file;
// restore registers the generation in a fresh installation (made with the
// timer stopped) and writes its 1,000 choices.
func BenchmarkSnapshot(b *testing.B) {
	in := newInstallation(b)
	ctx := context.Background()
	p := activeLead(b, in)
	ownRecords(b, in, p, 10_000)
	learn(b, in, p, 1000)
	_, key, err := ed25519.GenerateKey(rand.Reader)
	mustNil(b, err)
	c, err := in.cases.Snapshot(ctx, p.ID)
	mustNil(b, err)
	file, err := snapshot.Encode(c, key)
	mustNil(b, err)
	if len(c.Records) != 10_000 || len(c.Experience) != 1000 {
		b.Fatalf("fixture: %d records, %d choices", len(c.Records), len(c.Experience))
	}
	b.Run("baseline-read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for _, prefix := range []string{board.PrefixRecord, journal.PrefixRun, journal.PrefixArtifact, ledger.PrefixItem} {
				mustNil(b, store.Walk(ctx, in.st, prefix, snapshotPage, func(kvs []store.KV) error { n += len(kvs); return nil }))
			}
			own, _, err := in.queue.Prompts().Layers(ctx, p.Address, string(p.Profile))
			mustNil(b, err)
			if n != 10_000 || len(own) != 1000 {
				b.Fatalf("read %d records and %d choices", n, len(own))
			}
		}
	})
	b.Run("snapshot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, err := in.cases.Snapshot(ctx, p.ID)
			mustNil(b, err)
			_, err = snapshot.Encode(c, key)
			mustNil(b, err)
		}
		b.ReportMetric(float64(len(file)), "file-bytes")
	})
	b.Run("verify", func(b *testing.B) {
		b.ReportAllocs()
		trusted := []ed25519.PublicKey{key.Public().(ed25519.PublicKey)}
		for b.Loop() {
			_, err := snapshot.Open(file, trusted)
			mustNil(b, err)
		}
	})
	b.Run("restore", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			to := newInstallation(b)
			b.StartTimer()
			res, err := to.cases.Restore(ctx, c)
			mustNil(b, err)
			if res.Written != 1000 {
				b.Fatalf("restored %d choices", res.Written)
			}
		}
	})
}
