package hub

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/procmem"
	"github.com/virgo-hub/virgo-tui/internal/usecase/usecasetest"
)

// After each presence flush the hub lets go of the database pages that
// reads and writes left resident in its memory (the flush's writes read
// every leaf page they change; at 10,000 reporting personas about 20 MB of
// the map stayed resident, and every page a request read, for the hub's
// life).
func TestHubLetsGoOfDatabasePagesAfterEachFlush(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{FlushEvery: 50 * time.Millisecond}, Timeouts{})
	ps := usecasetest.RegisterMany(t, 300, throughRegistry(th.hub.Registry()))
	mustNil(t, th.hub.Settle(context.Background()))
	resident := func() int {
		kib, err := procmem.MappedKiB(os.Getpid(), home.DBPath())
		mustNil(t, err)
		return kib
	}
	for _, p := range ps {
		activity := "working on " + p.ID
		mustNil(t, th.hub.Presence().Report(p.ID, &activity, nil))
	}
	// The registrations' writes and the flush's read pages of the map:
	// without the release, 640 KiB of the 1 MiB file stay resident for
	// good. With it, within a few flushes at most a quarter of the file is
	// — on an idle machine none, on a loaded one what the change watch
	// reads after a flush's release until the next (about 150 KiB, seen
	// for 5 s on end when the whole suite ran beside this test).
	info, err := os.Stat(home.DBPath())
	mustNil(t, err)
	limit := int(info.Size() / 1024 / 4)
	deadline := time.Now().Add(10 * time.Second)
	for kib := resident(); kib > limit; kib = resident() {
		if time.Now().After(deadline) {
			t.Fatalf("%d KiB of the database map still resident 10 s after the writes (limit %d KiB, a quarter of the file)", kib, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Nothing was lost: a restarted hub restores every activity.
	th.stop()
	th = startHub(t, home, Config{}, Timeouts{})
	for _, p := range ps {
		if got, ok := th.hub.Presence().Get(p.ID); !ok || got.Activity != "working on "+p.ID {
			t.Fatalf("presence of %s after a restart: %+v", p.ID, got)
		}
	}
}
