package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// The limits of one transaction, the same for every backend. They are
// etcd's defaults (--max-txn-ops 128, --max-request-bytes 1.5 MiB, of which
// the installation's key prefix and the request's framing take a share), and
// bbolt enforces them too: a use case whose transactions pass on bbolt
// cannot fail on etcd for their size.
const (
	// MaxTxnOps bounds the conditions and, separately, the writes of one
	// transaction.
	MaxTxnOps = 128
	// MaxTxnBytes bounds the bytes of one transaction: the keys of its
	// conditions, and the keys and values of its writes.
	MaxTxnBytes = 1<<20 + 1<<18
	// MaxKeyBytes bounds one key (bbolt's own limit).
	MaxKeyBytes = 32 << 10
)

// CheckTxn refuses, before anything is sent or written, a transaction that
// no backend may commit: an empty or oversized key (ErrInvalidOp), or more
// conditions, writes or bytes than the limits allow (ErrTxnTooLarge), or a
// delete that names a lease (ErrInvalidOp).
// Every Store implementation calls it first, so the refusal is the same
// everywhere and never fails a group of transactions midway.
//
// leases says whether the store keeps keys on leases (a Leaser): one that
// does not refuses any op that names a lease (ErrInvalidOp).
func CheckTxn(conds []Cond, ops []Op, leases bool) error {
	if len(conds) > MaxTxnOps {
		return fmt.Errorf("%w: %d conditions, the limit is %d", ErrTxnTooLarge, len(conds), MaxTxnOps)
	}
	if len(ops) > MaxTxnOps {
		return fmt.Errorf("%w: %d writes, the limit is %d; split it (store.WriteAll for independent writes)", ErrTxnTooLarge, len(ops), MaxTxnOps)
	}
	var size int
	for i, c := range conds {
		if err := checkKey(c.Key, "condition", i); err != nil {
			return err
		}
		size += len(c.Key)
	}
	for i, op := range ops {
		if err := checkKey(op.Key, "op", i); err != nil {
			return err
		}
		if err := checkLease(op, i, leases); err != nil {
			return err
		}
		size += len(op.Key) + len(op.Value)
	}
	if size > MaxTxnBytes {
		return fmt.Errorf("%w: %d bytes of keys and values, the limit is %d", ErrTxnTooLarge, size, MaxTxnBytes)
	}
	return nil
}

func checkKey(key, what string, i int) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: %s %d has an empty key", ErrInvalidOp, what, i)
	case len(key) > MaxKeyBytes:
		return fmt.Errorf("%w: %s %d key is %d bytes, the limit is %d", ErrInvalidOp, what, i, len(key), MaxKeyBytes)
	}
	return nil
}

// WriteAll commits unconditional writes that do not depend on each other
// (presence records, token hashes, expired records to delete) in as few
// transactions as the limits allow, in key order, and returns the revision
// of the last. Key order (stable: of two writes of one key the later still
// wins) because many new keys written at random places leave bbolt's
// leaves about half full, and written in order, each transaction appending
// a run, fill them to the bucket's fill (docs/store.md, *Page fill*). It
// is not atomic across transactions: on an error, the writes of the
// transactions before it are committed, and rewriting all of them is
// harmless. A single write over the limits is refused as CheckTxn
// refuses it.
func WriteAll(ctx context.Context, s Store, ops []Op) (rev int64, err error) {
	ops = slices.Clone(ops)
	slices.SortStableFunc(ops, func(a, b Op) int { return strings.Compare(a.Key, b.Key) })
	for len(ops) > 0 {
		n, size := 0, 0
		for n < len(ops) && n < MaxTxnOps {
			w := len(ops[n].Key) + len(ops[n].Value)
			if n > 0 && size+w > MaxTxnBytes {
				break
			}
			size += w
			n++
		}
		if rev, err = s.Txn(ctx, nil, ops[:n]); err != nil {
			return 0, err
		}
		ops = ops[n:]
	}
	return rev, nil
}
