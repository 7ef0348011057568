package usecase

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys/keyring"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// useOperatorKeys names the operator-key use cases (no failpoints).
const useOperatorKeys = "operator-keys"

// AddOperatorKeys lists keys for human ("human:<name>") in one
// transaction: all of them, or none when one is listed for another human
// (operatorkeys.ErrKeyTaken). Keys already listed for human stay as they
// are, so enrolling the same keys again succeeds.
func (u *Cases) AddOperatorKeys(ctx context.Context, human string, keys []operatorkeys.Key) error {
	return u.commit(ctx, useOperatorKeys, "list the SSH keys of "+human, func() (store.Plan, error) {
		return keyring.PlanAdd(ctx, u.st, human, keys)
	})
}

// OperatorKeys lists the keys listed for human, or every key for "".
func (u *Cases) OperatorKeys(ctx context.Context, human string) ([]operatorkeys.Key, error) {
	return keyring.List(ctx, u.st, human)
}
