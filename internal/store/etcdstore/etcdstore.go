// Package etcdstore is the Store on an etcd v3 cluster, for an installation
// that outgrew one machine: several hubs on several hosts share one
// installation's keys under one prefix. It keeps the store.Store contract
// exactly (the conformance suite in storetest runs against it): a
// transaction's conditions become compares on etcd's revisions (a key that
// must be absent has CreateRevision 0), its revision is etcd's, a list is
// read page by page at one revision, a watch resumes from a revision and a
// compacted one is store.ErrCompacted. Every call is bounded in time: a
// cluster that cannot answer (no quorum, unreachable) is store.ErrUnavailable
// within Options.CallTimeout, never a hang.
package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Defaults of Options.
const (
	// DefaultDialTimeout bounds Open's first contact with the cluster.
	DefaultDialTimeout = 5 * time.Second
	// DefaultCallTimeout bounds every read and transaction. A commit needs
	// a quorum; an etcd leader election takes about a second, so five
	// ride out a lost leader and still fail fast without a quorum.
	DefaultCallTimeout = 5 * time.Second
	// listPage is how many keys one read of a List fetches.
	listPage = 256
)

// Options say which cluster and which installation.
type Options struct {
	// Endpoints are the client URLs of the cluster's members
	// (host:port, or http://host:port).
	Endpoints []string
	// Prefix is the installation's key prefix; every key the store writes
	// is under it, so several installations can share one cluster.
	Prefix string
	// DialTimeout and CallTimeout: 0 means the defaults above.
	DialTimeout, CallTimeout time.Duration
}

// Store is the store.Store on etcd.
type Store struct {
	cli     *clientv3.Client
	opts    Options
	prefix  string
	closed  atomic.Bool
	mu      sync.Mutex // orders Watch's registration against Close
	closing chan struct{}
	watches sync.WaitGroup
}

var _ store.Store = (*Store)(nil)

// Open connects to the cluster and checks that it answers within the dial
// timeout; a cluster that does not is store.ErrUnavailable.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if len(opts.Endpoints) == 0 {
		return nil, fmt.Errorf("%w: no etcd endpoints given", ErrBadURL)
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   opts.Endpoints,
		DialTimeout: opts.DialTimeout,
		// The console owns the terminal; the client must not log to it.
		Logger: zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("%w: etcd at %s: %w", store.ErrUnavailable, strings.Join(opts.Endpoints, ","), err)
	}
	s := &Store{cli: cli, opts: opts, prefix: opts.Prefix, closing: make(chan struct{})}
	cctx, cancel := context.WithTimeout(ctx, opts.DialTimeout)
	defer cancel()
	if _, err := s.cli.Get(clientv3.WithRequireLeader(cctx), s.prefix, clientv3.WithCountOnly()); err != nil {
		cli.Close()
		return nil, s.fail(ctx, "connect", err)
	}
	return s, nil
}

// Prefix is the installation's key prefix.
func (s *Store) Prefix() string { return s.prefix }

// Endpoints are the cluster's client URLs the store was opened with.
func (s *Store) Endpoints() []string { return s.opts.Endpoints }

// Client is the etcd client, for what goes beside the store's keys
// (status, leases, elections).
func (s *Store) Client() *clientv3.Client { return s.cli }

// call bounds one request: the caller's ctx, at most CallTimeout, and a
// member without a leader answers at once instead of waiting for one.
func (s *Store) call(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	return clientv3.WithRequireLeader(ctx), cancel
}

// begin refuses a call on a closed store or with an ended ctx.
func (s *Store) begin(ctx context.Context) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return ctx.Err()
}

// fail names what an etcd error means for the caller: the caller's own
// ctx ending stays its error; a closed store is ErrClosed; a compacted
// revision ErrCompacted; a put on a lease that ended ErrLeaseLost; a request over etcd's limits ErrTxnTooLarge;
// anything that says the cluster cannot answer — a timeout of ours, no
// leader, no connection — ErrUnavailable. A transaction that failed so may
// or may not have committed: the caller retries it with its conditions (or
// its idempotency key), which make a repeat harmless.
func (s *Store) fail(ctx context.Context, op string, err error) error {
	var code codes.Code
	if st, ok := status.FromError(err); ok {
		code = st.Code()
	}
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", op, ctx.Err())
	case s.closed.Load(), errors.Is(err, context.Canceled):
		return store.ErrClosed
	case errors.Is(err, rpctypes.ErrLeaseNotFound):
		return fmt.Errorf("%s: %w", op, store.ErrLeaseLost)
	case errors.Is(err, rpctypes.ErrCompacted):
		return fmt.Errorf("%s: %w", op, store.ErrCompacted)
	case errors.Is(err, rpctypes.ErrTooManyOps), errors.Is(err, rpctypes.ErrRequestTooLarge):
		return fmt.Errorf("%s: %w: etcd refused it: %v (is the cluster's --max-txn-ops or --max-request-bytes below etcd's default?)", op, store.ErrTxnTooLarge, err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, rpctypes.ErrNoLeader),
		errors.Is(err, rpctypes.ErrTimeout), errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail),
		errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost), errors.Is(err, rpctypes.ErrLeaderChanged),
		errors.Is(err, rpctypes.ErrStopped), errors.Is(err, rpctypes.ErrNotCapable),
		code == codes.Unavailable, code == codes.DeadlineExceeded:
		return fmt.Errorf("%s: %w: etcd at %s did not answer within %s (members down, or no quorum): %v",
			op, store.ErrUnavailable, strings.Join(s.opts.Endpoints, ","), s.opts.CallTimeout, err)
	default:
		return fmt.Errorf("%s: etcd: %w", op, err)
	}
}

// Get returns one key, or store.ErrNotFound.
func (s *Store) Get(ctx context.Context, key string) (store.KV, error) {
	if err := s.begin(ctx); err != nil {
		return store.KV{}, err
	}
	cctx, cancel := s.call(ctx)
	defer cancel()
	resp, err := s.cli.Get(cctx, s.prefix+key)
	switch {
	case err != nil:
		return store.KV{}, s.fail(ctx, fmt.Sprintf("get %q", key), err)
	case len(resp.Kvs) == 0:
		return store.KV{}, store.NotFound(key)
	}
	return s.kv(resp.Kvs[0]), nil
}

// kv is an etcd key-value as the store's KV: its key without the
// installation's prefix.
func (s *Store) kv(kv *mvccpb.KeyValue) store.KV {
	return store.KV{Key: s.key(kv.Key), Value: kv.Value, CreateRev: kv.CreateRevision, ModRev: kv.ModRevision, Lease: store.LeaseID(kv.Lease)}
}

// key is an etcd key without the installation's prefix.
func (s *Store) key(k []byte) string { return strings.TrimPrefix(string(k), s.prefix) }

// List returns every key with the prefix, in key order, read in pages at
// the revision of the first, so the whole is one snapshot. If that
// revision is compacted midway the list starts over at the current one.
func (s *Store) List(ctx context.Context, prefix string) ([]store.KV, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	for {
		out, err := s.list(ctx, prefix)
		if errors.Is(err, store.ErrCompacted) {
			continue
		}
		return out, err
	}
}

func (s *Store) list(ctx context.Context, prefix string) ([]store.KV, error) {
	from, end := s.prefix+prefix, clientv3.GetPrefixRangeEnd(s.prefix+prefix)
	var out []store.KV
	var rev int64
	for {
		cctx, cancel := s.call(ctx)
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(listPage)}
		if rev != 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := s.cli.Get(cctx, from, opts...)
		cancel()
		if err != nil {
			return nil, s.fail(ctx, fmt.Sprintf("list %q", prefix), err)
		}
		if rev == 0 {
			// The header names the store's revision, which is the
			// read's only for the first page.
			rev = resp.Header.Revision
		}
		for _, kv := range resp.Kvs {
			out = append(out, s.kv(kv))
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return out, nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// Txn commits ops if every cond holds, as one etcd transaction: each cond
// is a compare on the key's ModRevision (absent, ModRev 0: CreateRevision
// 0), each op a put or a delete; if a compare fails, the transaction reads
// the conditions' keys instead, to say which one moved.
func (s *Store) Txn(ctx context.Context, conds []store.Cond, ops []store.Op) (int64, error) {
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	if err := store.CheckTxn(conds, ops, true); err != nil {
		return 0, err
	}
	cmps := make([]clientv3.Cmp, len(conds))
	reads := make([]clientv3.Op, len(conds))
	for i, c := range conds {
		k := s.prefix + c.Key
		if c.ModRev == 0 {
			cmps[i] = clientv3.Compare(clientv3.CreateRevision(k), "=", 0)
		} else {
			cmps[i] = clientv3.Compare(clientv3.ModRevision(k), "=", c.ModRev)
		}
		reads[i] = clientv3.OpGet(k, clientv3.WithKeysOnly())
	}
	cctx, cancel := s.call(ctx)
	defer cancel()
	resp, err := s.cli.Txn(cctx).If(cmps...).Then(s.writes(ops)...).Else(reads...).Commit()
	if err != nil {
		return 0, s.fail(ctx, "commit", err)
	}
	if !resp.Succeeded {
		for i, r := range resp.Responses {
			var got int64
			if kvs := r.GetResponseRange().Kvs; len(kvs) > 0 {
				got = kvs[0].ModRevision
			}
			if got != conds[i].ModRev {
				return 0, fmt.Errorf("%w: key %q is at revision %d, the transaction expected %d", store.ErrConflict, conds[i].Key, got, conds[i].ModRev)
			}
		}
		return 0, fmt.Errorf("%w: a condition changed while the transaction ran", store.ErrConflict)
	}
	return resp.Header.Revision, nil
}

// writes are ops as etcd operations. etcd refuses a transaction that names
// a key twice; a later op on a key replaces an earlier one (as it would in
// order), so only the last op of each key is sent, in its place.
func (s *Store) writes(ops []store.Op) []clientv3.Op {
	last := make(map[string]int, len(ops))
	for i, op := range ops {
		last[op.Key] = i
	}
	out := make([]clientv3.Op, 0, len(last))
	for i, op := range ops {
		switch {
		case last[op.Key] != i:
		case op.Delete:
			out = append(out, clientv3.OpDelete(s.prefix+op.Key))
		default:
			// Lease 0 is etcd's NoLease: a put on no lease.
			out = append(out, clientv3.OpPut(s.prefix+op.Key, string(op.Value), clientv3.WithLease(clientv3.LeaseID(op.Lease))))
		}
	}
	return out
}

// Rev is the cluster's current revision (shared by every installation on
// it, so it may move without this one's writes).
func (s *Store) Rev(ctx context.Context) (int64, error) {
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	cctx, cancel := s.call(ctx)
	defer cancel()
	resp, err := s.cli.Get(cctx, s.prefix, clientv3.WithCountOnly())
	if err != nil {
		return 0, s.fail(ctx, "read the revision", err)
	}
	return resp.Header.Revision, nil
}

// Close ends every watch (closing its channel) and the connection; later
// calls return store.ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed.Swap(true) {
		s.mu.Unlock()
		return store.ErrClosed
	}
	close(s.closing)
	s.mu.Unlock()
	s.watches.Wait()
	if err := s.cli.Close(); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("close the etcd client: %w", err)
	}
	return nil
}

// Range returns one page of the keys with the prefix after after, in key
// order, read at one revision (one etcd range request).
func (s *Store) Range(ctx context.Context, prefix, after string, limit int) ([]store.KV, bool, error) {
	if err := s.begin(ctx); err != nil {
		return nil, false, err
	}
	if limit <= 0 {
		return nil, false, fmt.Errorf("range %q: limit %d: %w: a page holds at least one key", prefix, limit, store.ErrInvalidOp)
	}
	from, end := s.prefix+prefix, clientv3.GetPrefixRangeEnd(s.prefix+prefix)
	if after > prefix {
		from = s.prefix + after + "\x00"
	}
	if from >= end {
		return nil, false, nil // after sorts past the prefix
	}
	cctx, cancel := s.call(ctx)
	defer cancel()
	resp, err := s.cli.Get(cctx, from, clientv3.WithRange(end), clientv3.WithLimit(int64(limit)))
	if err != nil {
		return nil, false, s.fail(ctx, fmt.Sprintf("range %q", prefix), err)
	}
	out := make([]store.KV, len(resp.Kvs))
	for i, kv := range resp.Kvs {
		out[i] = s.kv(kv)
	}
	return out, resp.More, nil
}
