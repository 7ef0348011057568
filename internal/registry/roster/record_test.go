package roster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// ListRecords lists what List lists, in its order, filtered alike, each
// record AppendJSON of List's persona — a record stored in another form
// (an older writer's) included.
func TestListRecordsIsList(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	in.step(func(r *Registry) {
		mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Spica"})
		mustRegister(t, r, registry.Registration{Address: "root/secretary", Name: "Porrima"})
		mustRegister(t, r, registry.Registration{Address: "work/core/deputy", Name: "Rijl al Awwa", Pending: true})
		if _, err := r.Retire(ctx, "work/core/lead", "rotated \x1b[2J"); err != nil {
			t.Fatal(err)
		}
		mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Heze"})
	})
	// An older writer's form of Porrima's record: encoding/json, indented.
	s, err := boltstore.Open(in.home.DBPath(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kvs, err := s.List(ctx, personaPrefix)
	if err != nil {
		t.Fatal(err)
	}
	rewrote := false
	for _, kv := range kvs {
		if p, _ := registry.DecodePersona(kv.Value); p.Name == "Porrima" {
			old, _ := json.MarshalIndent(plainPersona(p), "", " ")
			if _, err := s.Txn(ctx, []store.Cond{{Key: kv.Key, ModRev: kv.ModRev}}, []store.Op{store.Put(kv.Key, old)}); err != nil {
				t.Fatal(err)
			}
			rewrote = true
		}
	}
	if err := s.Close(); err != nil || !rewrote {
		t.Fatalf("rewrite Porrima: %v, %v", rewrote, err)
	}
	in.step(func(r *Registry) {
		for _, all := range []bool{false, true} {
			list, err := r.List(ctx, ListOptions{All: all})
			if err != nil {
				t.Fatal(err)
			}
			recs, err := r.ListRecords(ctx, ListOptions{All: all})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(list) || len(list) != map[bool]int{false: 3, true: 4}[all] {
				t.Fatalf("all=%v: %d records, %d personas", all, len(recs), len(list))
			}
			for i, p := range list {
				if want, err := registry.EncodePersona(p); err != nil || !bytes.Equal(recs[i].JSON(), want) {
					t.Errorf("all=%v [%d] = %s, want %s", all, i, recs[i].JSON(), want)
				}
			}
		}
	})
}

// A stored value that is not a persona record is the store's corruption,
// named with its key.
func TestListRecordsNamesACorruptRecord(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	in.step(func(r *Registry) { mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Spica"}) })
	s, err := boltstore.Open(in.home.DBPath(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Txn(ctx, nil, []store.Op{store.Put(personaPrefix+"ffff", []byte("{not json"))}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	in.step(func(r *Registry) {
		_, err := r.ListRecords(ctx, ListOptions{All: true})
		if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), personaPrefix+"ffff") {
			t.Errorf("ListRecords over a corrupt record: %v", err)
		}
	})
}

// plainPersona has Persona's fields and tags but not its methods, so
// encoding/json handles it by reflection, as a record could be written.
type plainPersona registry.Persona
