// Package keyring is the stored book of the enrolled humans' SSH public
// keys (internal/operatorkeys holds the key as a value): one record per
// key, by its SHA-256 fingerprint, in the installation's store, each
// written on the condition that it is absent, so a key is listed for at
// most one human and the key alone says who is there.
package keyring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// Prefix is the store prefix of the key records: Prefix + fingerprint.
const Prefix = "operator-key/"

func recordKey(fingerprint string) string { return Prefix + fingerprint }

// PlanAdd plans listing keys for human in one transaction: each key's
// record is written on the condition that it is still absent, so of two
// enrolments racing for one key exactly one commits. A key already listed
// for human is left as it is (enrolling again is harmless); one listed for
// another human refuses the whole plan with ErrKeyTaken, naming both.
func PlanAdd(ctx context.Context, st store.Store, human string, keys []operatorkeys.Key) (store.Plan, error) {
	if len(keys) == 0 {
		return store.Plan{}, operatorkeys.ErrNoKeys
	}
	var p store.Plan
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k.Fingerprint] {
			continue
		}
		seen[k.Fingerprint] = true
		old, err := get(ctx, st, k.Fingerprint)
		switch {
		case err == nil && old.Human == human:
			continue
		case err == nil:
			return store.Plan{}, fmt.Errorf("%s: %w (%s); one key names one human: give %s a key of their own", k.Fingerprint, operatorkeys.ErrKeyTaken, old.Human, human)
		case !errors.Is(err, operatorkeys.ErrUnknownKey):
			return store.Plan{}, err
		}
		k.Human = human
		b, err := json.Marshal(k)
		if err != nil {
			return store.Plan{}, err
		}
		p.Conds = append(p.Conds, store.Cond{Key: recordKey(k.Fingerprint), ModRev: 0})
		p.Ops = append(p.Ops, store.Put(recordKey(k.Fingerprint), b))
	}
	return p, nil
}

// PlanRemoveAll plans removing every key listed for human, each on the
// condition that it is unchanged.
func PlanRemoveAll(ctx context.Context, st store.Store, human string) (store.Plan, error) {
	kvs, err := st.List(ctx, Prefix)
	if err != nil {
		return store.Plan{}, fmt.Errorf("read SSH keys: %w", err)
	}
	var p store.Plan
	for _, kv := range kvs {
		k, err := decode(kv)
		if err != nil {
			return store.Plan{}, err
		}
		if k.Human == human {
			p.Conds = append(p.Conds, store.Cond{Key: kv.Key, ModRev: kv.ModRev})
			p.Ops = append(p.Ops, store.Op{Key: kv.Key, Delete: true})
		}
	}
	return p, nil
}

// Owner is the stored record of public key pk: who it names. A key listed
// for nobody is ErrUnknownKey. The record is compared with pk whole, not
// only by fingerprint.
func Owner(ctx context.Context, st store.Store, pk ssh.PublicKey) (operatorkeys.Key, error) {
	k, err := get(ctx, st, operatorkeys.Fingerprint(pk))
	if err != nil {
		return operatorkeys.Key{}, err
	}
	if k.Authorized != strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))) {
		return operatorkeys.Key{}, fmt.Errorf("%s: %w", operatorkeys.Fingerprint(pk), operatorkeys.ErrUnknownKey)
	}
	return k, nil
}

// List returns the keys listed for human, or every key when human is "".
func List(ctx context.Context, st store.Store, human string) ([]operatorkeys.Key, error) {
	kvs, err := st.List(ctx, Prefix)
	if err != nil {
		return nil, fmt.Errorf("read SSH keys: %w", err)
	}
	var out []operatorkeys.Key
	for _, kv := range kvs {
		k, err := decode(kv)
		if err != nil {
			return nil, err
		}
		if human == "" || k.Human == human {
			out = append(out, k)
		}
	}
	return out, nil
}

func get(ctx context.Context, st store.Store, fingerprint string) (operatorkeys.Key, error) {
	kv, err := st.Get(ctx, recordKey(fingerprint))
	if errors.Is(err, store.ErrNotFound) {
		return operatorkeys.Key{}, fmt.Errorf("%s: %w", fingerprint, operatorkeys.ErrUnknownKey)
	}
	if err != nil {
		return operatorkeys.Key{}, fmt.Errorf("read SSH key %s: %w", fingerprint, err)
	}
	return decode(kv)
}

func decode(kv store.KV) (operatorkeys.Key, error) {
	var k operatorkeys.Key
	if err := strictjson.DecodeOpen(kv.Value, &k); err != nil {
		return operatorkeys.Key{}, fmt.Errorf("SSH key record %s: %w", kv.Key, err)
	}
	return k, nil
}
