package confirm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// PrefixAssignments holds the tasks assigned to deputies, by persona
// generation id and task id: a new generation of the seat starts with none,
// so a regrant never inherits the old holder's scope.
const PrefixAssignments = "confirm/assign/"

// The errors of task assignment. A deputy's assigned tasks widen what it may
// do without asking, so they come from its authority, never from itself.
var (
	// ErrSelfAssignment: a persona never assigns itself a task.
	ErrSelfAssignment = errors.New("a persona cannot assign itself a task; its owning lead does")
	// ErrNotAssigner: only the owning lead or the bound human assigns.
	ErrNotAssigner = errors.New("only the deputy's owning lead (its active holder) or its bound human assigns its tasks")
	// ErrNoOwningLead: only a persona with an owning lead has assigned tasks.
	ErrNoOwningLead = errors.New("the persona has no owning lead on its stamp; only a coder-deputy's tasks are assigned")
	// ErrOutsideProject: a deputy is assigned tasks of its own project only.
	ErrOutsideProject = errors.New("the task is outside the deputy's project")
	// ErrNotAssigned: unassigning a task that is not assigned.
	ErrNotAssigned = errors.New("the task is not assigned to the persona")
)

// Assignment records a task assigned to a deputy generation.
type Assignment struct {
	PersonaID  string `json:"persona_id"`
	Persona    string `json:"persona"`
	Generation int    `json:"generation"`
	// Task is the task in its target form without the kind:
	// scope/project/task.
	Task       string    `json:"task"`
	AssignedBy Principal `json:"assigned_by"`
	Time       time.Time `json:"time"`
}

// TaskSet is a persona's assigned task ids, as Options.Assignments.
type TaskSet map[string]bool

// IsAssigned reports whether task (a task id in the persona's project) is
// in the set; the set is one persona's, so persona is not consulted.
func (s TaskSet) IsAssigned(_, task string) bool { return s[task] }

// Tasks is the set of the assignments' task ids.
func Tasks(as []Assignment) TaskSet {
	s := make(TaskSet, len(as))
	for _, a := range as {
		s[a.Task[strings.LastIndexByte(a.Task, '/')+1:]] = true
	}
	return s
}

func keyAssignment(personaID, task string) string { return PrefixAssignments + personaID + "/" + task }

// assignmentTarget checks that by may change st's assigned tasks and that
// task ("scope/project/task") lies in st's project; it returns the task
// normalized.
func assignmentTarget(by Principal, st *stamp.Stamp, task string) (Target, error) {
	addr, err := NormalizeAddress(st.Path.Address)
	if err != nil {
		return Target{}, err
	}
	lead := st.Authority.OwningLead
	switch {
	case by == PersonaPrincipal(addr):
		return Target{}, fmt.Errorf("%s: %w", addr, ErrSelfAssignment)
	case lead == "":
		return Target{}, fmt.Errorf("%s: %w", addr, ErrNoOwningLead)
	case by.IsModel() && by.Name == lead:
	case by.Kind == PrincipalHuman && by.String() == strings.ToLower(st.Authority.Human):
	default:
		return Target{}, fmt.Errorf("%s assigning a task to %s: %w (%s or %s)", by, addr, ErrNotAssigner, lead, st.Authority.Human)
	}
	t, err := ParseTarget("task:" + task)
	if err != nil {
		return Target{}, err
	}
	if scope, project, _ := strings.Cut(addr, "/"); t.Scope != scope || !strings.HasPrefix(project, t.Project+"/") {
		return Target{}, fmt.Errorf("%s for %s: %w", t, addr, ErrOutsideProject)
	}
	return t, nil
}

// Assign records task ("scope/project/task", in the deputy's project) as
// assigned to the deputy generation of st, on the word of by: its owning
// lead or its bound human, committing what PlanAssign plans.
func (q *Queue) Assign(ctx context.Context, by Principal, st *stamp.Stamp, task string) (Assignment, error) {
	a, plan, err := q.PlanAssign(ctx, by, st, task)
	if err != nil || plan.Empty() {
		return a, err
	}
	if _, err := plan.Commit(ctx, q.st); err != nil {
		return Assignment{}, fmt.Errorf("assign %s to %s: %w", a.Task, a.Persona, err)
	}
	return a, nil
}

// PlanAssign plans recording task as assigned to st's deputy generation:
// the record and its audit entry, guarded on the task not being assigned
// yet. Assigning an assigned task plans nothing and answers the assignment
// recorded.
func (q *Queue) PlanAssign(ctx context.Context, by Principal, st *stamp.Stamp, task string) (Assignment, store.Plan, error) {
	t, err := assignmentTarget(by, st, task)
	if err != nil {
		return Assignment{}, store.Plan{}, err
	}
	key := keyAssignment(st.Persona.ID, t.Value)
	if kv, err := q.st.Get(ctx, key); err == nil {
		var a Assignment
		return a, store.Plan{}, json.Unmarshal(kv.Value, &a)
	} else if !errors.Is(err, store.ErrNotFound) {
		return Assignment{}, store.Plan{}, err
	}
	now := q.now().UTC()
	a := Assignment{PersonaID: st.Persona.ID, Persona: st.Path.Address, Generation: st.Persona.Generation,
		Task: strings.TrimPrefix(t.String(), "task:"), AssignedBy: by, Time: now}
	val, err := json.Marshal(a)
	if err != nil {
		return Assignment{}, store.Plan{}, err
	}
	audit, err := auditOp(AuditEntry{Time: now, Event: "task-assigned", Actor: by, Persona: a.Persona, Operation: t.String()})
	if err != nil {
		return Assignment{}, store.Plan{}, err
	}
	return a, store.Plan{Conds: []store.Cond{{Key: key}}, Ops: []store.Op{store.Put(key, val), audit}}, nil
}

// Unassign removes an assigned task, with the same rules as Assign,
// committing what PlanUnassign plans.
func (q *Queue) Unassign(ctx context.Context, by Principal, st *stamp.Stamp, task string) error {
	plan, err := q.PlanUnassign(ctx, by, st, task)
	if err != nil {
		return err
	}
	if _, err := plan.Commit(ctx, q.st); err != nil {
		return fmt.Errorf("unassign %s from %s: %w", task, st.Path.Address, err)
	}
	return nil
}

// PlanUnassign plans removing an assigned task and its audit entry, guarded
// on the assignment unchanged; a task not assigned is ErrNotAssigned.
func (q *Queue) PlanUnassign(ctx context.Context, by Principal, st *stamp.Stamp, task string) (store.Plan, error) {
	t, err := assignmentTarget(by, st, task)
	if err != nil {
		return store.Plan{}, err
	}
	key := keyAssignment(st.Persona.ID, t.Value)
	kv, err := q.st.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return store.Plan{}, fmt.Errorf("unassign %s from %s: %w", t, st.Path.Address, ErrNotAssigned)
	}
	if err != nil {
		return store.Plan{}, err
	}
	now := q.now().UTC()
	audit, err := auditOp(AuditEntry{Time: now, Event: "task-unassigned", Actor: by, Persona: st.Path.Address, Operation: t.String()})
	if err != nil {
		return store.Plan{}, err
	}
	return store.Plan{Conds: []store.Cond{{Key: key, ModRev: kv.ModRev}}, Ops: []store.Op{{Key: key, Delete: true}, audit}}, nil
}

// Assignments lists the tasks assigned to a persona generation.
func (q *Queue) Assignments(ctx context.Context, personaID string) ([]Assignment, error) {
	kvs, err := q.st.List(ctx, PrefixAssignments+personaID+"/")
	if err != nil {
		return nil, fmt.Errorf("list assigned tasks: %w", err)
	}
	out := make([]Assignment, 0, len(kvs))
	for _, kv := range kvs {
		var a Assignment
		if err := json.Unmarshal(kv.Value, &a); err != nil {
			return nil, fmt.Errorf("assignment %s: %w", kv.Key, err)
		}
		out = append(out, a)
	}
	return out, nil
}
