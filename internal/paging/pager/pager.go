// Package pager reads one page of a list out of the store: the store side
// of internal/paging, whose page form, tokens and limits it applies.
package pager

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Read reads one page of the list under prefix from st, continuing after
// token, at most limit records (paging.Limit's rules). decode turns a record into
// an item, or skips it (keep false): a skipped record still moves the
// page on, so a page may hold fewer items than the limit and still have a
// next.
func Read[T any](ctx context.Context, st store.Store, prefix, token string, limit int, decode func(store.KV) (item T, keep bool, err error)) (paging.Page[T], error) {
	after, err := paging.After(prefix, token)
	if err != nil {
		return paging.Page[T]{}, err
	}
	if limit, err = paging.Limit(limit); err != nil {
		return paging.Page[T]{}, err
	}
	kvs, more, err := st.Range(ctx, prefix, after, limit)
	if err != nil {
		return paging.Page[T]{}, err
	}
	page := paging.Page[T]{Items: make([]T, 0, len(kvs))}
	for _, kv := range kvs {
		item, keep, err := decode(kv)
		if err != nil {
			return paging.Page[T]{}, err
		}
		if keep {
			page.Items = append(page.Items, item)
		}
	}
	if more {
		page.Next = paging.Token(prefix, kvs[len(kvs)-1].Key)
	}
	return page, nil
}
