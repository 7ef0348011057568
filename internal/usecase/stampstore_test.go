package usecase

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// register registers a generation at addr as henry's and returns it.
func (in *installation) register(t *testing.T, addr, name string) registry.Persona {
	t.Helper()
	res, err := in.cases.Register(context.Background(), Key{}, Registration{Registration: registry.Registration{Address: addr, Name: name, Human: "human:henry"}})
	mustNil(t, err)
	return res.Persona
}

// fresh is the use cases over the same store and home with nothing cached,
// as a hub on another host (or after a restart) has them.
func (in *installation) fresh() *Cases {
	return New(Config{Store: in.st, Registry: in.reg, Queue: in.queue, Now: in.clk.Now})
}

// "Stamp bytes (verified by hash on read) ... nothing of an
// installation's state is only in one host's home." The registration's
// transaction stores the stamp's bytes; a hub without the file (another
// host's) serves the stamp from the store, verified against the hash.
func TestStampBytesAreStoredWithTheRegistration(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	p := in.register(t, "work/core/lead", "Spica")
	file, err := os.ReadFile(in.cases.localStampPath(p.ID))
	mustNil(t, err)
	kv, err := in.st.Get(ctx, StampPrefix+p.ID)
	mustNil(t, err)
	stored := kv.Value
	if !bytes.Equal(stored, file) {
		t.Fatal("the stored stamp differs from the file the registration wrote")
	}
	_, cond, err := in.reg.GetGuarded(ctx, p.ID)
	mustNil(t, err)
	if kv.ModRev != cond.ModRev {
		t.Fatalf("the stamp was stored at revision %d and the persona at %d: not one transaction", kv.ModRev, cond.ModRev)
	}

	mustNil(t, os.Remove(in.cases.localStampPath(p.ID)))
	elsewhere := in.fresh()
	st, err := elsewhere.LoadStamp(context.Background(), p)
	if err != nil || st.Persona.ID != p.ID {
		t.Fatalf("the stamp read from the store on a host without the file: %v", err)
	}
	if err := elsewhere.CheckStanding(p); err != nil {
		t.Fatalf("a host without a local copy finds the generation not standing: %v", err)
	}

	// The stored bytes are verified on read: changed bytes are refused.
	changed := bytes.Replace(stored, []byte(`"access": "confirm"`), []byte(`"access": "allow"`), 1)
	_, err = in.st.Txn(ctx, nil, []store.Op{store.Put(StampPrefix+p.ID, changed)})
	mustNil(t, err)
	if _, err := in.fresh().LoadStamp(context.Background(), p); !errors.Is(err, stamp.ErrHashMismatch) {
		t.Fatalf("changed stored bytes: %v, want ErrHashMismatch", err)
	}

	// A stored value past the stamp limit is refused by its size, before
	// it is parsed.
	_, err = in.st.Txn(ctx, nil, []store.Op{store.Put(StampPrefix+p.ID, append(bytes.Clone(stored), make([]byte, stamp.MaxBytes)...))})
	mustNil(t, err)
	if _, err := in.fresh().LoadStamp(context.Background(), p); !errors.Is(err, stamp.ErrStampTooLarge) {
		t.Fatalf("a stored stamp past the limit: %v, want ErrStampTooLarge", err)
	}
}

// A recorded stamp hash whose bytes are not in the store (the store was
// damaged or edited) is ErrStampNotStored, named, never a stamp read from
// elsewhere.
func TestStampNotStoredIsNamed(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	a := in.register(t, "work/core/lead", "Spica")
	_, err := in.st.Txn(ctx, nil, []store.Op{{Key: StampPrefix + a.ID, Delete: true}})
	mustNil(t, err)
	if _, err := in.fresh().LoadStamp(context.Background(), a); !errors.Is(err, ErrStampNotStored) || !strings.Contains(err.Error(), "work/core/lead") {
		t.Fatalf("a stamp whose bytes are not stored: %v, want ErrStampNotStored naming the persona", err)
	}
}

// localStampPath is the local copy of generation id's stamp on this host.
func (u *Cases) localStampPath(id string) string {
	return filepath.Join(u.home.GenerationDir(id), stamp.FileName)
}
