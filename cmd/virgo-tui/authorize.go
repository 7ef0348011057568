package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
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
	persona string
	tool    string
	target  string
	shape   string
}

// request is the operation as the hub's API takes it.
func (f opFlags) request() hubapi.OperationRequest {
	return hubapi.OperationRequest{Persona: f.persona, Tool: f.tool, Target: f.target, Shape: f.shape}
}

func addOpFlags(cmd *cobra.Command, f *opFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.persona, "persona", "", "persona ADDRESS or NAME whose stamp the operation runs under")
	fl.StringVar(&f.tool, "tool", "", "tool name on the stamp, e.g. workspace_write")
	fl.StringVar(&f.target, "target", "", "target KIND:VALUE, e.g. path:memory/notes.md, run:work/core/t-1/r-2, external:https://…")
	fl.StringVar(&f.shape, "shape", "", "operation shape: "+shapeList())
	for _, name := range []string{"persona", "tool", "target", "shape"} {
		cmd.MarkFlagRequired(name)
	}
	cmd.RegisterFlagCompletionFunc("shape", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return strings.Split(shapeList(), ", "), cobra.ShellCompDirectiveNoFileComp
	})
}

func shapeList() string {
	var s []string
	for _, sh := range stamp.Shapes() {
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
print the verdict and the boundary that decided it. The hub decides and this command
only prints its answer (with -o json: the normalized operation, the decision, its
route, the boundary's text and the stamp hash). Nothing is queued or executed.

Exit status: 0 allow, 3 confirm (a routed authority must decide), 4 deny, 1 error
(a malformed target or shape among them: it is refused, not decided).

A coder-deputy's runs and tasks are judged against the tasks its owning lead
recorded (virgo-tui confirm assign); outside them the verdict is confirm, routed
to the lead.

Targets (normalized strictly; '..', absolute paths, backslashes, percent-encoding,
non-ASCII look-alikes and upper-case addresses are denied as cross-workspace attempts):
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
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			res, err := c.Authorize(ctx, f.request())
			if err != nil {
				return err
			}
			if *out == outputJSON {
				err = writeJSON(cmd.OutOrStdout(), res)
			} else {
				_, err = fmt.Fprintln(cmd.OutOrStdout(), res.Decision)
			}
			if err != nil {
				return err
			}
			return verdictExit(res.Decision.Verdict)
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
