package confirm

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// digest is a short stable hash of parts joined by NUL (no part can
// contain NUL: targets refuse it, the rest are ids and shapes).
func digest(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// Fingerprint identifies "the same operation asked again": requester, stamp
// hash, handler action, normalized target, shape and bound arguments (an
// operation without arguments keeps the fingerprint it had before they
// were bound).
func Fingerprint(requester Principal, hash string, op Operation) string {
	if len(op.Arguments) == 0 {
		return digest(requester.String(), hash, op.HandlerAction, op.Target.String(), string(op.Shape))
	}
	return digest(requester.String(), hash, op.HandlerAction, op.Target.String(), string(op.Shape), op.argumentsKey())
}
