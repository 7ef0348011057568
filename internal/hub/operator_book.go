package hub

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/operators"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// The operator half of the token book follows the enrolment records of the
// store (internal/operators): loaded at the hub's start, then every record
// as it arrives on the hub's store watch, and this hub's own writes at once.
// A token file of this home is the secret on the operator's host; what the
// hubs accept is the hash its record holds.

// loadEnrolments reads every enrolment record into the book.
func (t *Tokens) loadEnrolments(ctx context.Context) error {
	all, err := operators.List(ctx, t.st)
	if err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	for _, e := range all {
		t.learn(e)
	}
	return nil
}

// learn takes an enrolment record as the store holds it at e.ModRev (one
// older than what the book has is ignored: the watch may bring this hub's
// own write after it was learnt), and drops this home's token file of an
// operator removed through another hub.
func (t *Tokens) learn(e operators.Enrolment) {
	t.mu.Lock()
	if cur, ok := t.records[e.Name]; ok && cur.ModRev >= e.ModRev {
		t.mu.Unlock()
		return
	}
	t.records[e.Name] = e
	t.rebuildOperators()
	t.mu.Unlock()
	if e.Removed && e.From(t.host, t.home) {
		t.dropStaleFile(e)
	}
}

// followEnrolment learns a record from the store watch.
func (t *Tokens) followEnrolment(ev store.Event) {
	if ev.Delete {
		return // records are marked removed, never deleted
	}
	e, err := operators.Decode(ev.Key, ev.Value, ev.Rev)
	if err != nil {
		t.log.Error("an enrolment record cannot be read; the operator's token is refused", "err", err)
		return
	}
	t.learn(e)
}

// rebuildOperators makes the operators map the active enrolments; t.mu is
// held.
func (t *Tokens) rebuildOperators() {
	ops := make(map[tokenHash]operatorEntry, len(t.records))
	for _, e := range t.records {
		h, ok := parseTokenHash([]byte(e.TokenSHA256))
		if !ok || !e.Active() {
			continue
		}
		ops[h] = operatorEntry{id: hubapi.Identity{Kind: hubapi.PrincipalHuman, Principal: e.Principal()}, uid: e.UID, host: e.Host}
	}
	t.operators = ops
}

// enrolmentOf is the book's record of operator name (ModRev 0: none).
func (t *Tokens) enrolmentOf(name string) operators.Enrolment {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.records[name]
}

// reconcile brings the store's enrolment records in line with the token
// files found in this home (by name): a file with no record (where this
// home enrols: enrolsHere), or with the record of a removed operator and
// another token, is recorded as enrolled here; a file rewritten by hand rotates the record it made; an active
// record of this home whose file is gone is marked removed. A file of an
// operator enrolled elsewhere under another token is not an enrolment (it
// is logged and left alone), and the file of a removed operator is
// dropped. It reports false when a record moved under one of its writes
// (another hub wrote it): the next scan reconciles again.
func (t *Tokens) reconcile(found map[string]hubapi.Operator) bool {
	ctx := context.Background() // each store call is bounded by the store
	clean := true
	for name, o := range found {
		rec := t.enrolmentOf(name)
		hash := operators.HashToken(o.Token)
		mine := operators.Enrolment{Name: name, TokenSHA256: hash, UID: o.UID, Host: t.host, Home: t.home, ModRev: rec.ModRev}
		switch {
		case rec.ModRev == 0 && !t.enrolsHere():
			t.log.Warn("a token file in this home is not an enrolment: the installation has operators and none was enrolled through this home; an enrolled operator enrols this human through a hub (operator add)",
				"operator", "human:"+name, "file", hubapi.OperatorTokenPath(t.home, name))
			continue
		case rec.ModRev == 0:
		case rec.TokenSHA256 == hash && rec.Removed:
			t.dropStaleFile(rec)
			continue
		case rec.TokenSHA256 == hash && (rec.UID == o.UID || !rec.From(t.host, t.home)):
			continue
		case rec.From(t.host, t.home) || rec.Removed:
		default:
			t.log.Warn("a token file in this home is not the operator's enrolment: they are enrolled on another host with another token",
				"operator", rec.Principal(), "enrolled_on", rec.Host, "file", hubapi.OperatorTokenPath(t.home, name))
			continue
		}
		clean = t.write(ctx, mine) && clean
	}
	t.mu.RLock()
	var gone []operators.Enrolment
	for name, rec := range t.records {
		if _, ok := found[name]; !ok && rec.Active() && rec.From(t.host, t.home) {
			rec.Removed = true
			gone = append(gone, rec)
		}
	}
	t.mu.RUnlock()
	for _, rec := range gone {
		clean = t.write(ctx, rec) && clean
	}
	return clean
}

// enrolsHere reports whether a new token file in this home may be recorded
// as an enrolment (operators.EnrolsByFile over the book's records).
func (t *Tokens) enrolsHere() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return operators.EnrolsByFile(maps.Values(t.records), t.host, t.home)
}

// write records e over the record as read (e.ModRev) and learns it; a
// record that moved is read again and learnt instead (false).
func (t *Tokens) write(ctx context.Context, e operators.Enrolment) bool {
	plan, err := operators.PlanPut(e)
	if err == nil {
		var rev int64
		if rev, err = plan.Commit(ctx, t.st); err == nil {
			e.ModRev = rev
			t.learn(e)
			return true
		}
	}
	if errors.Is(err, store.ErrConflict) {
		if cur, gerr := operators.Get(ctx, t.st, e.Name); gerr == nil {
			t.learn(cur)
		}
		return false
	}
	t.log.Error("the enrolment of a token file in this home could not be recorded; the next scan tries again", "operator", e.Principal(), "err", err)
	return false
}

// dropStaleFile removes this home's token file of removed operator e, if
// it still holds the token e was removed with (a file written since is a
// new enrolment, and left).
func (t *Tokens) dropStaleFile(e operators.Enrolment) {
	path := hubapi.OperatorTokenPath(t.home, e.Name)
	o, err := hubapi.ReadOperator(path)
	if err != nil || operators.HashToken(o.Token) != e.TokenSHA256 {
		return
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.log.Warn("the token file of a removed operator could not be removed; their token is refused all the same", "operator", e.Principal(), "err", err)
		return
	}
	t.log.Info("removed the token file of an operator removed through another hub", "operator", e.Principal())
}
