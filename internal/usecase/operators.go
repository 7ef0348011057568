package usecase

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys/keyring"
	"github.com/virgo-hub/virgo-tui/internal/operators"
	"github.com/virgo-hub/virgo-tui/internal/operators/roll"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// useOperators names the enrolment use cases (no failpoints).
const useOperators = "operators"

// EnrolOperator records e (an operator's token hash, uid binding and where
// their token file is) and lists keys for them (none: nil), in one
// transaction: all of it, or nothing when the operator is enrolled with
// another token (operators.ErrAlreadyEnrolled) or a key is another human's
// (operatorkeys.ErrKeyTaken). The same enrolment sent again writes nothing
// new. The token file is written before it, by the caller.
func (u *Cases) EnrolOperator(ctx context.Context, e operators.Enrolment, keys []operatorkeys.Key) error {
	return u.commit(ctx, useOperators, "enrol "+e.Principal(), func() (store.Plan, error) {
		plan, err := roll.PlanEnrol(ctx, u.st, e)
		if err != nil || keys == nil {
			return plan, err
		}
		add, err := keyring.PlanAdd(ctx, u.st, e.Principal(), keys)
		plan.Join(add)
		return plan, err
	})
}

// RemoveOperator ends human name's enrolment — their record marked removed,
// every SSH key listed for them removed — in one transaction, and returns
// the enrolment as it was (its Host and Home say whose token file it was).
// Every hub's token book follows the record on its store watch, so the
// operator's token stops working on every hub.
func (u *Cases) RemoveOperator(ctx context.Context, name string) (operators.Enrolment, error) {
	var was operators.Enrolment
	err := u.commit(ctx, useOperators, "remove human:"+name, func() (store.Plan, error) {
		cur, plan, err := roll.PlanRemove(ctx, u.st, name)
		if err != nil {
			return plan, err
		}
		keys, err := keyring.PlanRemoveAll(ctx, u.st, cur.Principal())
		plan.Join(keys)
		was = cur
		return plan, err
	})
	return was, err
}

// Operators lists the enrolment records, the removed included.
func (u *Cases) Operators(ctx context.Context) ([]operators.Enrolment, error) {
	return roll.List(ctx, u.st)
}
