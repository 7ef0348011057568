package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
	"github.com/virgo-hub/virgo-tui/internal/ui/wizard"
)

func init() { subcommands = append(subcommands, newPersonaCmd) }

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
		newPersonaRetireCmd(a), newPersonaNamesCmd(a), newPersonaSnapshotCmd(a))
	return cmd
}

// addFlags are persona add's flags, in the path order the spec asks them.
type addFlags struct {
	scope, project, role, name      string
	human, repo, session, character string
	surfaces                        []string
}

func newPersonaAddCmd(a *app) *cobra.Command {
	var f addFlags
	cmd := &cobra.Command{
		Use:   "add --scope S [--project P] --role R --name N",
		Short: "Register a persona at an address",
		Long: `Register a persona generation at scope/[project/]role under a for-life name.
The seat must be free (its last holder retired) and the name never used
before, in any case. Run "persona names" for free constellation names.

The generation is created pending, with its capability stamp written, and its
activation is queued as a confirmation for the bound human, showing the
class-matrix diff against the seat's previous generation. It becomes active
only when that human approves: virgo-tui confirm approve ID. Regranting a
retired seat is the same command.

With no flags on a terminal, an interactive wizard asks for the address and
name, previews the stamp and its diff, and submits.`,
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
	fl.StringVar(&f.human, "human", "", "bound human authority human:<name> (default: you, the acting principal)")
	fl.StringVar(&f.repo, "repo", "", "bind an existing repository directory")
	fl.StringVar(&f.session, "session", "", "native session lineage id (default: generated)")
	fl.StringVar(&f.character, "character", "", "character composition hash (default: derived)")
	fl.StringArrayVar(&f.surfaces, "surface", nil, "human-surface binding virgo-channel=human:NAME for the stamp (repeatable)")
	a.completeAddFlags(cmd, &f)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			if !addFlagsGiven(cmd) && isTerminal(cmd.InOrStdin()) {
				return a.runAddWizard(ctx, cmd.ErrOrStderr(), c)
			}
			req, err := a.registrationFor(ctx, cmd, c, f)
			if err != nil {
				return err
			}
			res, err := c.Register(ctx, req)
			if err != nil {
				return err
			}
			if res.Confirmation == nil {
				return fmt.Errorf("register %s: %w", res.Persona.Address, errNoActivation)
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			operator, _, err := a.principal()
			if err != nil {
				return err
			}
			return writeRegistered(cmd.OutOrStdout(), a.name, res, operator)
		})
	}
	return cmd
}

// errNoActivation: the hub registered a generation but queued no activation.
var errNoActivation = errors.New("the hub queued no activation confirmation; see virgo-tui confirm list")

// writeRegistered prints the pending persona, its stamp, the queued
// activation with its class-matrix diff, and how its bound human approves.
func writeRegistered(w io.Writer, prog string, res hubapi.Registered, operator string) error {
	p, c := res.Persona, res.Confirmation
	if err := writePersona(w, outputTable, p, nil, nil); err != nil {
		return err
	}
	fmt.Fprintf(w, "\npending: %s becomes active only when %s approves activation confirmation %s.\n", p.Name, p.Human, c.ID)
	if c.Detail != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.Detail, "\n"))
	}
	if p.Human == operator {
		_, err := fmt.Fprintf(w, "\nyou are %s, the bound human: approve it with\n  %s confirm approve %s\n", operator, prog, c.ID)
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s approves it with\n  %s confirm approve %s --as %s\n", p.Human, prog, c.ID, p.Human)
	return err
}

// runAddWizard runs the interactive registration on the terminal, with the
// console's keys (<home>/keys.json).
func (a *app) runAddWizard(ctx context.Context, w io.Writer, c *hubclient.Client) error {
	home, err := a.home()
	if err != nil {
		return err
	}
	keys, err := keymap.Load(filepath.Join(home.Dir, keymap.FileName))
	if err != nil {
		return err
	}
	res, err := wizard.Run(ctx, wizardBackend{c}, wizard.Options{Keys: &keys})
	if err != nil {
		return err
	}
	switch {
	case res.Submitted == nil:
		_, err = fmt.Fprintln(w, "persona add: cancelled; nothing was registered")
	case res.Approved:
		_, err = fmt.Fprintf(w, "%s: %s is active (activation %s approved)\n", res.Registration.Address, res.Registration.Name, res.Submitted.ConfirmationID)
	default:
		_, err = fmt.Fprintf(w, "%s: %s is pending; its bound human approves it with\n  %s confirm approve %s\n",
			res.Registration.Address, res.Registration.Name, a.name, res.Submitted.ConfirmationID)
	}
	return err
}

// registrationFor turns the flags into a registration request, naming the
// missing flags with a typed-out example.
func (a *app) registrationFor(ctx context.Context, cmd *cobra.Command, c *hubclient.Client, f addFlags) (hubapi.RegisterRequest, error) {
	var missing []string
	for _, m := range []struct{ flag, v string }{{"--scope", f.scope}, {"--role", f.role}, {"--name", f.name}} {
		if m.v == "" {
			missing = append(missing, m.flag)
		}
	}
	if len(missing) > 0 {
		why := ""
		if !addFlagsGiven(cmd) {
			why = " (without flags it runs an interactive wizard, which needs a terminal)"
		}
		return hubapi.RegisterRequest{}, fmt.Errorf("persona add needs %s%s; %s",
			strings.Join(missing, ", "), why, addExample(ctx, c, f))
	}
	addr := f.scope + "/" + f.role
	if f.project != "" {
		addr = f.scope + "/" + f.project + "/" + f.role
	}
	human := f.human
	if human == "" {
		op, isHuman, err := a.principal()
		if err != nil {
			return hubapi.RegisterRequest{}, err
		}
		if isHuman {
			human = op
		}
	}
	req := hubapi.RegisterRequest{Address: addr, Name: f.name, Human: human, Repository: expandHome(f.repo),
		SessionLineage: f.session, CharacterHash: f.character}
	surfaces, err := parseSurfaces(f.surfaces)
	req.HumanSurfaces = surfaces
	return req, err
}

// parseSurfaces reads --surface flags, virgo-channel=human:<name>, and
// refuses any other binding by its grammar (stamp.CheckSurfaceBinding)
// before anything is sent. A refusal never repeats the flag's value: a
// pasted tenant secret must not reach a terminal or a log.
func parseSurfaces(flags []string) ([]stamp.SurfaceBinding, error) {
	var out []stamp.SurfaceBinding
	for i, sv := range flags {
		surface, target, _ := strings.Cut(sv, "=")
		b := stamp.SurfaceBinding{Surface: surface, Target: target}
		if err := stamp.CheckSurfaceBinding(b); err != nil {
			return nil, fmt.Errorf("--surface (binding %d) [%s]: %w", i+1, stamp.RuleSurfaceGrammar, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// addFlagsGiven reports whether persona add got any of its own flags (the
// global --home and --as do not count): without any, a terminal gets the wizard.
func addFlagsGiven(cmd *cobra.Command) bool { return cmd.LocalNonPersistentFlags().NFlag() > 0 }

// addExample suggests a complete command: root/secretary with the first free
// name on an empty installation (the first-persona default, which belongs
// to persona add alone), otherwise the given flags plus a free name.
func addExample(ctx context.Context, c *hubclient.Client, f addFlags) string {
	free, _ := c.SuggestNames(ctx, 1)
	name := f.name
	if name == "" && len(free) > 0 {
		name = free[0]
	}
	if f.scope == "" && f.role == "" {
		if all, err := c.Personas(ctx, true); err == nil && len(all) == 0 {
			return fmt.Sprintf("the first persona is usually root/secretary, e.g. persona add --scope root --role secretary --name %q", name)
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

// isTerminal reports whether r is an interactive terminal (not merely a
// character device: /dev/null is one too).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

func roleList() string {
	names := make([]string, len(registry.Roles))
	for i, r := range registry.Roles {
		names[i] = r.Name
	}
	return strings.Join(names, ", ")
}
