package hub

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/operators"
	"github.com/virgo-hub/virgo-tui/internal/operators/roll"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// The operator half of the token book follows the enrolment records of the
// store (internal/operators): loaded at the hub's start, then every record
// as it arrives on the hub's store watch, and this hub's own writes at once.
// A token file of this home is the secret on the operator's host; what the
// hubs accept is the hash its record holds.

// loadEnrolments reads every enrolment record into the book.
func (t *Tokens) loadEnrolments(ctx context.Context) error {
	all, err := roll.List(ctx, t.st)
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
	e, err := roll.Decode(ev.Key, ev.Value, ev.Rev)
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
		if !ok || !e.Active() || e.SSHOnly {
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
// another token, is recorded as enrolled here; a file rewritten by hand
// rotates the record it made; an active record of this home whose file is
// gone is marked removed. A file of an operator enrolled elsewhere under
// another token is not an enrolment (it is logged and left alone), and the
// file of a removed operator is dropped. A record another hub wrote
// meanwhile is read again and the file judged against it (settle). It
// reports false when a write failed otherwise (the store did not answer):
// the hub's tick scans again (retryEnrolments), no request does.
func (t *Tokens) reconcile(found map[string]hubapi.Operator) bool {
	ctx := context.Background() // each store call is bounded by the store
	var unrecorded []string
	var failure error
	note := func(name string, err error) {
		if err != nil {
			unrecorded, failure = append(unrecorded, "human:"+name), err
		}
	}
	for name, o := range found {
		note(name, t.settle(ctx, name, func(rec operators.Enrolment) (operators.Enrolment, bool) {
			return t.fileEnrolment(name, o, rec)
		}))
	}
	t.mu.RLock()
	var gone []string
	for name, rec := range t.records {
		if _, ok := found[name]; !ok && rec.Active() && !rec.SSHOnly && rec.From(t.host, t.home) {
			gone = append(gone, name)
		}
	}
	t.mu.RUnlock()
	for _, name := range gone {
		note(name, t.settle(ctx, name, func(rec operators.Enrolment) (operators.Enrolment, bool) {
			write := rec.Active() && rec.From(t.host, t.home)
			rec.Removed = true
			return rec, write
		}))
	}
	if failure != nil {
		t.recording.failed(failure, "operators", unrecorded)
		return false
	}
	t.recording.succeeded()
	return true
}

// fileEnrolment is the record that this home's token file o of operator
// name makes of rec, the record as the book has it, and whether it must be
// written.
func (t *Tokens) fileEnrolment(name string, o hubapi.Operator, rec operators.Enrolment) (operators.Enrolment, bool) {
	hash := operators.HashToken(o.Token)
	mine := operators.Enrolment{Name: name, TokenSHA256: hash, UID: o.UID, Host: t.host, Home: t.home, ModRev: rec.ModRev}
	switch {
	case rec.Active() && rec.SSHOnly:
		t.log.Warn("a token file in this home names an operator enrolled for the SSH console only, who has no token: it is not their enrolment, and is refused",
			"operator", rec.Principal(), "file", hubapi.OperatorTokenPath(t.home, name))
		return mine, false
	case rec.ModRev == 0 && !t.enrolsHere():
		t.log.Warn("a token file in this home is not an enrolment: the installation has operators and none was enrolled through this home; an enrolled operator enrols this human through a hub (operator add)",
			"operator", "human:"+name, "file", hubapi.OperatorTokenPath(t.home, name))
		return mine, false
	case rec.ModRev == 0:
	case rec.TokenSHA256 == hash && rec.Removed:
		t.dropStaleFile(rec)
		return mine, false
	case rec.TokenSHA256 == hash && (rec.UID == o.UID || !rec.From(t.host, t.home)):
		return mine, false
	case rec.From(t.host, t.home) || rec.Removed:
	default:
		t.log.Warn("a token file in this home is not the operator's enrolment: they are enrolled on another host with another token",
			"operator", rec.Principal(), "enrolled_on", rec.Host, "file", hubapi.OperatorTokenPath(t.home, name))
		return mine, false
	}
	return mine, true
}

// enrolsHere reports whether a new token file in this home may be recorded
// as an enrolment (operators.EnrolsByFile over the book's records).
func (t *Tokens) enrolsHere() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return operators.EnrolsByFile(maps.Values(t.records), t.host, t.home)
}

// maxEnrolmentTries bounds how often one scan writes a record that other
// hubs keep moving under it.
const maxEnrolmentTries = 4

// settle writes the record that want makes of operator name's record as
// the book has it, over that record (its ModRev), and learns it. When
// another hub wrote the record first (a conflict) it reads the record
// again and asks want anew. It returns the error when the record could not
// be written: the store did not answer, or the record kept moving.
func (t *Tokens) settle(ctx context.Context, name string, want func(operators.Enrolment) (operators.Enrolment, bool)) error {
	var err error
	for range maxEnrolmentTries {
		e, write := want(t.enrolmentOf(name))
		if !write {
			return nil
		}
		var plan store.Plan
		var rev int64
		if plan, err = roll.PlanPut(e); err == nil {
			rev, err = plan.Commit(ctx, t.st)
		}
		if err == nil {
			e.ModRev = rev
			t.learn(e)
			return nil
		}
		if !errors.Is(err, store.ErrConflict) {
			break
		}
		cur, gerr := roll.Get(ctx, t.st, name)
		if gerr != nil {
			err = gerr
			break
		}
		t.learn(cur)
	}
	return err
}

// retryEnrolments scans the operators directory again when the last scan
// could not record an enrolment. The hub's tick calls it, so no request
// waits on a store that did not answer.
func (t *Tokens) retryEnrolments() {
	t.scanMu.Lock()
	defer t.scanMu.Unlock()
	if !t.seen.retry {
		return
	}
	if err := t.loadOperators(); err != nil {
		t.log.Error("the operators directory could not be read again", "err", err)
	}
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
