package usecase

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// Idempotent writes. A client names each mutating request with a key of its
// own choosing (the Idempotency-Key header) and sends the same key when it
// retries. The use case stores key → result in its one transaction, so a
// request either took effect and its result is recorded, or neither; a
// repeat within the window answers with the recorded result and changes
// nothing — even when the first answer was lost to a dropped connection or
// a hub killed between its commit and its reply.
const (
	// IdempotencyWindow is how long a result is kept for its key. A
	// client's retries end long before (its retry budget is seconds).
	IdempotencyWindow = 24 * time.Hour
	// MaxIdempotencyRecords bounds the results kept by default
	// (Config.IdempotencyLimit): beyond it the sweep drops the oldest
	// first, however young.
	MaxIdempotencyRecords = 100_000
	// idempotencyPrefix + the client's key + "/" + digest of caller and
	// key → idempotencyRecord (Key.storeKey).
	idempotencyPrefix = "idempotency/"
)

// Named errors of idempotency keys.
var (
	// ErrBadIdempotencyKey: a key that is empty, too long or not plain text.
	ErrBadIdempotencyKey = errors.New("invalid Idempotency-Key: use 1 to 128 letters, digits, '.', '_', ':' or '-'")
	// ErrIdempotencyKeyReused: a key sent again with a different request.
	ErrIdempotencyKeyReused = errors.New("Idempotency-Key already used for a different request; choose a new key per request")
)

// plainKey reports whether key is 1 to 128 of the characters
// ErrBadIdempotencyKey names (a loop, not a regular expression: it runs on
// every write).
func plainKey(key string) bool {
	if len(key) == 0 || len(key) > 128 {
		return false
	}
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// Key names one mutating request for idempotency. The zero Key records
// nothing (a client that sent no key gets no replay).
type Key struct {
	// Caller is who sent it, as the transport authenticated them: one
	// caller never sees another's result.
	Caller string
	// Key is the client's Idempotency-Key.
	Key string
	// Request is a digest of what was asked (route and body), so a key
	// reused for another request is refused rather than answered wrongly.
	Request string
}

// NewKey checks a client's key and names the request: caller, the key, and
// the request's parts (method, path, body) as digested.
func NewKey(caller, key string, request ...[]byte) (Key, error) {
	if key == "" {
		return Key{}, nil
	}
	if !plainKey(key) {
		return Key{}, fmt.Errorf("%q: %w", key, ErrBadIdempotencyKey)
	}
	h := sha256.New()
	for _, part := range request {
		h.Write(part)
		h.Write([]byte{0})
	}
	return Key{Caller: caller, Key: key, Request: hex.EncodeToString(h.Sum(nil))}, nil
}

// storeKey is where k's result is recorded: the client's key, then a
// digest of caller and key (two callers' equal keys stay apart). Leading
// with the client's key matters for the commit: the hub client makes its
// keys in time order (hubclient), so the records of concurrent requests
// append at the right edge of the store's B+tree and a group commit's
// requests share its leaf pages; under a digest alone each record dirtied
// a random leaf and its branch page.
func (k Key) storeKey() string { return idempotencyPrefix + k.Key + "/" + k.digest() }

func (k Key) digest() string {
	sum := sha256.Sum256([]byte(k.Caller + "\x00" + k.Key))
	return hex.EncodeToString(sum[:16])
}

// lookup reads k's record.
func (u *Cases) lookup(ctx context.Context, k Key) (store.KV, error) {
	return u.st.Get(ctx, k.storeKey())
}

// idempotencyRecord is one stored result: the result itself, or the key of
// the record that is the result (recordRef).
type idempotencyRecord struct {
	Request string          `json:"request"`
	At      time.Time       `json:"at"`
	Result  json.RawMessage `json:"result,omitempty"`
	Ref     string          `json:"ref,omitempty"`
}

// replayed answers a repeated request from its record: ok when k names a
// request already carried out (its result decoded into out),
// ErrIdempotencyKeyReused when k was used for another request.
func (u *Cases) replayed(ctx context.Context, k Key, out any) (bool, error) {
	if k == (Key{}) {
		return false, nil
	}
	kv, err := u.lookup(ctx, k)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the result of Idempotency-Key %s: %w", k.Key, err)
	}
	var rec idempotencyRecord
	if err := strictjson.DecodeOpen(kv.Value, &rec); err != nil {
		return false, fmt.Errorf("read the result of Idempotency-Key %s: %w: %v", k.Key, store.ErrCorrupt, err)
	}
	if rec.Request != k.Request {
		return false, fmt.Errorf("%s: %w", k.Key, ErrIdempotencyKeyReused)
	}
	result := rec.Result
	if rec.Ref != "" {
		ref, err := u.st.Get(ctx, rec.Ref)
		if err != nil {
			return false, fmt.Errorf("read the result of Idempotency-Key %s (%s): %w", k.Key, rec.Ref, err)
		}
		result = ref.Value
	}
	if err := strictjson.DecodeOpen(result, out); err != nil {
		return false, fmt.Errorf("read the result of Idempotency-Key %s: %w: %v", k.Key, store.ErrCorrupt, err)
	}
	return true, nil
}

// record plans storing result under k, guarded on k being unused: of two
// concurrent requests with one key exactly one commits, and the other,
// planning again, is answered from the record.
func (u *Cases) record(k Key, result any) (store.Plan, error) {
	if k == (Key{}) {
		return store.Plan{}, nil
	}
	return u.recordAs(k, resultRecord{Request: k.Request, At: u.now().UTC(), Result: result})
}

// recordEncoded plans storing under k a result the caller has already
// encoded as JSON (the answer it sends), spliced into the record as is:
// as a json.RawMessage it would be scanned and compacted again.
func (u *Cases) recordEncoded(k Key, result []byte) (store.Plan, error) {
	if k == (Key{}) {
		return store.Plan{}, nil
	}
	head, err := json.Marshal(recordHead{Request: k.Request, At: u.now().UTC()})
	if err != nil {
		return store.Plan{}, fmt.Errorf("record the result of Idempotency-Key %s: %w", k.Key, err)
	}
	rec := store.AppendField(head, "result", result)
	sk := k.storeKey()
	return store.Plan{Conds: []store.Cond{{Key: sk}}, Ops: []store.Op{store.Put(sk, rec)}}, nil
}

// recordHead is the part of an idempotencyRecord before its result.
type recordHead struct {
	Request string    `json:"request"`
	At      time.Time `json:"at"`
}

// resultRecord is an idempotencyRecord as record writes it: the result is
// encoded in the record's own pass (as a json.RawMessage it would be
// encoded, then scanned and compacted again: a few per cent of a
// confirmation request's CPU).
type resultRecord struct {
	Request string    `json:"request"`
	At      time.Time `json:"at"`
	Result  any       `json:"result"`
}

// recordRef plans recording under k that the result is the record at key,
// which the same transaction writes as the result's JSON. Only for a record
// that is never written again (a decided confirmation is terminal): a
// repeat answers what is stored there, so it must still be the original
// result. It keeps a large result from being stored twice, and its small
// record shares its page with its neighbours.
func (u *Cases) recordRef(k Key, key string) (store.Plan, error) {
	if k == (Key{}) {
		return store.Plan{}, nil
	}
	return u.recordAs(k, idempotencyRecord{Request: k.Request, At: u.now().UTC(), Ref: key})
}

func (u *Cases) recordAs(k Key, r any) (store.Plan, error) {
	rec, err := json.Marshal(r)
	if err != nil {
		return store.Plan{}, fmt.Errorf("record the result of Idempotency-Key %s: %w", k.Key, err)
	}
	sk := k.storeKey()
	return store.Plan{Conds: []store.Cond{{Key: sk}}, Ops: []store.Op{store.Put(sk, rec)}}, nil
}

// SweepIdempotency drops the results older than IdempotencyWindow and,
// past the bound (Config.IdempotencyLimit), the oldest, in as few
// transactions as the store's limits allow (each deletion stands alone),
// and returns how many it dropped.
func (u *Cases) SweepIdempotency(ctx context.Context) (int, error) {
	kvs, err := u.st.List(ctx, idempotencyPrefix)
	if err != nil {
		return 0, fmt.Errorf("sweep idempotency records: %w", err)
	}
	type aged struct {
		key string
		at  time.Time
	}
	recs := make([]aged, 0, len(kvs))
	for _, kv := range kvs {
		var rec idempotencyRecord
		// An unreadable record is dropped as if it were the oldest.
		_ = strictjson.DecodeOpen(kv.Value, &rec)
		recs = append(recs, aged{kv.Key, rec.At})
	}
	slices.SortFunc(recs, func(a, b aged) int { return cmp.Compare(a.at.UnixNano(), b.at.UnixNano()) })
	cutoff := u.now().Add(-IdempotencyWindow)
	var ops []store.Op
	for i, r := range recs {
		if !r.at.Before(cutoff) && len(recs)-i <= u.idemLimit {
			break
		}
		ops = append(ops, store.Op{Key: r.key, Delete: true})
	}
	if len(ops) > 0 {
		if _, err := store.WriteAll(ctx, u.st, ops); err != nil {
			return 0, fmt.Errorf("sweep %d idempotency records: %w", len(ops), err)
		}
	}
	return len(ops), nil
}
