// Package paging is the one page form of every list the hub answers:
// {items, next}, where next is an opaque continuation token. A list is a
// store prefix read a page at a time (paging/pager reads it); the token
// names the last key served, relative to the prefix, so a client can only
// continue the list it was given: a token is read back under the list's
// own prefix, and a store range never leaves its prefix. The package holds
// the page's values and rules only, so the wire contract can name a page
// without reaching the store.
package paging

import (
	"encoding/base64"
	"errors"
	"fmt"
)

// The bounds of a page.
const (
	// DefaultLimit is a page's size when the client names none.
	DefaultLimit = 50
	// MaxLimit is the largest page a client may ask for.
	MaxLimit = 500
	// MaxToken bounds a continuation token's length.
	MaxToken = 512
)

// Named errors of a page request.
var (
	// ErrBadToken: a continuation token that is not one this list gave.
	ErrBadToken = errors.New("invalid page token: pass back the \"next\" of the previous page of the same list, unchanged")
	// ErrBadLimit: a page size out of range.
	ErrBadLimit = errors.New("invalid page size: ask for 1 to 500 items")
)

// Page is one page of a list. Next is empty on the last page; otherwise
// it is the token that continues the list.
type Page[T any] struct {
	Items []T    `json:"items"`
	Next  string `json:"next,omitempty"`
}

// encoding is the token's alphabet: URL-safe, no padding, so a token is
// one word in a query string or a JSON argument.
var encoding = base64.RawURLEncoding

// Token is the continuation after key in the list of prefix.
func Token(prefix, key string) string {
	return encoding.EncodeToString([]byte(key[len(prefix):]))
}

// After reads a token of the list of prefix back into the store key the
// next page starts after; "" reads as the start of the list. A token
// that is too long, not in the token alphabet, or names anything but a
// printable key suffix is ErrBadToken.
func After(prefix, token string) (string, error) {
	if token == "" {
		return "", nil
	}
	if len(token) > MaxToken {
		return "", fmt.Errorf("%w (%d characters, at most %d)", ErrBadToken, len(token), MaxToken)
	}
	suffix, err := encoding.DecodeString(token)
	if err != nil || len(suffix) == 0 {
		return "", ErrBadToken
	}
	for _, c := range suffix {
		if c < 0x20 || c >= 0x7f {
			return "", ErrBadToken
		}
	}
	return prefix + string(suffix), nil
}

// Limit reads a client's page size: 0 is DefaultLimit; below 0 or above
// MaxLimit is ErrBadLimit.
func Limit(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultLimit, nil
	case n < 0 || n > MaxLimit:
		return 0, fmt.Errorf("%w (asked %d)", ErrBadLimit, n)
	}
	return n, nil
}
