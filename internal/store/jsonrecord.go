package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// GetJSON reads the JSON record under key into v and returns its ModRev,
// or 0 for an absent key (which is also the condition "still absent"). A
// record that is not JSON of v's type (strictjson: a name twice, invalid
// UTF-8, trailing data) is ErrCorrupt, naming the key. A member v has no
// field for is skipped: hubs of two builds may share one store through an
// upgrade, and the newer one's record must not read as damage to the older.
func GetJSON(ctx context.Context, s Store, key string, v any) (int64, error) {
	kv, err := s.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", key, err)
	}
	if err := strictjson.DecodeOpen(kv.Value, v); err != nil {
		return 0, fmt.Errorf("read %s: %w: %v", key, ErrCorrupt, err)
	}
	return kv.ModRev, nil
}

// PutJSON is the write of v as JSON under key. Encoding fails only for a
// value JSON cannot hold (a time outside years 0–9999, which a broken
// clock could produce).
func PutJSON(key string, v any) (Op, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return Op{}, fmt.Errorf("encode %s: %w", key, err)
	}
	return Put(key, raw), nil
}

// AppendField is the JSON object obj (as encoding/json writes one, ending in
// '}' and not empty) with one more member, name, whose value is raw: JSON
// already encoded — a stored record spliced into another as it is rather
// than decoded and encoded again.
func AppendField(obj []byte, name string, raw []byte) []byte {
	out := make([]byte, 0, len(obj)+len(name)+len(raw)+4)
	out = append(append(out, obj[:len(obj)-1]...), `,"`...)
	out = append(append(append(out, name...), `":`...), raw...)
	return append(out, '}')
}
