package store

import "context"

// Plan is the guarded writes of one change, read and decided but not yet
// committed. A use case that changes several records (a persona, its seat,
// its activation request and their audit entry) joins their plans and
// commits them as one transaction, so either all of it happens or none.
type Plan struct {
	Conds []Cond
	Ops   []Op
}

// Join appends the conditions and writes of o to p.
func (p *Plan) Join(o Plan) {
	p.Conds = append(p.Conds, o.Conds...)
	p.Ops = append(p.Ops, o.Ops...)
}

// Empty reports whether the plan writes nothing.
func (p Plan) Empty() bool { return len(p.Ops) == 0 }

// Commit commits the plan to s as one transaction and returns its revision.
// ErrConflict means something it read changed: read and plan again.
func (p Plan) Commit(ctx context.Context, s Store) (int64, error) {
	return s.Txn(ctx, p.Conds, p.Ops)
}
