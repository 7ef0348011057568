package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func init() { subcommands = append(subcommands, newPersonaCmd) }

// personaWizard, when set (by the console), runs the interactive
// registration for a bare `persona add` on a terminal and returns what the
// operator chose. Unset, persona add needs its flags.
var personaWizard func(cmd *cobra.Command, r *registry.Registry) (registry.Registration, error)

func newPersonaCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "persona",
		Short: "Register, list, inspect and retire personas",
		Long: `A persona holds a seat: an address such as root/secretary, work/coordinator or
work/core/lead. A seat has at most one pending or active holder; a retired
holder's seat may be granted to a new generation under a new for-life name.`,
		Example: `  virgo-tui persona names --count 3
  virgo-tui persona add --scope work --project core --role lead --name Spica --repo ~/src/core
  virgo-tui persona list --all
  virgo-tui persona show work/core/lead
  virgo-tui persona retire Spica --reason "context exhausted"`,
	}
	cmd.AddCommand(newPersonaAddCmd(a), newPersonaListCmd(a), newPersonaShowCmd(a),
		newPersonaRetireCmd(a), newPersonaNamesCmd(a))
	return cmd
}

// addFlags are persona add's flags, in the path order the spec asks them.
type addFlags struct {
	scope, project, role, name      string
	human, repo, session, character string
}

func newPersonaAddCmd(a *app) *cobra.Command {
	var f addFlags
	cmd := &cobra.Command{
		Use:   "add --scope S [--project P] --role R --name N",
		Short: "Register a persona at an address",
		Long: `Register a persona generation at scope/[project/]role under a for-life name.
The seat must be free (its last holder retired) and the name never used
before, in any case. Run "persona names" for free constellation names.`,
		Example: `  virgo-tui persona add --scope root --role secretary --name Spica
  virgo-tui persona add --scope work --role coordinator --name Porrima --human human:ada
  virgo-tui persona add --scope work --project core --role lead --name Vindemiatrix --repo ~/src/core
  virgo-tui persona add --scope work --project core --role deputy --name "Rijl al Awwa" -o json`,
		Args: cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.scope, "scope", "", "scope: root, or a workspace such as home or work")
	fl.StringVar(&f.project, "project", "", "project, for project duties (lead, deputy); omit for scope-wide roles")
	fl.StringVar(&f.role, "role", "", "role: "+roleList())
	fl.StringVar(&f.name, "name", "", "for-life persona name (see persona names)")
	fl.StringVar(&f.human, "human", "", "bound human authority human:<name> (default human:$USER)")
	fl.StringVar(&f.repo, "repo", "", "bind an existing repository directory")
	fl.StringVar(&f.session, "session", "", "native session lineage id (default: generated)")
	fl.StringVar(&f.character, "character", "", "character composition hash (default: derived)")
	a.completeAddFlags(cmd, &f)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withRegistry(cmd.Context(), func(ctx context.Context, r *registry.Registry) error {
			reg, err := registrationFor(cmd, r, f)
			if err != nil {
				return err
			}
			p, err := r.Register(ctx, reg)
			if err != nil {
				return err
			}
			return writePersona(cmd.OutOrStdout(), *out, p, nil)
		})
	}
	return cmd
}

// registrationFor turns the flags into a Registration: with no flags at all
// the wizard runs on a terminal, and otherwise the missing flags are named
// with a typed-out example.
func registrationFor(cmd *cobra.Command, r *registry.Registry, f addFlags) (registry.Registration, error) {
	ctx := cmd.Context()
	if cmd.Flags().NFlag() == 0 && personaWizard != nil && isTerminal(cmd.InOrStdin()) {
		return personaWizard(cmd, r)
	}
	var missing []string
	for _, m := range []struct{ flag, v string }{{"--scope", f.scope}, {"--role", f.role}, {"--name", f.name}} {
		if m.v == "" {
			missing = append(missing, m.flag)
		}
	}
	if len(missing) > 0 {
		why := ""
		if personaWizard != nil && cmd.Flags().NFlag() == 0 {
			why = " (the interactive wizard needs a terminal)"
		}
		return registry.Registration{}, fmt.Errorf("persona add needs %s%s; %s",
			strings.Join(missing, ", "), why, addExample(ctx, r, f))
	}
	addr := f.scope + "/" + f.role
	if f.project != "" {
		addr = f.scope + "/" + f.project + "/" + f.role
	}
	return registry.Registration{Address: addr, Name: f.name, Human: f.human, Repository: expandHome(f.repo),
		SessionLineage: f.session, CharacterHash: f.character}, nil
}

// addExample suggests a complete command: root/secretary with the first free
// name on an empty installation (the first-persona default, which belongs
// to persona add alone), otherwise the given flags plus a free name.
func addExample(ctx context.Context, r *registry.Registry, f addFlags) string {
	if addr, name, ok, err := r.FirstPersonaDefault(ctx); err == nil && ok && f.scope == "" && f.role == "" {
		a, _ := registry.ParseAddress(addr)
		return fmt.Sprintf("the first persona is usually %s, e.g. persona add --scope %s --role %s --name %q",
			addr, a.Scope, a.Role, name)
	}
	name := f.name
	if name == "" {
		if free, err := r.SuggestNames(ctx, 1); err == nil {
			name = free[0]
		}
	}
	ex := "e.g. persona add --scope " + orPlaceholder(f.scope, "work")
	if f.project != "" {
		ex += " --project " + f.project
	}
	return ex + " --role " + orPlaceholder(f.role, "coordinator") + fmt.Sprintf(" --name %q", name)
}

func orPlaceholder(v, example string) string {
	if v == "" {
		return example
	}
	return v
}

// expandHome turns a leading ~/ into the user's home, as a shell would have
// had the operator not quoted it.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if h, err := os.UserHomeDir(); err == nil {
			return h + "/" + rest
		}
	}
	return p
}

// isTerminal reports whether r is a character device (an interactive terminal).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func roleList() string {
	names := make([]string, len(registry.Roles))
	for i, r := range registry.Roles {
		names[i] = r.Name
	}
	return strings.Join(names, ", ")
}
