// Package operators owns the enrolment records of an installation's humans:
// one record per operator in the store, holding the SHA-256 of their token
// (never the token), their Unix-user binding and where they were enrolled.
// The token itself stays a 0600 file in the enrolling home (hubapi); the
// record is what lets every hub of the installation, on any host,
// authenticate the operator, and what ends their access on every hub when
// they are removed.
package operators

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Prefix is the store prefix of the enrolment records: Prefix + name
// (without "human:").
const Prefix = "operator/"

// NoUID is an operator bound to no Unix user.
const NoUID = -1

// Named errors of enrolment.
var (
	// ErrNotEnrolled: a human with no enrolment (or a removed one).
	ErrNotEnrolled = errors.New("not an enrolled operator")
	// ErrAlreadyEnrolled: enrolment of a human who is enrolled.
	ErrAlreadyEnrolled = errors.New("operator already enrolled")
	// ErrLastOperator: removing the only enrolled operator would leave nobody
	// to decide, and make the home a first install again.
	ErrLastOperator = errors.New("the last enrolled operator cannot be removed")
	// ErrBadRecord: an enrolment record that is not what this package writes.
	ErrBadRecord = errors.New("enrolment record damaged")
	// ErrNotFirstInstall: a home that may not enrol by writing a token file
	// (see EnrolsByFile) was asked to take itself for a first install.
	ErrNotFirstInstall = errors.New("not a first install: the installation already has enrolled operators, and a token file written in this home would enrol nobody")
)

// Enrolment is one operator's record. A removed operator keeps a record
// (Removed, with the hash it had), so a hub finding the old token file in
// its home knows the file is stale and not an enrolment to adopt.
type Enrolment struct {
	// Name is the operator's name, without "human:".
	Name string `json:"name"`
	// TokenSHA256 is the hex SHA-256 of the operator's token; empty for an
	// operator enrolled for SSH only.
	TokenSHA256 string `json:"token_sha256"`
	// UID, when not NoUID, is the Unix user on Host that every connection
	// acting as this operator must come from (a uid names a user of one
	// host only).
	UID int `json:"uid"`
	// Host is the host name of the hub that enrolled the operator.
	Host string `json:"host"`
	// Home is the home, on Host, whose operators directory holds the token
	// file: that home's hub follows the file (a file deleted or rewritten
	// there removes or rotates the enrolment).
	Home string `json:"home"`
	// Removed marks an operator removed through a hub.
	Removed bool `json:"removed,omitempty"`
	// SSHOnly marks an operator enrolled for the SSH console alone: they
	// have no token, so no file in any home acts as them — nothing running
	// on the server can use the socket in their name — and a token file
	// found under their name is never taken for their enrolment.
	SSHOnly bool `json:"ssh_only,omitempty"`

	// ModRev is the record's revision as read (not stored).
	ModRev int64 `json:"-"`
}

// Principal is the operator's principal, "human:<name>".
func (e Enrolment) Principal() string { return "human:" + e.Name }

// Active reports whether e enrols its operator now.
func (e Enrolment) Active() bool { return e.ModRev != 0 && !e.Removed }

// From reports whether e's token file is in home on host.
func (e Enrolment) From(host, home string) bool { return e.Host == host && e.Home == home }

// EnrolsByFile reports whether a new token file in home on host is recorded
// as an enrolment, given every record of the installation: while it has no
// enrolled operator yet (a first install, or a store from before the
// records), or where home has enrolled one by token file before (an
// operator enrolled for SSH only has none). A fresh home on another
// host enrols nobody by writing a file: its operators are enrolled through
// a hub, by an enrolled operator. The hub's token book and the command
// that writes a first install's file both ask this, so they cannot differ.
func EnrolsByFile(all iter.Seq[Enrolment], host, home string) bool {
	active := false
	for e := range all {
		if e.From(host, home) && !e.SSHOnly {
			return true
		}
		active = active || e.Active()
	}
	return !active
}

// HashToken is the hex SHA-256 of a token, as an enrolment records it.
func HashToken(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

// Key is the store key of operator name's record.
func Key(name string) string { return Prefix + strings.TrimPrefix(name, "human:") }

// Get reads operator name's record; one never written has ModRev 0.
func Get(ctx context.Context, st store.Store, name string) (Enrolment, error) {
	var e Enrolment
	rev, err := store.GetJSON(ctx, st, Key(name), &e)
	if err != nil {
		return Enrolment{}, fmt.Errorf("enrolment of human:%s: %w", strings.TrimPrefix(name, "human:"), err)
	}
	e.ModRev = rev
	return e, nil
}

// List reads every record, the removed included.
func List(ctx context.Context, st store.Store) ([]Enrolment, error) {
	kvs, err := st.List(ctx, Prefix)
	if err != nil {
		return nil, fmt.Errorf("read enrolments: %w", err)
	}
	out := make([]Enrolment, 0, len(kvs))
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
func Decode(key string, value []byte, rev int64) (Enrolment, error) {
	var e Enrolment
	if err := json.Unmarshal(value, &e); err != nil || Key(e.Name) != key || !e.tokenHashOK() {
		return Enrolment{}, fmt.Errorf("%s: %w", key, ErrBadRecord)
	}
	e.ModRev = rev
	return e, nil
}

// tokenHashOK reports whether e's token hash is of the form it must have:
// a hex SHA-256, or none for an operator enrolled for SSH only.
func (e Enrolment) tokenHashOK() bool {
	if e.SSHOnly {
		return e.TokenSHA256 == ""
	}
	return len(e.TokenSHA256) == hex.EncodedLen(sha256.Size)
}

// PlanPut plans writing e over the record as it was read (e.ModRev; 0:
// still absent), so of two hubs writing one operator's record exactly one
// commits.
func PlanPut(e Enrolment) (store.Plan, error) {
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
func PlanEnrol(ctx context.Context, st store.Store, e Enrolment) (store.Plan, error) {
	cur, err := Get(ctx, st, e.Name)
	if err != nil {
		return store.Plan{}, err
	}
	if cur.Active() {
		if cur.TokenSHA256 == e.TokenSHA256 {
			return store.Plan{}, nil
		}
		return store.Plan{}, fmt.Errorf("%s (enrolled on %s): %w", cur.Principal(), cur.Host, ErrAlreadyEnrolled)
	}
	e.Removed, e.ModRev = false, cur.ModRev
	return PlanPut(e)
}

// PlanRemove plans removing operator name: their record is marked removed.
// The last enrolled operator is not removed (ErrLastOperator): the plan is
// conditioned on every enrolled operator's record as read, so two removals
// racing cannot leave nobody.
func PlanRemove(ctx context.Context, st store.Store, name string) (Enrolment, store.Plan, error) {
	all, err := List(ctx, st)
	if err != nil {
		return Enrolment{}, store.Plan{}, err
	}
	var cur Enrolment
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
		return Enrolment{}, store.Plan{}, fmt.Errorf("human:%s: %w", name, ErrNotEnrolled)
	case len(p.Conds) == 1:
		return Enrolment{}, store.Plan{}, fmt.Errorf("human:%s: %w; enrol another first", name, ErrLastOperator)
	}
	gone := cur
	gone.Removed = true
	op, err := store.PutJSON(Key(name), gone)
	if err != nil {
		return Enrolment{}, store.Plan{}, err
	}
	p.Ops = append(p.Ops, op)
	return cur, p, nil
}
