package confirm

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

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

// Assignment is a task assigned to a deputy generation, as the assignment
// endpoint answers it.
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

// AssignmentTarget checks that by may change the assigned tasks of st's
// persona generation — its owning lead or its bound human, never itself —
// and that task ("scope/project/task") lies in its project; it returns
// the task normalized. (The task records are internal/tasks'; this is the
// rule of the assignment endpoint, which an owning lead's or bound human's
// word is.)
func AssignmentTarget(by Principal, st *stamp.Stamp, task string) (Target, error) {
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
