// Package paging is the one page form of every list the hub answers:
// {items, next}, where next is an opaque continuation token. A list is a
// store prefix read a page at a time (store.Store.Range); the token names
// the last key served, relative to the prefix, so a client can only
// continue the list it was given: a token is read back under the list's
// own prefix, and a store range never leaves its prefix.
package paging

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/store"
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

// Read reads one page of the list under prefix from st, continuing after
// token, at most limit records (Limit's rules). decode turns a record into
// an item, or skips it (keep false): a skipped record still moves the
// page on, so a page may hold fewer items than the limit and still have a
// next.
func Read[T any](ctx context.Context, st store.Store, prefix, token string, limit int, decode func(store.KV) (item T, keep bool, err error)) (Page[T], error) {
	after, err := After(prefix, token)
	if err != nil {
		return Page[T]{}, err
	}
	if limit, err = Limit(limit); err != nil {
		return Page[T]{}, err
	}
	kvs, more, err := st.Range(ctx, prefix, after, limit)
	if err != nil {
		return Page[T]{}, err
	}
	page := Page[T]{Items: make([]T, 0, len(kvs))}
	for _, kv := range kvs {
		item, keep, err := decode(kv)
		if err != nil {
			return Page[T]{}, err
		}
		if keep {
			page.Items = append(page.Items, item)
		}
	}
	if more {
		page.Next = Token(prefix, kvs[len(kvs)-1].Key)
	}
	return page, nil
}
