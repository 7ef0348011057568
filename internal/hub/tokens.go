package hub

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/operators"
	"github.com/virgo-hub/virgo-tui/internal/private"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

type tokenHash [sha256.Size]byte

func hashToken(tok string) tokenHash { return sha256.Sum256([]byte(tok)) }

// Tokens maps token hashes to identities. Only hashes are kept in memory, so
// a heap dump or a log of the map shows no token; lookups index by the hash
// and confirm it with a constant-time comparison.
//
// Operators are the enrolment records of the installation's store
// (internal/operators): every hub, on any host, accepts an operator
// enrolled through any other, and a removal ends their access on all of
// them, as each hub's book follows the records on its store watch (learn).
// The token files in this hub's home are the operators enrolled here: a
// scan of the directory brings the store in line with them (reconcile) — a
// new file is recorded (a home from before the records, a first install),
// a file deleted or rewritten by hand removes or rotates its enrolment.
type Tokens struct {
	opDir string
	st    store.Store
	// host and home name where this hub runs: the records it follows
	// files for, and the host whose Unix users an operator's uid names.
	host, home string
	log        *slog.Logger
	// recording reports enrolments that could not be recorded, once per
	// outage.
	recording *retryLog

	mu      sync.RWMutex
	byHash  map[tokenHash]hubapi.Identity // persona tokens
	persona map[string]tokenHash          // generation id -> hash, to revoke
	// retired are the tokens of retired generations, answered
	// registry.ErrRetired rather than as unknown: one hash per retired
	// generation, so it holds no more entries than the registry holds
	// generations (as presence does), and never grows on a caller's say.
	retired   map[tokenHash]hubapi.Identity
	operators map[tokenHash]operatorEntry    // the active enrolments, rebuilt from records
	records   map[string]operators.Enrolment // every enrolment record, by name, as last seen
	sessions  map[tokenHash]hubapi.Identity  // SSH console sessions (sessions.go)

	scanMu sync.Mutex
	seen   opDirStamp // what the last scan of opDir saw
	scans  int        // scans of opDir so far; tests count them
}

// NewTokens returns an empty token book over the enrolment records of st,
// following the token files of home's operators directory, for a hub on
// host.
func NewTokens(st store.Store, home, host string, log *slog.Logger) *Tokens {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Tokens{
		opDir:     filepath.Join(home, "operators"),
		st:        st,
		host:      host,
		home:      home,
		log:       log,
		recording: newRetryLog(log, "recording the enrolment of this home's token files"),
		byHash:    make(map[tokenHash]hubapi.Identity),
		persona:   make(map[string]tokenHash),
		retired:   make(map[tokenHash]hubapi.Identity),
		operators: make(map[tokenHash]operatorEntry),
		records:   make(map[string]operators.Enrolment),
		sessions:  make(map[tokenHash]hubapi.Identity),
	}
}

// operatorEntry is an enrolled operator as their record says.
type operatorEntry struct {
	id hubapi.Identity
	// uid is the Unix user the operator is bound to, or hubapi.NoUID, on
	// host.
	uid  int
	host string
}

// Authenticate returns the identity of a bearer token presented on a
// connection from Unix user peerUID (hubapi.NoUID when unknown). Operator
// tokens are the enrolment records as this hub last saw them, with this
// home's token files as they are now: one created, deleted or rotated while
// the hub runs is honoured on the next request. Telling that costs a stat
// of the directory and of each token file; the directory is read again only
// when one of them changed. An operator bound to a uid is refused on a
// connection from any other user, and on every host but the one they were
// enrolled on (a uid names a user of one host only).
func (t *Tokens) Authenticate(tok string, peerUID int) (hubapi.Identity, error) {
	if !strings.HasPrefix(tok, hubapi.TokenPrefix) {
		return hubapi.Identity{}, hubapi.ErrUnauthenticated
	}
	h := hashToken(tok)
	if id, ok := t.lookup(h); ok {
		return id, nil
	}
	if id, ok := t.retiredAs(h); ok {
		return hubapi.Identity{}, &retiredToken{id: id}
	}
	if err := t.refreshOperators(); err != nil {
		return hubapi.Identity{}, err
	}
	t.mu.RLock()
	op, ok := t.operators[h]
	session, isSession := t.sessions[h]
	t.mu.RUnlock()
	if isSession {
		return t.sessionIdentity(session)
	}
	if !ok {
		return hubapi.Identity{}, hubapi.ErrUnauthenticated
	}
	if op.uid != hubapi.NoUID && op.host != t.host {
		return hubapi.Identity{}, fmt.Errorf("%w: %s is bound to uid %d on host %q and this hub runs on %q; a uid names a user of one host only, so enrol them unbound or use the hub of that host (docs/security.md)",
			hubapi.ErrWrongUser, op.id.Principal, op.uid, op.host, t.host)
	}
	if op.uid != hubapi.NoUID && op.uid != peerUID {
		return hubapi.Identity{}, fmt.Errorf("%w: %s is bound to uid %d and this connection comes from uid %d (docs/security.md)",
			hubapi.ErrWrongUser, op.id.Principal, op.uid, peerUID)
	}
	return op.id, nil
}

func (t *Tokens) lookup(h tokenHash) (hubapi.Identity, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	id, ok := t.byHash[h]
	if !ok {
		return hubapi.Identity{}, false
	}
	// The map found the entry by h; comparing the stored persona hash in
	// constant time keeps a revoked-and-reissued slot from matching an old token.
	if id.Kind == hubapi.PrincipalPersona {
		cur := t.persona[id.PersonaID]
		if subtle.ConstantTimeCompare(cur[:], h[:]) != 1 {
			return hubapi.Identity{}, false
		}
	}
	return id, true
}

// accept makes h the one token hash of generation id (at address),
// replacing the one it had.
func (t *Tokens) accept(id, address string, h tokenHash) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, ok := t.persona[id]; ok && old != h {
		delete(t.byHash, old)
	}
	t.persona[id] = h
	t.byHash[h] = hubapi.Identity{Kind: hubapi.PrincipalPersona, Principal: address, PersonaID: id}
}

// holds reports whether generation id has an accepted token.
func (t *Tokens) holds(id string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	_, ok := t.persona[id]
	return ok
}

// Retire makes a retired generation's token stop working at once, and
// keeps its hash so that the token is answered as retired (retiredToken),
// not as one the hub never issued.
func (t *Tokens) Retire(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h, ok := t.persona[id]; ok {
		t.retired[h] = t.byHash[h]
		delete(t.byHash, h)
		delete(t.persona, id)
	}
}

// retire records h as the token of generation id (at address), retired:
// the hub's start learns the retired generations' recorded hashes so.
func (t *Tokens) retire(id, address string, h tokenHash) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.retired[h] = hubapi.Identity{Kind: hubapi.PrincipalPersona, Principal: address, PersonaID: id}
}

// retiredAs is the retired generation whose token hashes to h.
func (t *Tokens) retiredAs(h tokenHash) (hubapi.Identity, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	id, ok := t.retired[h]
	return id, ok
}

// retiredToken is Authenticate's refusal of a retired generation's token;
// it names the generation, so that the hub can tell its caller when and
// why it was retired (Hub.retiredError).
type retiredToken struct{ id hubapi.Identity }

func (e *retiredToken) Error() string { return e.id.Principal + ": " + registry.ErrRetired.Error() }

func (e *retiredToken) Unwrap() error { return registry.ErrRetired }

// Revoke makes a generation's token stop working at once, as unknown: a
// generation refused by its stamp check (a retired one is Retire's).
func (t *Tokens) Revoke(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h, ok := t.persona[id]; ok {
		delete(t.byHash, h)
		delete(t.persona, id)
	}
}

// fileStamp is what a stat tells of a file: enough to see it changed.
type fileStamp struct {
	mod  time.Time
	size int64
}

func stampOf(fi os.FileInfo) fileStamp { return fileStamp{mod: fi.ModTime(), size: fi.Size()} }

func (a fileStamp) same(b fileStamp) bool { return a.mod.Equal(b.mod) && a.size == b.size }

// opDirStamp is what a scan of the operators directory saw.
type opDirStamp struct {
	scanned bool
	exists  bool
	dir     fileStamp
	files   map[string]fileStamp // token file path -> stamp
	// racy: something changed so close to the scan that a later change could
	// carry the same modification time; the next check scans again.
	racy bool
	// retry: an enrolment the scan found could not be recorded (the store
	// did not answer); the hub's tick scans again (retryEnrolments).
	retry bool
}

// racyWindow is how close to a scan a modification time makes the scan
// untrustworthy: more than the coarsest timestamp granularity of common
// file systems (2 s on FAT, 1 s on ext3), so a rewrite in the same tick as
// the scan is not missed.
const racyWindow = 2 * time.Second

// refreshOperators rescans the operators directory if it, or a token file
// in it, changed since the last scan.
func (t *Tokens) refreshOperators() error {
	t.scanMu.Lock()
	defer t.scanMu.Unlock()
	if t.seen.scanned && !t.seen.racy && t.unchanged() {
		return nil
	}
	return t.loadOperators()
}

// unchanged reports whether a stat of the directory and of each token file
// the last scan read finds them as they were.
func (t *Tokens) unchanged() bool {
	fi, err := os.Stat(t.opDir)
	if err != nil {
		return !t.seen.exists && errors.Is(err, os.ErrNotExist)
	}
	if !t.seen.exists || !stampOf(fi).same(t.seen.dir) {
		return false
	}
	for path, st := range t.seen.files {
		fi, err := os.Stat(path)
		if err != nil || !stampOf(fi).same(st) {
			return false
		}
	}
	return true
}

// loadOperators reads every <name>.token in the operators directory and
// brings the enrolment records in line with what it found (reconcile), so
// a token whose file is gone or holds another token stops working.
func (t *Tokens) loadOperators() error {
	t.scans++
	start := time.Now()
	seen := opDirStamp{scanned: true, files: make(map[string]fileStamp)}
	found := make(map[string]hubapi.Operator)
	dfi, err := os.Stat(t.opDir)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read operator tokens: %w", err)
	default:
		seen.exists, seen.dir = true, stampOf(dfi)
		if err := private.CheckDir(t.opDir); err != nil {
			return fmt.Errorf("read operator tokens: %w", err)
		}
		ents, err := os.ReadDir(t.opDir)
		if err != nil {
			return fmt.Errorf("read operator tokens: %w", err)
		}
		for _, e := range ents {
			name, ok := strings.CutSuffix(e.Name(), ".token")
			if !ok || !hubapi.ValidOperatorName(name) {
				continue
			}
			path := filepath.Join(t.opDir, e.Name())
			fi, err := os.Lstat(path)
			if err != nil {
				continue // removed since the directory was read
			}
			seen.files[path] = stampOf(fi)
			o, err := hubapi.ReadOperator(path)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				// A planted link, another user's file or a loose mode is
				// refused loudly, never taken as an operator.
				return fmt.Errorf("read operator tokens: %w", err)
			}
			found[name] = o
		}
	}
	recent := start.Add(-racyWindow)
	seen.racy = seen.dir.mod.After(recent)
	for _, st := range seen.files {
		seen.racy = seen.racy || st.mod.After(recent)
	}
	seen.retry = !t.reconcile(found)
	t.seen = seen
	return nil
}
