package usecase

import (
	"bytes"
	"context"
	"errors"
	"os"
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

// Issue 15 item 2: "Stamp bytes (verified by hash on read) ... nothing of an
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

// A home from before stamps were stored: the hub's start copies every stamp
// file whose bytes the store lacks, verified first, then marks the copy
// done; a changed file is not copied (and the copy is not marked done), and
// a marked store is not read again.
func TestCopyStampFilesOnce(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	a := in.register(t, "work/core/lead", "Spica")
	b := in.register(t, "work/core/deputy", "Porrima")
	_, err := in.st.Txn(ctx, nil, []store.Op{{Key: StampPrefix + a.ID, Delete: true}, {Key: StampPrefix + b.ID, Delete: true}})
	mustNil(t, err)
	if _, err := in.fresh().LoadStamp(context.Background(), a); !errors.Is(err, ErrStampNotStored) {
		t.Fatalf("a stamp whose bytes are not stored: %v, want ErrStampNotStored", err)
	}
	good, err := os.ReadFile(in.cases.localStampPath(b.ID))
	mustNil(t, err)
	mustNil(t, os.WriteFile(in.cases.localStampPath(b.ID), append([]byte(" "), bytes.Replace(good, []byte(`"confirm"`), []byte(`"allow"`), 1)...), 0o600))

	ps := []registry.Persona{a, b}
	if n, err := in.cases.CopyStampFiles(ctx, ps); err != nil || n != 1 {
		t.Fatalf("copied %d (%v), want the one intact file", n, err)
	}
	if _, err := in.st.Get(ctx, StampPrefix+b.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a changed stamp file was copied into the store: %v", err)
	}
	if _, err := in.st.Get(ctx, stampsInStore); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the copy was marked done with a stamp left out: %v", err)
	}
	if _, err := in.fresh().LoadStamp(context.Background(), a); err != nil {
		t.Fatalf("the copied stamp: %v", err)
	}

	mustNil(t, os.WriteFile(in.cases.localStampPath(b.ID), good, 0o600)) // mended
	if n, err := in.cases.CopyStampFiles(ctx, ps); err != nil || n != 1 {
		t.Fatalf("copied %d (%v) after the file was mended, want 1", n, err)
	}
	if _, err := in.st.Get(ctx, stampsInStore); err != nil {
		t.Fatalf("every stamp is stored, but the copy is not marked done: %v", err)
	}
	_, err = in.st.Txn(ctx, nil, []store.Op{{Key: StampPrefix + a.ID, Delete: true}})
	mustNil(t, err)
	if n, err := in.cases.CopyStampFiles(ctx, ps); err != nil || n != 0 {
		t.Fatalf("a marked store was copied into again: %d (%v)", n, err)
	}
}

// conflictOnce is a store whose first transaction fails as a conflict and
// writes nothing, as when another hub commits first.
type conflictOnce struct {
	store.Store
	done bool
}

func (c *conflictOnce) Txn(ctx context.Context, conds []store.Cond, ops []store.Op) (int64, error) {
	if !c.done {
		c.done = true
		return 0, store.ErrConflict
	}
	return c.Store.Txn(ctx, conds, ops)
}

// A batch lost to a conflict (another hub copying) may have held stamps
// the other hub did not copy: the copy is not marked done, and the next
// start copies them.
func TestCopyStampFilesAfterAConflictLooksAgain(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	a := in.register(t, "work/core/lead", "Spica")
	_, err := in.st.Txn(ctx, nil, []store.Op{{Key: StampPrefix + a.ID, Delete: true}})
	mustNil(t, err)
	ps := []registry.Persona{a}
	if n, err := in.cases.Over(&conflictOnce{Store: in.st}).CopyStampFiles(ctx, ps); err != nil || n != 0 {
		t.Fatalf("copied %d (%v) through a conflict, want 0", n, err)
	}
	if _, err := in.st.Get(ctx, stampsInStore); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the copy was marked done though its batch was lost: %v", err)
	}
	if n, err := in.cases.CopyStampFiles(ctx, ps); err != nil || n != 1 {
		t.Fatalf("copied %d (%v) at the next start, want 1", n, err)
	}
	if _, err := in.st.Get(ctx, stampsInStore); err != nil {
		t.Fatalf("every stamp is stored, but the copy is not marked done: %v", err)
	}
}

// getCounter is a store that counts its single-key reads.
type getCounter struct {
	store.Store
	gets int
}

func (c *getCounter) Get(ctx context.Context, key string) (store.KV, error) {
	c.gets++
	return c.Store.Get(ctx, key)
}

// The copy learns which stamps are stored by reading their prefix, not by
// one read per persona: on etcd each read is a round trip, and every start
// repeats the copy while a stamp lives only on another host.
func TestCopyStampFilesReadsThePrefixNotEachStamp(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	ps := []registry.Persona{
		in.register(t, "work/core/lead", "Spica"),
		in.register(t, "work/core/deputy", "Porrima"),
		in.register(t, "work/web/lead", "Arcturus"),
	}
	_, err := in.st.Txn(ctx, nil, []store.Op{{Key: StampPrefix + ps[0].ID, Delete: true}})
	mustNil(t, err)
	counted := &getCounter{Store: in.st}
	if n, err := in.cases.Over(counted).CopyStampFiles(ctx, ps); err != nil || n != 1 {
		t.Fatalf("copied %d (%v), want the one stamp not stored", n, err)
	}
	if counted.gets > 1 {
		t.Fatalf("the copy read %d single keys for %d personas; want only its done mark", counted.gets, len(ps))
	}
	if _, err := in.fresh().LoadStamp(context.Background(), ps[0]); err != nil {
		t.Fatalf("the copied stamp: %v", err)
	}
}
