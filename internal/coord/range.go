package coord

import (
	"context"
	"strconv"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// rangeAfter returns at most limit keys under prefix that sort after from
// (from is the prefix itself for the first page), and whether more follow.
func rangeAfter(ctx context.Context, st store.Store, prefix, from string, limit int) ([]store.KV, bool, error) {
	kvs, err := st.List(ctx, prefix)
	if err != nil {
		return nil, false, err
	}
	i := 0
	for i < len(kvs) && kvs[i].Key <= from {
		i++
	}
	kvs = kvs[i:]
	if len(kvs) > limit {
		return kvs[:limit], true, nil
	}
	return kvs, false, nil
}

// clip quotes a caller's text for an error message, cut to 64 bytes: a
// hostile id neither drives a terminal nor grows the answer.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.QuoteToASCII(s)
}
