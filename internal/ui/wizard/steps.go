package wizard

import (
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// step is one screen of the wizard, in the spec's path order: "Registration
// asks in path order: scope, optional project, role, then persona name."
type step int

const (
	stepScope step = iota
	stepProject
	stepRole
	stepName
	stepPreview
	stepSubmitted
)

// choiceSteps is how many steps take an answer (scope, project, role, name).
const choiceSteps = int(stepName) + 1

var stepTitles = [...]string{"scope", "project", "role", "name", "preview", "submitted"}

// option is one row a choice step offers: an existing value, a registry
// role, a suggestion, or the value the operator typed.
type option struct {
	value  string
	label  string
	detail string
	// typed marks the operator's own value (a new scope or project, a name
	// not suggested) as opposed to one the installation offered.
	typed bool
	// err is why the value is refused, in the registry's words; nil when the
	// value may be chosen.
	err error
}

// options lists what step s offers for the current input: only values that
// may be chosen (a value the registry refuses is never a row) and, at the
// role step, the roles whose seat is held, each with its refusal naming the
// holder. At the segment steps (scope, project, role) the offered values
// whose name starts with what was typed come first, then the typed value
// when it is new, so that typing a prefix and pressing enter picks the
// existing scope, never a new one by accident. At the name step the typed
// name comes first: a name is what the operator typed, and a taken one is
// refused (typedRefusal), never replaced by a look-alike suggestion.
func (m Model) options(s step) []option {
	typed := strings.TrimSpace(m.inputs[s].Value())
	var base []option
	switch s {
	case stepScope:
		base = m.scopeOptions()
	case stepProject:
		base = m.projectOptions(typed)
	case stepRole:
		base = m.roleOptions()
	case stepName:
		if typed != "" && m.typedRefusal(s) != nil {
			return nil
		}
		base = m.nameOptions()
	}
	// Segments are case-sensitive (Work is refused, not read as work);
	// names compare case-insensitively, as the registry does.
	fold := s == stepName
	out := make([]option, 0, len(base)+1)
	exact := false
	for _, o := range base {
		if !hasPrefix(o.value, typed, fold) {
			continue
		}
		out = append(out, o)
		exact = exact || o.value == typed || fold && strings.EqualFold(o.value, typed)
	}
	if typed == "" || exact {
		return out
	}
	o, ok := m.typedOption(s, typed)
	switch {
	case !ok || o.err != nil:
		return out
	case s == stepName:
		return append([]option{o}, out...)
	}
	return append(out, o)
}

// refusal is why enter does not take an answer at step s now: the
// highlighted row's refusal (a held seat), or when no row can be chosen the
// typed value's. The verdict line shows it.
func (m Model) refusal(s step) error {
	if o, ok := m.current(s); ok {
		return o.err
	}
	return m.typedRefusal(s)
}

// typedRefusal is why the value typed at step s cannot be chosen: the
// registry's words, or nil when nothing is typed or the value is allowed. The verdict shows it when no row can be chosen instead.
func (m Model) typedRefusal(s step) error {
	typed := strings.TrimSpace(m.inputs[s].Value())
	if typed == "" {
		return nil
	}
	if o, ok := m.typedOption(s, typed); ok {
		return o.err
	}
	return nil
}

func (m Model) scopeOptions() []option {
	out := make([]option, 0, len(m.snap.Scopes)+1)
	for _, s := range m.snap.Scopes {
		if s == registry.RootScope {
			continue // offered once, last, with what it means
		}
		n := len(m.snap.Projects[s])
		out = append(out, option{value: s, label: s, detail: plural(n, "project")})
	}
	return append(out, option{value: registry.RootScope, label: registry.RootScope,
		detail: "reserved installation-wide seats, no projects"})
}

func (m Model) projectOptions(typed string) []option {
	var out []option
	if typed == "" {
		out = append(out, option{value: "", label: "(none)", detail: "scope-wide: " + m.answers.Scope + "/<role>"})
	}
	for _, p := range m.snap.Projects[m.answers.Scope] {
		out = append(out, option{value: p, label: p, detail: m.answers.Scope + "/" + p + "/<role>"})
	}
	return out
}

// roleOptions are the roles whose arity fits the address so far; a role
// whose seat is held is listed with the registry's refusal naming the
// holder, so the seat is refused here and not at submit.
func (m Model) roleOptions() []option {
	roles := registry.RolesFor(m.answers.Shape())
	out := make([]option, 0, len(roles))
	for _, r := range roles {
		o := option{value: r.Name, label: r.Name, detail: fmt.Sprintf("profile %s · %s", r.Profile, r.Arity)}
		a := m.answers
		a.Role = r.Name
		if h, held := m.snap.Holders[a.String()]; held {
			o.err = registry.SeatTakenError(a.String(), h)
			o.detail = "held by " + h.Name + " · " + o.detail
		}
		out = append(out, o)
	}
	return out
}

func (m Model) nameOptions() []option {
	out := make([]option, 0, len(m.snap.Suggestions))
	for i, n := range m.snap.Suggestions {
		d := "free constellation name"
		if i == 0 {
			d = "first free constellation name"
		}
		out = append(out, option{value: n, label: n, detail: d})
	}
	return out
}

// typedOption validates a value the installation did not offer, with the
// registry's own checks so that a refusal reads exactly as persona add's.
func (m Model) typedOption(s step, typed string) (option, bool) {
	switch s {
	case stepScope:
		return option{value: typed, label: fmt.Sprintf("new scope %q", typed), typed: true,
			err: registry.CheckSegment("scope", typed)}, true
	case stepProject:
		return option{value: typed, label: fmt.Sprintf("new project %q", typed), typed: true,
			err: registry.CheckSegment("project", typed)}, true
	case stepRole:
		// Only roles whose arity fits are offered; anything else typed is
		// refused by the address parser with the rule it breaks.
		a := m.answers
		a.Role = typed
		_, err := registry.ParseAddress(a.String())
		return option{value: typed, label: fmt.Sprintf("role %q", typed), typed: true, err: err}, err != nil
	case stepName:
		return option{value: typed, label: fmt.Sprintf("name %q", typed), typed: true,
			err: m.checkName(typed)}, true
	}
	return option{}, false
}

func hasPrefix(s, prefix string, fold bool) bool {
	if !fold {
		return strings.HasPrefix(s, prefix)
	}
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
