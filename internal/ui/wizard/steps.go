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

// options lists what step s offers for the current input: the offered values
// whose name starts with what was typed, then the typed value itself when it
// is new. Offered values come first so that typing a prefix and pressing
// enter picks the existing scope, never a new one by accident.
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
	if o, ok := m.typedOption(s, typed); ok {
		out = append(out, o)
	}
	return out
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

func (m Model) roleOptions() []option {
	roles := registry.RolesFor(m.answers.Shape())
	out := make([]option, 0, len(roles))
	for _, r := range roles {
		out = append(out, option{value: r.Name, label: r.Name,
			detail: fmt.Sprintf("profile %s · %s", r.Profile, r.Arity)})
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
