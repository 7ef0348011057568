// Package operatorkeys owns the SSH public keys of the enrolled humans: how
// a key is read from an authorized_keys line, how it is stored (one record
// per key, by its SHA-256 fingerprint, in the installation's store) and the
// rule that makes a key a human's identity on the SSH console: a key is
// listed for at most one human, so the key alone says who is there.
package operatorkeys

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// Prefix is the store prefix of the key records: Prefix + fingerprint.
const Prefix = "operator-key/"

// MaxKeys bounds the keys read from one --ssh-key argument or file, and
// MaxComment a key's comment, so an enrolment cannot grow the store or a
// listing without end.
const (
	MaxKeys    = 16
	MaxComment = 256
)

// Named errors of operator keys.
var (
	// ErrBadKey: text that is not an SSH public key (an authorized_keys line).
	ErrBadKey = errors.New("not an SSH public key")
	// ErrKeyTaken: a key already listed for another human; one key names
	// one human.
	ErrKeyTaken = errors.New("SSH key is already listed for another human")
	// ErrUnknownKey: a key listed for nobody.
	ErrUnknownKey = errors.New("SSH key is not listed for any enrolled human")
	// ErrNoKeys: an enrolment of keys that holds none.
	ErrNoKeys = errors.New("no SSH public key given")
)

// Key is one human's public key as stored.
type Key struct {
	// Human is the principal the key names, "human:<name>".
	Human string `json:"human"`
	// Fingerprint is the key's SHA-256 fingerprint, "SHA256:…", as ssh-keygen -l prints it.
	Fingerprint string `json:"fingerprint"`
	// Authorized is the key in authorized_keys form, without its comment.
	Authorized string `json:"key"`
	// Comment is the comment the key came with (checked clean), if any.
	Comment string `json:"comment,omitempty"`
}

// Fingerprint is the SHA-256 fingerprint of k, as ssh-keygen -l prints it
// and as the audit log records it.
func Fingerprint(k ssh.PublicKey) string { return ssh.FingerprintSHA256(k) }

// Parse reads public keys in authorized_keys form, one a line; blank lines
// and # comments are skipped. Options before a key are refused: a console
// key is a key, nothing more. Every bad line is refused, naming its number.
func Parse(text string) ([]Key, error) {
	var out []Key
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 64<<10)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pk, comment, options, rest, err := ssh.ParseAuthorizedKey([]byte(line))
		switch {
		case err != nil:
			return nil, fmt.Errorf("line %d: %w (want \"ssh-ed25519 AAAA… comment\", as in ~/.ssh/id_ed25519.pub)", n, ErrBadKey)
		case len(options) > 0:
			return nil, fmt.Errorf("line %d: %w: options (%s) are not taken; give the key alone", n, ErrBadKey, termtext.Clean(strings.Join(options, ",")))
		case len(rest) > 0:
			return nil, fmt.Errorf("line %d: %w: one key a line", n, ErrBadKey)
		case len(comment) > MaxComment:
			return nil, fmt.Errorf("line %d: %w: the comment is over %d bytes", n, ErrBadKey, MaxComment)
		case termtext.Check(comment, false) != nil:
			return nil, fmt.Errorf("line %d: %w: the comment holds a control, bidi or invisible character", n, ErrBadKey)
		}
		if len(out) == MaxKeys {
			return nil, fmt.Errorf("%w: more than %d keys at once", ErrBadKey, MaxKeys)
		}
		out = append(out, Key{
			Fingerprint: Fingerprint(pk),
			Authorized:  strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))),
			Comment:     comment,
		})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadKey, err)
	}
	if len(out) == 0 {
		return nil, ErrNoKeys
	}
	return out, nil
}

func recordKey(fingerprint string) string { return Prefix + fingerprint }

// PlanAdd plans listing keys for human in one transaction: each key's
// record is written on the condition that it is still absent, so of two
// enrolments racing for one key exactly one commits. A key already listed
// for human is left as it is (enrolling again is harmless); one listed for
// another human refuses the whole plan with ErrKeyTaken, naming both.
func PlanAdd(ctx context.Context, st store.Store, human string, keys []Key) (store.Plan, error) {
	if len(keys) == 0 {
		return store.Plan{}, ErrNoKeys
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
			return store.Plan{}, fmt.Errorf("%s: %w (%s); one key names one human: give %s a key of their own", k.Fingerprint, ErrKeyTaken, old.Human, human)
		case !errors.Is(err, ErrUnknownKey):
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
func Owner(ctx context.Context, st store.Store, pk ssh.PublicKey) (Key, error) {
	k, err := get(ctx, st, Fingerprint(pk))
	if err != nil {
		return Key{}, err
	}
	if k.Authorized != strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))) {
		return Key{}, fmt.Errorf("%s: %w", Fingerprint(pk), ErrUnknownKey)
	}
	return k, nil
}

// List returns the keys listed for human, or every key when human is "".
func List(ctx context.Context, st store.Store, human string) ([]Key, error) {
	kvs, err := st.List(ctx, Prefix)
	if err != nil {
		return nil, fmt.Errorf("read SSH keys: %w", err)
	}
	var out []Key
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

func get(ctx context.Context, st store.Store, fingerprint string) (Key, error) {
	kv, err := st.Get(ctx, recordKey(fingerprint))
	if errors.Is(err, store.ErrNotFound) {
		return Key{}, fmt.Errorf("%s: %w", fingerprint, ErrUnknownKey)
	}
	if err != nil {
		return Key{}, fmt.Errorf("read SSH key %s: %w", fingerprint, err)
	}
	return decode(kv)
}

func decode(kv store.KV) (Key, error) {
	var k Key
	if err := json.Unmarshal(kv.Value, &k); err != nil {
		return Key{}, fmt.Errorf("SSH key record %s: %w", kv.Key, err)
	}
	return k, nil
}
