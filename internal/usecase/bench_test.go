package usecase

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/procmem"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// BenchmarkDecisionCommitVsFsync: one decision's commit through the use
// case — the decision record, the lifecycle effect (a generation
// activated), the audit entry and the idempotency record in one
// transaction — against a bare fsync of a file in the same directory,
// interleaved in one loop so both see the same disk and load. bbolt's floor
// is two syncs per commit; the goal is commit/fsync ≤ 2.2. bbolt syncs with
// fdatasync on Linux, so the loop also times the like-for-like unit: a
// 4 KiB page overwritten and fdatasync'ed (commit/fdatasync). The
// registration each decision needs is made with the timer stopped.
//
// txn/fsync is the store's transaction alone (Store.Txn: the commit of the
// records the decision planned), without the reads and the plan before it.
func BenchmarkDecisionCommitVsFsync(b *testing.B) {
	in := newInstallation(b)
	timed := &timedTxn{Store: in.st}
	cases := in.cases.Over(timed)
	ctx := context.Background()
	f, err := os.Create(filepath.Join(in.home.Dir, "fsync-baseline"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, 4096)
	var commit, cpu, fsync, fdatasync time.Duration
	var pages int64
	bolt := in.st.(*boltstore.Store)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		res, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: fmt.Sprintf("s%d/core/lead", i), Name: fmt.Sprintf("Bench %d", i), Human: "human:henry"}})
		if err != nil {
			b.Fatal(err)
		}
		k, err := NewKey("human:henry", fmt.Sprintf("d-%d", i), []byte(res.Confirmation.ID))
		if err != nil {
			b.Fatal(err)
		}
		before, _ := bolt.Stats()
		b.StartTimer()
		cpu0, start := procmem.CPUTime(), time.Now()
		if _, err := cases.Decide(ctx, k, henry, res.Confirmation.ID, true, confirm.RememberNone, ""); err != nil {
			b.Fatal(err)
		}
		commit += time.Since(start)
		cpu += procmem.CPUTime() - cpu0
		b.StopTimer()
		after, _ := bolt.Stats()
		pages += after.PageWrites - before.PageWrites
		start = time.Now()
		if _, err := f.WriteAt([]byte{byte(i)}, 0); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		fsync += time.Since(start)
		start = time.Now()
		if _, err := f.WriteAt(page, 4096); err != nil {
			b.Fatal(err)
		}
		if err := datasync(f); err != nil {
			b.Fatal(err)
		}
		fdatasync += time.Since(start)
		b.StartTimer()
		i++
	}
	b.ReportMetric(float64(fsync.Nanoseconds())/float64(b.N), "fsync-ns/op")
	b.ReportMetric(float64(commit)/float64(fsync), "commit/fsync")
	b.ReportMetric(float64(fdatasync.Nanoseconds())/float64(b.N), "fdatasync-ns/op")
	b.ReportMetric(float64(commit)/float64(fdatasync), "commit/fdatasync")
	b.ReportMetric(float64(timed.took)/float64(fsync), "txn/fsync")
	b.ReportMetric(float64(timed.took)/float64(fdatasync), "txn/fdatasync")
	b.ReportMetric(float64(pages)/float64(b.N), "pages/commit")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// timedTxn adds up the time its store's Txn calls take, for one caller at a
// time.
type timedTxn struct {
	store.Store
	took time.Duration
}

func (t *timedTxn) Txn(ctx context.Context, conds []store.Cond, ops []store.Op) (int64, error) {
	start := time.Now()
	rev, err := t.Store.Txn(ctx, conds, ops)
	t.took += time.Since(start)
	return rev, err
}
