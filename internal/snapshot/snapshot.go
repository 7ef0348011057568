// Package snapshot is the file a persona generation travels in: its record,
// its capability stamp, its experience layer (every learned choice with its
// key and who decided it), the class-overlay entries learned for it, its
// session lineage, and the ids and digests of the records it owns — never a
// token, a secret or an operator's material.
//
// The file is a tar archive with fixed metadata (USTAR, mode 0644, owner 0,
// time 0) whose members come in one fixed order: a manifest of the members'
// sha256 digests, the manifest's ed25519 signature by the installation's
// snapshot key, then the members. Every member is canonical (the encoder's
// own bytes), so the same state gives the same file, byte for byte, and a
// reader re-encodes what it read and refuses any byte that differs — a
// flipped bit in a header, in tar padding or after the end is refused like
// one in a member. docs/snapshots.md says why tar and not one JSON document.
//
// The package is pure: it encodes, signs and verifies bytes. What goes in
// (read from a store) and what a restore writes are the use cases'.
package snapshot

import (
	"errors"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/harness"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// Format names the file kind in its manifest; Version is the newest format
// this virgo-tui writes and reads. A file of a newer version is refused
// (ErrNewerFormat), never read as far as it happens to parse.
const (
	Format  = "virgo-snapshot"
	Version = 1
)

// MaxBytes bounds a snapshot file: what is read before anything is parsed,
// and what a snapshot may grow to when it is made (10,000 owned records
// and 1,000 learned choices take about 1.5 MiB).
const MaxBytes = 32 << 20

// The members of a snapshot, in the order the file holds them.
const (
	MemberManifest     = "manifest.json"
	MemberSignature    = "manifest.sig"
	MemberPersona      = "persona.json"
	MemberStamp        = "CAPABILITY-STAMP.json"
	MemberExperience   = "experience.json"
	MemberClassOverlay = "class-overlay.json"
	MemberSession      = "session.json"
	MemberRecords      = "records.json"
)

// members is every member's name in file order; the manifest lists the
// digests of those after the signature, in this order.
var members = []string{MemberManifest, MemberSignature, MemberPersona, MemberStamp,
	MemberExperience, MemberClassOverlay, MemberSession, MemberRecords}

// signed is the members the manifest carries digests of.
var signed = members[2:]

// Named errors of reading a snapshot; each names what is wrong.
var (
	// ErrTooLarge: a file, or a snapshot being made, over MaxBytes.
	ErrTooLarge = errors.New("snapshot is over the size limit")
	// ErrTruncated: the file ends before the snapshot does.
	ErrTruncated = errors.New("snapshot file is truncated")
	// ErrMalformed: the file is not laid out as this format writes it.
	ErrMalformed = errors.New("snapshot file is malformed")
	// ErrNotSnapshot: the manifest names another kind of file.
	ErrNotSnapshot = errors.New("not a virgo snapshot")
	// ErrNewerFormat: written by a newer virgo-tui; nothing of it is read.
	ErrNewerFormat = errors.New("snapshot format is newer than this virgo-tui reads")
	// ErrBadSignature: the manifest's signature does not verify under the
	// key the manifest names.
	ErrBadSignature = errors.New("snapshot signature does not verify")
	// ErrUntrustedSigner: the manifest is signed by a key this
	// installation does not trust.
	ErrUntrustedSigner = errors.New("snapshot is signed by a key this installation does not trust")
	// ErrDigestMismatch: a member's bytes differ from the manifest's digest.
	ErrDigestMismatch = errors.New("snapshot member differs from its signed digest")
	// ErrBadMember: a member that verifies but holds what no snapshot may.
	ErrBadMember = errors.New("snapshot member is not valid")
)

// Contents is what a snapshot carries, decoded.
type Contents struct {
	// Persona is the generation's registry record.
	Persona registry.Persona
	// Stamp is the capability stamp's bytes, as the stamp file holds them;
	// Persona.StampHash is their hash.
	Stamp []byte
	// Experience is the persona's experience layer: every choice learned
	// for its seat, under any stamp hash, in id order.
	Experience []confirm.Choice
	// ClassOverlay is the class-overlay choices learned for the persona,
	// in id order.
	ClassOverlay []confirm.Choice
	// Session is the generation's session lineage.
	Session Session
	// Records are the records the generation owns, by kind and id.
	Records []Record
}

// Session is the harness session a generation resumes: the lineage the
// registry records for it, kept across resume and migration, and the
// harness's session id derived from it — the reference of the harness's
// own transcript, which stays with the harness on its host.
type Session struct {
	Lineage string `json:"lineage"`
	// HarnessSessionID is harness.SessionID(Lineage): a session started
	// or resumed anywhere under the lineage is this one.
	HarnessSessionID string `json:"harness_session_id"`
}

// SessionOf is the session of a generation with lineage.
func SessionOf(lineage string) Session {
	return Session{Lineage: lineage, HarnessSessionID: harness.SessionID(lineage)}
}

// The kinds of owned record a snapshot lists.
const (
	RecordTask     = "task"
	RecordRun      = "run"
	RecordArtifact = "artifact"
	RecordDecision = "decision"
	RecordMessage  = "message"
)

// Record names one record a generation owns and the sha256 of its stored
// bytes: the snapshot proves what the generation had without carrying what
// others wrote into it.
type Record struct {
	Kind   string `json:"kind"`
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
}

// Manifest is the signed part of a snapshot: which generation it is, who
// signed it, and the size and digest of every other member.
type Manifest struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Signer is the installation's public snapshot key, in
	// authorized_keys form ("ssh-ed25519 AAAA…").
	Signer  string   `json:"signer"`
	Persona Subject  `json:"persona"`
	Members []Digest `json:"members"`
}

// Subject names the generation a snapshot is of.
type Subject struct {
	ID         string `json:"id"`
	Address    string `json:"address"`
	Name       string `json:"name"`
	Generation int    `json:"generation"`
	StampHash  string `json:"stamp_hash"`
}

// Digest is one member's size and sha256 ("sha256:" and hex).
type Digest struct {
	Name   string `json:"name"`
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
}

// subjectOf names p.
func subjectOf(p registry.Persona) Subject {
	return Subject{ID: p.ID, Address: p.Address, Name: p.Name, Generation: p.Generation, StampHash: p.StampHash}
}
