package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// "checks that every stamped tool has an executor and an input
// schema; otherwise it refuses to start and names what is missing".
func TestBootProofRefusesNamingWhatIsMissing(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	v, err := f.op.Stamp(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prove(v); err != nil {
		t.Fatalf("the registered stamp: %v", err)
	}
	saved := executors["workspace_hash"]
	delete(executors, "workspace_hash")
	_, err = prove(v)
	executors["workspace_hash"] = saved
	if !errors.Is(err, stamp.ErrNotStanding) || !strings.Contains(err.Error(), "workspace_hash") || !strings.Contains(err.Error(), "no executor") {
		t.Fatalf("without the hash executor: %v; want a refusal naming workspace_hash", err)
	}

	tampered := v
	tampered.Stamp.Tools = append(append([]stamp.Tool(nil), v.Stamp.Tools...), v.Stamp.Tools[0])
	if _, err := prove(tampered); !errors.Is(err, stamp.ErrHashMismatch) {
		t.Fatalf("a stamp that is not the recorded one: %v, want stamp.ErrHashMismatch", err)
	}
	tampered.Hash = mustHash(t, tampered.Stamp)
	if _, err := prove(tampered); !errors.Is(err, stamp.ErrNotStanding) || !strings.Contains(err.Error(), v.Stamp.Tools[0].Name) {
		t.Fatalf("a tool listed twice: %v; want the projections refused naming %s", err, v.Stamp.Tools[0].Name)
	}
}

func mustHash(t *testing.T, s stamp.Stamp) string {
	t.Helper()
	b, err := stamp.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	h, err := stamp.Hash(b)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The spec: "Startup fails if the stamp is missing". An MCP server whose
// persona's CAPABILITY-STAMP.json was moved away refuses to start, naming
// the missing file; the file put back, it starts and serves the stamp's
// tools.
func TestBootRefusesWhileTheStampFileIsMissing(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	path := filepath.Join(f.home.GenerationDir(p.ID), stamp.FileName)
	if err := os.Rename(path, path+".moved"); err != nil {
		t.Fatal(err)
	}
	c, err := hubclient.Dial(context.Background(), f.home.Dir, hubclient.WithTokenFile(f.tokenFile(p)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := Boot(context.Background(), c, p.Address, Options{Home: f.home.Dir})
	if err == nil {
		r.Close()
		t.Fatal("the MCP server started without its stamp file")
	}
	if !errors.Is(err, stamp.ErrStampMissing) || !strings.Contains(err.Error(), stamp.FileName) {
		t.Fatalf("boot without the stamp file: %v; want stamp.ErrStampMissing naming %s", err, stamp.FileName)
	}

	if err := os.Rename(path+".moved", path); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, f.runtime(t, p, Options{}), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) == 0 {
		t.Fatal("the MCP server serves no tool with its stamp file back")
	}
}
