package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Exit statuses of authorize and confirm request: 0 is allow, 1 an error.
const (
	// exitConfirm: the operation needs a routed authority's confirmation
	// (confirm request: the decision is not known yet).
	exitConfirm = 3
	// exitDeny: the operation is denied.
	exitDeny = 4
)

func init() { subcommands = append(subcommands, newAuthorizeCmd) }

// opFlags are the flags naming one operation of a persona.
type opFlags struct {
	persona  string
	tool     string
	target   string
	shape    string
	assigned []string
}

func addOpFlags(cmd *cobra.Command, f *opFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.persona, "persona", "", "persona ADDRESS or NAME whose stamp the operation runs under")
	fl.StringVar(&f.tool, "tool", "", "tool name on the stamp, e.g. workspace_write")
	fl.StringVar(&f.target, "target", "", "target KIND:VALUE, e.g. path:memory/notes.md, run:work/core/t-1/r-2, external:https://…")
	fl.StringVar(&f.shape, "shape", "", "operation shape: "+shapeList())
	fl.StringArrayVar(&f.assigned, "assigned", nil, "task id assigned to the persona (deputy scope; repeatable)")
	for _, name := range []string{"persona", "tool", "target", "shape"} {
		cmd.MarkFlagRequired(name)
	}
	cmd.RegisterFlagCompletionFunc("shape", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return strings.Split(shapeList(), ", "), cobra.ShellCompDirectiveNoFileComp
	})
}

func shapeList() string {
	var s []string
	for _, sh := range confirm.Shapes() {
		s = append(s, string(sh))
	}
	return strings.Join(s, ", ")
}

func newAuthorizeCmd(a *app) *cobra.Command {
	var f opFlags
	cmd := &cobra.Command{
		Use:   "authorize --persona ADDRESS --tool NAME --target KIND:VALUE --shape SHAPE",
		Short: "Print the handler's decision for one operation of a persona",
		Long: `Decide one operation under the persona's capability stamp, as the handler does, and
print the verdict and the boundary that decided it. Nothing is queued or executed.

Exit status: 0 allow, 3 confirm (a routed authority must decide), 4 deny, 1 error.

Targets (normalized strictly; '..', absolute paths, backslashes, percent-encoding,
non-ASCII look-alikes and upper-case addresses are refused):
  path:REL  path@repository:REL  path@OTHER-WORKSPACE:REL  address:SCOPE/[PROJECT/]ROLE
  task:SCOPE/PROJECT/TASK  run:SCOPE/PROJECT/TASK/RUN  decision:SCOPE/PROJECT/ID
  surface:SURFACE/TARGET  external:https://HOST/PATH`,
		Example: `  virgo-tui authorize --persona work/core/lead --tool workspace_write --target path:memory/today.md --shape write:create
  virgo-tui authorize --persona work/core/deputy --tool get_run --target run:work/core/t-9/r-1 --shape read:meta -o json
  virgo-tui authorize --persona root/secretary --tool publish_deployment_v1 --target external:https://example.org/r --shape deploy`,
		Args: cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	addOpFlags(cmd, &f)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withQueue(cmd.Context(), func(ctx context.Context, q *confirm.Queue, r *registry.Registry) error {
			p, o, err := operationFor(ctx, q, r, f)
			var refused *targetRefused
			if errors.As(err, &refused) {
				p, o, err = refused.policy, refused.op, nil
			}
			if err != nil {
				return err
			}
			var d confirm.Decision
			if refused != nil {
				d = confirm.TargetRefusal(refused.err)
			} else {
				d = p.Authorize(o)
			}
			if *out == outputJSON {
				err = writeJSON(cmd.OutOrStdout(), map[string]any{"operation": o, "decision": d, "route": d.Route(),
					"boundary_text": d.Boundary.Info().Text, "stamp_hash": p.Hash()})
			} else {
				_, err = fmt.Fprintln(cmd.OutOrStdout(), d)
			}
			if err != nil {
				return err
			}
			return verdictExit(d.Verdict)
		})
	}
	return cmd
}

// verdictExit is nil for allow and an exitError for confirm and deny.
func verdictExit(v confirm.Verdict) error {
	switch v {
	case confirm.Confirm:
		return &exitError{code: exitConfirm, err: errors.New("confirmation required")}
	case confirm.Deny:
		return &exitError{code: exitDeny, err: errors.New("denied")}
	}
	return nil
}

// operationFor loads the persona's stamp (checked against its recorded
// hash), indexes it with the learned choices of that hash, and builds the
// normalized operation of the flags.
func operationFor(ctx context.Context, q *confirm.Queue, r *registry.Registry, f opFlags) (*confirm.Policy, confirm.Operation, error) {
	persona, st, err := personaStamp(ctx, r, f.persona)
	if err != nil {
		return nil, confirm.Operation{}, err
	}
	learned, err := q.Prompts().Active(ctx, st.Path.Address, st.Path.Profile, persona.StampHash)
	if err != nil {
		return nil, confirm.Operation{}, err
	}
	tasks := assignedTasks{}
	for _, t := range f.assigned {
		tasks[t] = true
	}
	p, err := confirm.NewPolicy(&st, persona.StampHash, confirm.Options{Learned: learned, Assignments: tasks})
	if err != nil {
		return nil, confirm.Operation{}, err
	}
	shape, err := confirm.ParseShape(f.shape)
	if err != nil {
		return nil, confirm.Operation{}, fmt.Errorf("%w: use one of %s", err, shapeList())
	}
	action, _ := p.Tool(f.tool) // a tool not on the stamp is denied "not exposed"
	o := confirm.Operation{Persona: st.Path.Address, Generation: st.Persona.Generation, Tool: f.tool,
		HandlerAction: action, Shape: shape}
	if o.Target, err = confirm.ParseTarget(f.target); err != nil {
		return p, o, &targetRefused{policy: p, op: o, err: err}
	}
	return p, o, nil
}

// targetRefused is a target normalization refused: authorize reports it as
// a deny (confirm.TargetRefusal), confirm request as an error.
type targetRefused struct {
	policy *confirm.Policy
	op     confirm.Operation
	err    error
}

func (e *targetRefused) Error() string { return e.err.Error() }
func (e *targetRefused) Unwrap() error { return e.err }

// assignedTasks is the --assigned flag as confirm.Assignments.
type assignedTasks map[string]bool

func (a assignedTasks) IsAssigned(_, task string) bool { return a[task] }

// personaStamp resolves a persona reference and loads its generation's
// stamp, refused unless the file still has the hash its record holds.
func personaStamp(ctx context.Context, r *registry.Registry, ref string) (registry.Persona, stamp.Stamp, error) {
	p, err := r.Resolve(ctx, ref)
	if err != nil {
		return p, stamp.Stamp{}, err
	}
	if p.StampHash == "" {
		return p, stamp.Stamp{}, fmt.Errorf("%s (%s) has no stamp yet: run virgo-tui stamp build %s", p.Address, p.Name, p.Address)
	}
	st, err := stamp.Load(filepath.Join(r.Home().GenerationDir(p.ID), stamp.FileName), p.StampHash)
	return p, st, err
}

// actingPrincipal is who acts: --as, else $VIRGO_PRINCIPAL. The hub will
// bind this to a token; until then it is the operator's word.
func actingPrincipal(as string) (confirm.Principal, error) {
	if as == "" {
		as = os.Getenv("VIRGO_PRINCIPAL")
	}
	if as == "" {
		return confirm.Principal{}, errors.New("who is acting? pass --as human:<name> (or a persona address) or set VIRGO_PRINCIPAL")
	}
	return confirm.ParsePrincipal(as)
}
