package hub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// A runtime that beats or connects with a stamp whose file no longer
// matches its recorded hash is refused at once (not at the next hub
// start), and every request after, naming why; the persona shows its stamp
// problem in presence.
func TestARunningHubNoticesAChangedStamp(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	other := th.addPersona(t, "work/web/lead", "Arcturus")
	rt := th.runtime(t, lead)
	_, err := rt.Beat(ctx)
	mustNil(t, err)

	// Widen a tool in place, as a hostile runtime with write access might.
	path := filepath.Join(th.home.GenerationDir(lead.ID), stamp.FileName)
	b, err := os.ReadFile(path)
	mustNil(t, err)
	changed := bytes.Replace(b, []byte(`"confirm"`), []byte(`"allow"`), 1)
	if bytes.Equal(changed, b) {
		t.Fatal("the stamp has no confirm-level tool to widen")
	}
	mustNil(t, os.Chmod(path, 0o600))
	mustNil(t, os.WriteFile(path, changed, 0o600))

	_, err = rt.Beat(ctx)
	wantCode(t, err, "stamp_hash_mismatch")
	_, err = rt.Beat(ctx)
	wantCode(t, err, "stamp_hash_mismatch")
	// Connecting anew is refused too.
	c, err := hubclient.Dial(ctx, th.home.Dir, hubclient.WithTokenFile(th.home.GenerationDir(lead.ID)+"/"+hubapi.TokenFile))
	if err == nil {
		_, err = c.Beat(ctx)
		c.Close()
	}
	wantCode(t, err, "stamp_hash_mismatch")

	ps, err := th.operator(t, "henry").Presence(ctx)
	mustNil(t, err)
	found := false
	for _, p := range ps {
		if p.ID == lead.ID {
			found = true
			if p.State != hubapi.StateOffline || !strings.Contains(p.Problem, "not standing: capability stamp file changed") {
				t.Fatalf("presence of the changed persona: %s %q, want offline with the stamp problem", p.State, p.Problem)
			}
		}
	}
	if !found {
		t.Fatal("the changed persona is not in presence")
	}
	// Another persona is untouched.
	if _, err := th.runtime(t, other).Beat(ctx); err != nil {
		t.Fatalf("another persona's beat: %v", err)
	}
}

// Reading a stamp through the hub holds the local copy to the recorded
// hash with the same check a runtime's request gets: a copy changed on this
// host refuses the read and the generation, whoever noticed first.
func TestAStampReadNoticesAChangedLocalCopy(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	rt := th.runtime(t, lead)
	_, err := rt.Beat(ctx)
	mustNil(t, err)
	henry := th.operator(t, "henry")
	if _, err := henry.Stamp(ctx, lead.Address); err != nil {
		t.Fatalf("reading an intact stamp: %v", err)
	}

	path := filepath.Join(th.home.GenerationDir(lead.ID), stamp.FileName)
	b, err := os.ReadFile(path)
	mustNil(t, err)
	mustNil(t, os.Chmod(path, 0o600))
	mustNil(t, os.WriteFile(path, bytes.Replace(b, []byte(`"confirm"`), []byte(`"allow"`), 1), 0o600))

	_, err = henry.Stamp(ctx, lead.Address)
	wantCode(t, err, "stamp_hash_mismatch")
	// The generation is refused as a runtime's own request would have it.
	_, err = rt.Beat(ctx)
	wantCode(t, err, "stamp_hash_mismatch")
}

// The stamp watch remembers a file for every active generation for the
// hub's life: the hash it is held to and its stat, not its path (which
// follows from the generation) nor times with their locations — about 530
// bytes a generation before, 5.3 MB of a 10,000-persona hub's heap.
func TestStampWatchHoldsLittlePerGeneration(t *testing.T) {
	const n = 2000
	dir := t.TempDir()
	mustNil(t, os.Chmod(dir, 0o700)) // a generation directory is private
	b := []byte(`{"schema_version":3}`)
	hash, err := stamp.Hash(b)
	mustNil(t, err)
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("p-%016x.json", i))
		mustNil(t, os.WriteFile(paths[i], b, 0o600))
	}
	w := newStampWatch()
	before := heapAfterGC()
	for i, path := range paths {
		id := fmt.Sprintf("p-%016x", i)
		mustNil(t, w.check(id, path, dir, stampSeen{hash: strings.Clone(hash)}, false))
	}
	perGeneration := (int64(heapAfterGC()) - int64(before)) / n
	if perGeneration > 300 {
		t.Fatalf("the stamp watch holds %d bytes a generation; want at most 300", perGeneration)
	}
	// What it remembers still notices a changed file.
	mustNil(t, os.WriteFile(paths[0], []byte(`{"schema_version":3, "x":1}`), 0o600))
	s := w.seen["p-0000000000000000"]
	if err := w.check("p-0000000000000000", paths[0], dir, s, true); !errors.Is(err, stamp.ErrHashMismatch) {
		t.Fatalf("a changed file checked against what was remembered: %v", err)
	}
}
