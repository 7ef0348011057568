package usecase

import (
	"context"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// locators is the table of stored records a tool's target is read from:
// record kind → the record's target (scope, project and a run's task as
// recorded). Each record package adds its row.
var locators = map[confirm.TargetKind]func(ctx context.Context, u *Cases, id string) (confirm.Target, error){
	confirm.TargetTask: func(ctx context.Context, u *Cases, id string) (confirm.Target, error) {
		t, _, err := board.Get(ctx, u.st, id)
		return t.Target(), err
	},
	confirm.TargetRun:      locateRun,
	confirm.TargetDecision: locateDecision,
}

// records is the tool table's view of the store (tools.Records).
type records struct{ u *Cases }

// Record reads the target of a stored task, run or decision.
func (r records) Record(ctx context.Context, kind confirm.TargetKind, id string) (confirm.Target, error) {
	locate, ok := locators[kind]
	if !ok {
		return confirm.Target{}, fmt.Errorf("%s %s: %w", kind, id, tools.ErrNoRecord)
	}
	return locate(ctx, r.u, id)
}

// Seat reads the registered address of the seat at address: a seat no
// persona was ever registered at is refused.
func (r records) Seat(ctx context.Context, address string) (registry.Address, error) {
	if _, err := r.u.reg.Resolve(ctx, address); err != nil {
		return registry.Address{}, err
	}
	return registry.ParseAddress(address)
}
