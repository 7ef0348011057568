package usecase

import (
	"context"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// Once carries out effect — a change the store does not hold, such as an
// operator's token file — at most once per Key, and answers a repeat of
// the request with the first answer. The store cannot commit such an
// effect with its record, so the record is written in two steps around
// it: an intent before the effect, the answer after. A repeat finding the
// answer replays it and runs nothing; a repeat finding only the intent (the
// first attempt died between its effect and its answer) runs effect with
// again set, and effect answers from what the first attempt left (the
// token file it wrote) rather than doing it twice. An effect that fails
// forgets the intent, so the request can be sent again. The zero Key runs
// effect once, with again unset.
func Once[T any](ctx context.Context, u *Cases, k Key, effect func(again bool) (T, error)) (T, error) {
	var zero, recorded T
	if k == (Key{}) {
		return effect(false)
	}
	found, err := u.intend(ctx, k, &recorded)
	if err != nil {
		return zero, err
	}
	if found == replay {
		return recorded, nil
	}
	out, err := effect(found == resume)
	if err != nil {
		if ferr := u.forget(ctx, k); ferr != nil {
			u.log.Warn("could not forget the intent of a failed request; a retry with its Idempotency-Key resumes it", "key", k.Key, "err", ferr)
		}
		return zero, err
	}
	rec, err := u.record(k, out)
	if err != nil {
		return zero, err
	}
	rec.Conds = nil // the intent is replaced by the answer
	if _, err := rec.Commit(ctx, u.st); err != nil {
		return zero, fmt.Errorf("record the answer of Idempotency-Key %s: %w", k.Key, err)
	}
	return out, nil
}

// onceState is what intend found for a key.
type onceState int

const (
	// fresh: nothing recorded; the intent is now.
	fresh onceState = iota
	// resume: an intent without an answer (an attempt died midway).
	resume
	// replay: the answer is recorded (decoded into intend's out).
	replay
)

// intend records the intent of k's request unless one is recorded, and
// reports what it found; the recorded answer is decoded into out.
func (u *Cases) intend(ctx context.Context, k Key, out any) (onceState, error) {
	var retry conflictRetry
	for {
		kv, err := u.lookup(ctx, k)
		switch {
		case errors.Is(err, store.ErrNotFound):
			intent, err := u.record(k, nil)
			if err != nil {
				return fresh, err
			}
			_, err = intent.Commit(ctx, u.st)
			if errors.Is(err, store.ErrConflict) {
				// A concurrent repeat recorded it first: read its record.
				if err := retry.again(ctx); err != nil {
					return fresh, fmt.Errorf("Idempotency-Key %s: %w", k.Key, err)
				}
				continue
			}
			return fresh, err
		case err != nil:
			return fresh, fmt.Errorf("read the result of Idempotency-Key %s: %w", k.Key, err)
		}
		var rec idempotencyRecord
		if err := strictjson.DecodeOpen(kv.Value, &rec); err != nil {
			return fresh, fmt.Errorf("read the result of Idempotency-Key %s: %w: %v", k.Key, store.ErrCorrupt, err)
		}
		if rec.Request != k.Request {
			return fresh, fmt.Errorf("%s: %w", k.Key, ErrIdempotencyKeyReused)
		}
		if string(rec.Result) == "null" {
			return resume, nil
		}
		if err := strictjson.DecodeOpen(rec.Result, out); err != nil {
			return fresh, fmt.Errorf("read the result of Idempotency-Key %s: %w: %v", k.Key, store.ErrCorrupt, err)
		}
		return replay, nil
	}
}

// forget removes k's record.
func (u *Cases) forget(ctx context.Context, k Key) error {
	_, err := u.st.Txn(ctx, nil, []store.Op{{Key: k.storeKey(), Delete: true}})
	return err
}
