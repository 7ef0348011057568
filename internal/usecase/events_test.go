package usecase

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/events"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
)

// storeEvents reads every write committed to in's store so far, as the
// hub's watch does.
func storeEvents(t *testing.T, in *installation) []store.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	head, err := in.st.Rev(ctx)
	mustNil(t, err)
	ch, err := in.st.Watch(ctx, "", 0)
	mustNil(t, err)
	var out []store.Event
	for ev := range ch {
		out = append(out, ev)
		if ev.Rev >= head && ev.Last {
			return out
		}
	}
	t.Fatalf("the watch ended before revision %d", head)
	return nil
}

// The writes of real use cases become typed events — a
// persona event carries a registry.Persona, a confirmation event a
// confirm.Confirmation, an audit event a confirm.AuditEntry, a task event
// the tasks.Task assigned, each named by its own id, never by a store key —
// and the records that are no event (seats, names, indexes, idempotency
// records) make none.
func TestUseCaseWritesBecomeTypedEvents(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	lead := activeLead(t, in)
	deputy, err := in.cases.Register(ctx, Key{Caller: "human:henry", Key: "k-1", Request: "r"}, Registration{Registration: registry.Registration{Address: "work/core/deputy", Name: "Zaniah", Human: "human:henry"}})
	mustNil(t, err)
	_, err = in.cases.Decide(ctx, Key{}, henry, deputy.Confirmation.ID, true, confirm.RememberNone, "")
	mustNil(t, err)
	_, err = in.cases.Assign(ctx, Key{}, Caller{Principal: confirm.PersonaPrincipal(lead.Address), PersonaID: lead.ID}, "work/core/deputy", "work/core/t-1")
	mustNil(t, err)

	seen := map[events.EventKind]int{}
	for _, sev := range storeEvents(t, in) {
		ev, ok, err := EventOf(sev)
		mustNil(t, err)
		if !ok {
			for _, kept := range []string{roster.PrefixPersona, queue.PrefixConfirmation, queue.PrefixAudit, board.PrefixRecord} {
				if strings.HasPrefix(sev.Key, kept) {
					t.Errorf("%s made no event", sev.Key)
				}
			}
			continue
		}
		if strings.Contains(ev.ID, "/") && ev.Kind != events.EventTask && ev.Kind != events.EventAudit {
			t.Errorf("%s event named %q: an id within its kind, not a store key", ev.Kind, ev.ID)
		}
		p, err := ev.Payload()
		mustNil(t, err)
		seen[ev.Kind]++
		switch v := p.(type) {
		case registry.Persona:
			if ev.Kind != events.EventPersona || v.ID != ev.ID {
				t.Errorf("%s event %s carries persona %s", ev.Kind, ev.ID, v.ID)
			}
		case confirm.Confirmation:
			if ev.Kind != events.EventConfirmation || v.ID != ev.ID {
				t.Errorf("%s event %s carries confirmation %s", ev.Kind, ev.ID, v.ID)
			}
			// The event carries the activation's diff as text, as the
			// registration answered it.
			if v.ID == deputy.Confirmation.ID && (v.Detail != deputy.Confirmation.Detail || !strings.Contains(string(ev.Data), `"detail":"`)) {
				t.Errorf("the activation's event carries the detail %q in %s; want %q", v.Detail, ev.Data, deputy.Confirmation.Detail)
			}
		case confirm.AuditEntry:
			if ev.Kind != events.EventAudit || v.Event == "" {
				t.Errorf("%s event %s carries audit entry %+v", ev.Kind, ev.ID, v)
			}
		case tasks.Task:
			if ev.Kind != events.EventTask || v.ID != ev.ID || v.Assignee.ID != deputy.Persona.ID {
				t.Errorf("%s event %s carries task %+v", ev.Kind, ev.ID, v)
			}
		default:
			t.Errorf("%s event %s carries a %T", ev.Kind, ev.ID, p)
		}
	}
	for _, k := range []events.EventKind{events.EventPersona, events.EventConfirmation, events.EventAudit, events.EventTask} {
		if seen[k] == 0 {
			t.Errorf("no %s event from the use cases' writes (saw %v)", k, seen)
		}
	}
}

// A removal carries no payload; a record that is not JSON is refused by
// name; a kind the table does not have (a newer hub's) is a named error a
// reader can skip.
func TestEventEdges(t *testing.T) {
	ev, ok, err := EventOf(store.Event{Key: board.PrefixRecord + "t-1", Delete: true, Rev: 9})
	if !ok || err != nil || !ev.Removed || ev.Data != nil || ev.ID != "t-1" || ev.Kind != events.EventTask {
		t.Fatalf("a removed task: %+v %v %v", ev, ok, err)
	}
	if p, err := ev.Payload(); p != nil || err != nil {
		t.Fatalf("a removal's payload: %v %v", p, err)
	}
	if _, _, err := EventOf(store.Event{Key: roster.PrefixPersona + "p-1", Value: []byte("{torn"), Rev: 3}); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("a damaged record: %v, want ErrCorrupt", err)
	}
	if _, err := events.DecodePayload("weather", []byte(`{}`)); !errors.Is(err, events.ErrUnknownEvent) {
		t.Fatalf("an unknown kind: %v, want events.ErrUnknownEvent", err)
	}
	pr, err := events.NewEvent(events.EventPresence, "p-1", events.Presence{ID: "p-1", State: "idle", Waiting: 2})
	mustNil(t, err)
	if p, err := pr.Payload(); err != nil || p != (events.Presence{ID: "p-1", State: "idle", Waiting: 2}) {
		t.Fatalf("a presence event reads back as %#v %v", p, err)
	}
}
