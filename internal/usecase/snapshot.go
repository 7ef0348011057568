package usecase

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/coord/switchboard"
	"github.com/virgo-hub/virgo-tui/internal/decisions/ledger"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/runs/journal"
	"github.com/virgo-hub/virgo-tui/internal/snapshot"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
)

// snapshotPage is how many keys a snapshot reads at a time from a book it
// scans for the generation's records.
const snapshotPage = 512

// Snapshot reads what the snapshot of the generation ref names (an
// address: its current holder; a name; a generation id) carries: its
// record, its stamp bytes, the learned choices its decisions rely on — in
// its experience layer under its stamp hash, and in its class's overlay
// under its class key — its session lineage, and the id and digest of
// every record it owns. It writes nothing; the caller signs and encodes
// the contents (snapshot.Encode).
//
// The records are read page by page, each at its own revision, while the
// installation goes on: a record changed meanwhile is listed as it was
// when its page was read. The stamp is never rewritten, and the learned
// choices are read in one range after the records.
func (u *Cases) Snapshot(ctx context.Context, ref string) (snapshot.Contents, error) {
	p, err := u.Resolve(ctx, ref)
	if err != nil {
		return snapshot.Contents{}, err
	}
	records, err := u.ownedRecords(ctx, p)
	if err != nil {
		return snapshot.Contents{}, fmt.Errorf("snapshot %s: %w", p.Address, err)
	}
	c := snapshot.Contents{Persona: p, Session: snapshot.SessionOf(p.SessionLineage), Records: records}
	if p.StampHash == "" {
		return c, nil
	}
	kv, err := u.st.Get(ctx, stampStoreKey(p.ID))
	if errors.Is(err, store.ErrNotFound) {
		return snapshot.Contents{}, fmt.Errorf("snapshot %s (%s): %w; the registration stored them with its hash, so the store was damaged or edited: restore it from a backup",
			p.Address, p.Name, ErrStampNotStored)
	}
	if err != nil {
		return snapshot.Contents{}, fmt.Errorf("snapshot %s: read the stamp: %w", p.Address, err)
	}
	c.Stamp = kv.Value
	keys, err := u.LearnKeys(ctx, p)
	if err != nil {
		return snapshot.Contents{}, fmt.Errorf("snapshot %s: %w", p.Address, err)
	}
	own, class, err := u.queue.Prompts().Layers(ctx, p.Address, string(p.Profile))
	if err != nil {
		return snapshot.Contents{}, fmt.Errorf("snapshot %s: %w", p.Address, err)
	}
	for _, ch := range own {
		if ch.Key.StampHash == keys.StampHash {
			c.Experience = append(c.Experience, ch)
		}
	}
	for _, ch := range class {
		if ch.Key.ClassKey == keys.ClassKey {
			c.ClassOverlay = append(c.ClassOverlay, ch)
		}
	}
	return c, nil
}

// ownedBook is one book of records a generation may own: where its
// records live, and which of them are the generation's.
type ownedBook struct {
	kind   string
	prefix string
	// owns decodes one record: its id, and whether it is the generation's.
	owns func(p registry.Persona, kv store.KV) (string, bool, error)
}

// tenure reports whether t falls while p held its seat: a record a persona
// principal (its seat's address) made is its generation's when it was
// made during that generation's time.
func tenure(p registry.Persona, t time.Time) bool {
	return !t.Before(p.CreatedAt) && (p.RetiredAt == nil || !t.After(*p.RetiredAt))
}

// ownedBooks are the books a snapshot lists the generation's records of:
// the tasks assigned to it or by it, the runs, artifacts and decisions its
// seat made during its tenure, and the messages waiting in its seat's inbox
// sent during it.
var ownedBooks = []ownedBook{
	{snapshot.RecordTask, board.PrefixRecord, func(p registry.Persona, kv store.KV) (string, bool, error) {
		var t struct {
			ID       string `json:"id"`
			Assignee struct {
				ID string `json:"id"`
			} `json:"assignee"`
			By struct {
				ID string `json:"id"`
			} `json:"assigned_by"`
		}
		err := strictjson.DecodeOpen(kv.Value, &t)
		return t.ID, t.Assignee.ID == p.ID || t.By.ID == p.ID, err
	}},
	{snapshot.RecordRun, journal.PrefixRun, func(p registry.Persona, kv store.KV) (string, bool, error) {
		var r struct {
			ID        string            `json:"id"`
			CreatedBy confirm.Principal `json:"created_by"`
			Created   time.Time         `json:"created"`
		}
		err := strictjson.DecodeOpen(kv.Value, &r)
		return r.ID, r.CreatedBy == confirm.PersonaPrincipal(p.Address) && tenure(p, r.Created), err
	}},
	{snapshot.RecordArtifact, journal.PrefixArtifact, func(p registry.Persona, kv store.KV) (string, bool, error) {
		var a struct {
			By   confirm.Principal `json:"by"`
			Time time.Time         `json:"time"`
		}
		err := strictjson.DecodeOpen(kv.Value, &a)
		return strings.TrimPrefix(kv.Key, journal.PrefixArtifact), a.By == confirm.PersonaPrincipal(p.Address) && tenure(p, a.Time), err
	}},
	{snapshot.RecordDecision, ledger.PrefixItem, func(p registry.Persona, kv store.KV) (string, bool, error) {
		var d struct {
			ID       string            `json:"id"`
			RaisedBy confirm.Principal `json:"raised_by"`
			Raised   time.Time         `json:"raised"`
		}
		err := strictjson.DecodeOpen(kv.Value, &d)
		return d.ID, d.RaisedBy == confirm.PersonaPrincipal(p.Address) && tenure(p, d.Raised), err
	}},
}

// ownedRecords lists the id and digest of every record p owns.
func (u *Cases) ownedRecords(ctx context.Context, p registry.Persona) ([]snapshot.Record, error) {
	var out []snapshot.Record
	add := func(kind string, kv store.KV, id string) {
		out = append(out, snapshot.Record{Kind: kind, ID: id, SHA256: snapshot.RecordDigest(kv.Value)})
	}
	for _, b := range ownedBooks {
		err := store.Walk(ctx, u.st, b.prefix, snapshotPage, func(kvs []store.KV) error {
			for _, kv := range kvs {
				id, mine, err := b.owns(p, kv)
				if err != nil {
					return fmt.Errorf("%s %s: %w: %v", b.kind, kv.Key, store.ErrCorrupt, err)
				}
				if mine {
					add(b.kind, kv, id)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	err := store.Walk(ctx, u.st, switchboard.PrefixInbox+p.Address+"/#", snapshotPage, func(kvs []store.KV) error {
		for _, kv := range kvs {
			var m coord.Message
			if err := strictjson.DecodeOpen(kv.Value, &m); err != nil {
				return fmt.Errorf("message %s: %w: %v", kv.Key, store.ErrCorrupt, err)
			}
			if tenure(p, m.SentAt) {
				add(snapshot.RecordMessage, kv, m.ID)
			}
		}
		return nil
	})
	return out, err
}

// keepRetired writes the snapshot of the retired generation id into the
// home (snapshot.Keep), right after the transaction that retired it: a file
// is no part of a store transaction, and before the commit the generation
// is not yet retired. A retired record never changes again, so what is
// kept is the generation as it left; a snapshot that could not be written
// is logged, and `persona snapshot` makes it from the store at any time.
func (u *Cases) keepRetired(ctx context.Context, id string) {
	err := func() error {
		c, err := u.Snapshot(ctx, id)
		if err != nil {
			return err
		}
		if c.Persona.State != registry.StateRetired {
			return nil
		}
		key, err := snapshot.InstallationKey(u.home.Dir)
		if err != nil {
			return err
		}
		b, err := snapshot.Encode(c, key)
		if err != nil {
			return err
		}
		_, err = snapshot.Keep(u.home.Dir, c.Persona, b)
		return err
	}()
	if err != nil {
		u.log.Error("could not keep the snapshot of a retired generation; write it with persona snapshot", "persona", id, "err", err)
	}
}
