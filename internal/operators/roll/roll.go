// Package roll is the stored roll of an installation's operators: one
// enrolment record per human (internal/operators holds the record's
// value), read, decoded and changed by planned compare-and-swap, so of two
// hubs writing one operator's record exactly one commits.
package roll

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/operators"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// Prefix is the store prefix of the enrolment records: Prefix + name
// (without "human:").
const Prefix = "operator/"

// Key is the store key of operator name's record.
func Key(name string) string { return Prefix + strings.TrimPrefix(name, "human:") }

// Get reads operator name's record; one never written has ModRev 0.
func Get(ctx context.Context, st store.Store, name string) (operators.Enrolment, error) {
	var e operators.Enrolment
	rev, err := store.GetJSON(ctx, st, Key(name), &e)
	if err != nil {
		return operators.Enrolment{}, fmt.Errorf("enrolment of human:%s: %w", strings.TrimPrefix(name, "human:"), err)
	}
	e.ModRev = rev
	return e, nil
}

// List reads every record, the removed included.
func List(ctx context.Context, st store.Store) ([]operators.Enrolment, error) {
	kvs, err := st.List(ctx, Prefix)
	if err != nil {
		return nil, fmt.Errorf("read enrolments: %w", err)
	}
	out := make([]operators.Enrolment, 0, len(kvs))
	for _, kv := range kvs {
		e, err := Decode(kv.Key, kv.Value, kv.ModRev)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Decode reads the record stored under key at revision rev.
func Decode(key string, value []byte, rev int64) (operators.Enrolment, error) {
	var e operators.Enrolment
	if err := strictjson.DecodeOpen(value, &e); err != nil || Key(e.Name) != key || !tokenHashOK(e) {
		return operators.Enrolment{}, fmt.Errorf("%s: %w", key, operators.ErrBadRecord)
	}
	e.ModRev = rev
	return e, nil
}

// tokenHashOK reports whether e's token hash is of the form it must have:
// a hex SHA-256, or none for an operator enrolled for SSH only.
func tokenHashOK(e operators.Enrolment) bool {
	if e.SSHOnly {
		return e.TokenSHA256 == ""
	}
	return len(e.TokenSHA256) == hex.EncodedLen(sha256.Size)
}

// PlanPut plans writing e over the record as it was read (e.ModRev; 0:
// still absent), so of two hubs writing one operator's record exactly one
// commits.
func PlanPut(e operators.Enrolment) (store.Plan, error) {
	op, err := store.PutJSON(Key(e.Name), e)
	if err != nil {
		return store.Plan{}, err
	}
	return store.Plan{Conds: []store.Cond{{Key: Key(e.Name), ModRev: e.ModRev}}, Ops: []store.Op{op}}, nil
}

// PlanEnrol plans enrolling e (its Name, TokenSHA256, UID, Host, Home) over
// what the store holds now: refused with ErrAlreadyEnrolled when the
// operator is enrolled with another token; the same enrolment again plans
// nothing.
func PlanEnrol(ctx context.Context, st store.Store, e operators.Enrolment) (store.Plan, error) {
	cur, err := Get(ctx, st, e.Name)
	if err != nil {
		return store.Plan{}, err
	}
	if cur.Active() {
		if cur.TokenSHA256 == e.TokenSHA256 {
			return store.Plan{}, nil
		}
		return store.Plan{}, fmt.Errorf("%s (enrolled on %s): %w", cur.Principal(), cur.Host, operators.ErrAlreadyEnrolled)
	}
	e.Removed, e.ModRev = false, cur.ModRev
	return PlanPut(e)
}

// PlanRemove plans removing operator name: their record is marked removed.
// The last enrolled operator is not removed (ErrLastOperator): the plan is
// conditioned on every enrolled operator's record as read, so two removals
// racing cannot leave nobody.
func PlanRemove(ctx context.Context, st store.Store, name string) (operators.Enrolment, store.Plan, error) {
	all, err := List(ctx, st)
	if err != nil {
		return operators.Enrolment{}, store.Plan{}, err
	}
	var cur operators.Enrolment
	var p store.Plan
	for _, e := range all {
		if e.Active() {
			p.Conds = append(p.Conds, store.Cond{Key: Key(e.Name), ModRev: e.ModRev})
			if e.Name == name {
				cur = e
			}
		}
	}
	switch {
	case !cur.Active():
		return operators.Enrolment{}, store.Plan{}, fmt.Errorf("human:%s: %w", name, operators.ErrNotEnrolled)
	case len(p.Conds) == 1:
		return operators.Enrolment{}, store.Plan{}, fmt.Errorf("human:%s: %w; enrol another first", name, operators.ErrLastOperator)
	}
	gone := cur
	gone.Removed = true
	op, err := store.PutJSON(Key(name), gone)
	if err != nil {
		return operators.Enrolment{}, store.Plan{}, err
	}
	p.Ops = append(p.Ops, op)
	return cur, p, nil
}
