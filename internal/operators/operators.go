// Package operators holds the enrolment record of an installation's humans
// as a value, with its named errors and pure rules (operators/roll stores
// it): one record per operator, holding the SHA-256 of their token
// (never the token), their Unix-user binding and where they were enrolled.
// The token itself stays a 0600 file in the enrolling home (hubapi); the
// record is what lets every hub of the installation, on any host,
// authenticate the operator, and what ends their access on every hub when
// they are removed.
package operators

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"iter"
)

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
	// ErrBadRecord: an enrolment record that is not what operators/roll writes.
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
