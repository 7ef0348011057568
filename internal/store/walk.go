package store

import "context"

// Walk hands every key of s with the prefix to page, one page of at most
// pageSize keys at a time, in key order: a reader of a whole prefix holds
// one page, and pays one read per page, not one per key. Pages are read at
// different revisions (Range's rules). It stops at the first error.
func Walk(ctx context.Context, s Store, prefix string, pageSize int, page func([]KV) error) error {
	after := ""
	for {
		kvs, more, err := s.Range(ctx, prefix, after, pageSize)
		if err != nil {
			return err
		}
		if len(kvs) > 0 {
			if err := page(kvs); err != nil {
				return err
			}
			after = kvs[len(kvs)-1].Key
		}
		if !more || len(kvs) == 0 {
			return nil
		}
	}
}
