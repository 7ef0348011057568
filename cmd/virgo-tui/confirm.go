package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

func init() {
	subcommands = append(subcommands, newConfirmCmd, newPromptsCmd, newAuditCmd)
}

func newConfirmCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "confirm",
		Short: "Request, list and decide confirmations",
		Long: `Confirmations are operations a persona's stamp routes to an authority: the bound human
for the global boundaries (credential or permission changes, destructive operations,
external publication or deployment), the owning lead for a deputy acting outside its
assigned tasks (which the lead records with confirm assign). A decision is committed durably, with its audit entry, before anyone
is told to execute. Nobody decides their own request; a persona never decides a
global-boundary confirmation; only the routed authority decides; a decision is
final; a pending confirmation expires (serve --confirm-ttl, else $VIRGO_CONFIRM_TTL, default 1h) and
then counts as denied.

Every confirm command goes through the hub (one is started in this process when
none runs). The acting principal is --as or $VIRGO_PRINCIPAL: human:<name> (default
human:$USER) or a persona address, which acts with its active generation's token.`,
	}
	cmd.AddCommand(newConfirmRequestCmd(a), newConfirmListCmd(a), newConfirmShowCmd(a),
		newConfirmDecideCmd(a, true), newConfirmDecideCmd(a, false), newConfirmAssignCmd(a), newConfirmAssignmentsCmd(a))
	return cmd
}

func newConfirmRequestCmd(a *app) *cobra.Command {
	var f opFlags
	var corr string
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "request --persona ADDRESS --tool NAME --target KIND:VALUE --shape SHAPE --correlation-id ID",
		Short: "Ask for an operation: allowed, denied, or queued for its authority",
		Long: `Authorize the operation and, when it needs confirmation, queue it for its routed
authority (or join the pending request for the same operation). Retrying with the same
correlation id returns the same result: the final one once decided, "unknown" until then.

Exit status: 0 allowed, 3 unknown (pending; retry with the same id), 4 denied, 1 error.`,
		Example: `  virgo-tui confirm request --as work/core/lead --persona work/core/lead --tool publish_deployment_v1 \
      --target external:https://example.org/release --shape deploy --correlation-id rel-42
  virgo-tui confirm request … --correlation-id rel-42 --wait 10m`,
		Args: cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	addOpFlags(cmd, &f)
	cmd.Flags().StringVar(&corr, "correlation-id", "", "id to retry the request under (required)")
	cmd.Flags().DurationVar(&wait, "wait", 0, "wait up to this long for a decision")
	cmd.MarkFlagRequired("correlation-id")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		req := f.request()
		req.CorrelationID = corr
		var res confirm.Result
		err := a.withClient(ctx, func(ctx context.Context, c *hubclient.Client) (err error) {
			res, err = requestAndWait(ctx, c, req, wait)
			return err
		})
		if err != nil {
			return err
		}
		if err := writeResult(cmd.OutOrStdout(), *out, res); err != nil {
			return err
		}
		switch res.Status {
		case confirm.StatusUnknown:
			return &exitError{code: exitConfirm, err: errors.New("decision unknown (pending); retry with the same --correlation-id")}
		case confirm.StatusDenied:
			return &exitError{code: exitDeny, err: errors.New("denied")}
		}
		return nil
	}
	return cmd
}

// requestAndWait asks for req and, while its confirmation is pending and
// wait lasts, holds on the hub for the decision (GET
// /v1/confirmations/{id}?wait=, each hold at most the hub's
// confirmation_wait limit) on the one client, which keeps the hub it found
// (or started) for the whole wait: no dialling again, and the answer comes
// as the decision commits. A decided confirmation is asked for again under
// the same correlation id, which answers its final result.
func requestAndWait(ctx context.Context, c *hubclient.Client, req hubapi.OperationRequest, wait time.Duration) (confirm.Result, error) {
	res, err := c.RequestConfirmation(ctx, req)
	if err != nil || res.Status != confirm.StatusUnknown || res.Confirmation == nil {
		return res, err
	}
	hold := time.Duration(hubapi.LimitOf("confirmation_wait").Max) * time.Second
	for deadline := time.Now().Add(wait); ; {
		left := time.Until(deadline)
		if left <= 0 {
			return res, nil
		}
		cf, err := c.WaitConfirmation(ctx, res.Confirmation.ID, min(left, hold))
		if err != nil {
			return res, err
		}
		// Past its expiry a confirmation still stored pending counts as
		// expired: the hub answers such a wait at once.
		if cf.StateAt(time.Now()).Terminal() {
			return c.RequestConfirmation(ctx, req)
		}
	}
}

func writeResult(w io.Writer, out outputFormat, res confirm.Result) error {
	if out == outputJSON {
		return writeJSON(w, res)
	}
	c := res.Confirmation
	switch {
	case c == nil:
		fmt.Fprintf(w, "%s: %s\n", res.Status, res.Decision)
		return nil
	case c.Decision != nil:
		fmt.Fprintf(w, "%s: %s by %s\n", res.Status, c.Decision.Decision, c.Decision.Decider)
	case res.Status == confirm.StatusDenied:
		fmt.Fprintf(w, "%s: expired at %s\n", res.Status, c.ExpiresAt.Local().Format(time.DateTime))
	default:
		fmt.Fprintf(w, "%s: %s\n", res.Status, res.Decision)
	}
	return writeConfirmation(w, c)
}

func newConfirmListCmd(a *app) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:     "list [--all]",
		Short:   "List pending confirmations (--all: every one)",
		Example: "  virgo-tui confirm list\n  virgo-tui confirm list --all -o json",
		Args:    cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "include decided and expired confirmations")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			list, err := c.Confirmations(ctx, all)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				if list == nil {
					list = []*confirm.Confirmation{}
				}
				return writeJSON(cmd.OutOrStdout(), list)
			}
			tw := newTable(cmd.OutOrStdout())
			fmt.Fprintln(tw, "ID\tSTATE\tBOUNDARY\tPERSONA\tOPERATION\tAUTHORITY\tEXPIRES")
			for _, c := range list {
				authority := c.Authority.String()
				if c.Unroutable {
					authority = "unroutable (" + c.AuthorityBinding + ")"
				}
				op := strings.Join(append([]string{c.Operation.Tool, string(c.Operation.Shape), c.Operation.Target.String()},
					c.Operation.ArgumentLines()...), " ")
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, c.State, c.Boundary, c.Operation.Persona,
					op, authority, c.ExpiresAt.Local().Format(time.DateTime))
			}
			return tw.Flush()
		})
	}
	return cmd
}

func newConfirmShowCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:               "show ID",
		Short:             "Show one confirmation, its routing and its decision record",
		Example:           "  virgo-tui confirm show c-1a2b3c4d5e6f -o json",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeConfirmationIDs(true),
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			cf, err := c.Confirmation(ctx, args[0])
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), cf)
			}
			return writeConfirmation(cmd.OutOrStdout(), cf)
		})
	}
	return cmd
}

// writeConfirmation prints a confirmation for an operator.
func writeConfirmation(w io.Writer, c *confirm.Confirmation) error {
	tw := newTable(w)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	row("id", c.ID)
	row("state", string(c.StateAt(time.Now())))
	row("kind", string(c.Kind))
	row("boundary", c.Boundary.String()+": "+c.Boundary.Info().Text)
	row("reason", c.Reason)
	row("operation", c.Operation.String())
	for _, a := range c.Operation.Arguments {
		// Every bound argument whole: the approval binds exactly these.
		for i, l := range strings.Split(a.Value, "\n") {
			k := "  " + a.Name
			if i > 0 {
				k = ""
			}
			fmt.Fprintf(tw, "%s\t%s\n", termtext.Clean(k), termtext.Clean(l))
		}
	}
	row("requester", c.Requester.String())
	row("authority", c.Authority.String())
	row("binding", c.AuthorityBinding)
	if c.Unroutable {
		row("unroutable", "the authority seat is empty; it stays pending and is not re-routed")
	}
	row("stamp hash", c.StampHash)
	row("correlation", c.CorrelationID)
	row("created", c.CreatedAt.Local().Format(time.DateTime))
	row("expires", c.ExpiresAt.Local().Format(time.DateTime))
	if d := c.Decision; d != nil {
		row("decision", fmt.Sprintf("%s by %s at %s", d.Decision, d.Decider, d.Time.Local().Format(time.DateTime)))
		row("decision reason", d.Reason)
		row("remembered", string(d.Remember))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if c.Detail != "" {
		_, err := fmt.Fprintf(w, "\n%s\n", c.Detail)
		return err
	}
	return nil
}

func newConfirmDecideCmd(a *app, approve bool) *cobra.Command {
	var reason string
	var remember, class bool
	cmd := &cobra.Command{
		Use:   "approve ID [--remember [--class]]",
		Short: "Approve a confirmation routed to you",
		Long: `Approve a pending confirmation. The decision is committed and synced, with its audit
entry, before this command returns. --remember stores the decision in the prompt
registry for exactly this operation (stamp hash, handler action, target, shape), in the
persona's experience layer, or with --class in its class overlay, keyed by the class key
(the stamp's capability content) and shared by every persona of the class with the same
capabilities. The stored rule is printed.

Only a persona's tool call at a destructive, publication or tool-confirm boundary may be
remembered. --remember is refused, with the reason, for a secretary's or coordinator's
resolve_decision (each relays one decision of its authority), credential or permission
changes, a deputy outside its assigned tasks (assign the task instead), activations and
retirements (docs/authorization.md).

An approved persona activation activates the generation; an approved retirement retires
the persona.`,
		Example:           "  virgo-tui confirm approve c-1a2b3c4d5e6f --as human:henry\n  VIRGO_PRINCIPAL=human:henry virgo-tui confirm approve c-1a2b3c4d5e6f --remember",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeConfirmationIDs(false),
	}
	if !approve {
		cmd.Use = "deny ID --reason TEXT [--remember [--class]]"
		cmd.Short = "Deny a confirmation routed to you, with a reason"
		cmd.Long = `Deny a pending confirmation with a reason the requester reads. With --remember the
exact operation is denied without asking from now on (until the stamp changes). A denied
persona activation refuses the generation.`
		cmd.Example = `  virgo-tui confirm deny c-1a2b3c4d5e6f --reason "not before the release freeze ends" --as human:henry`
		cmd.Flags().StringVar(&reason, "reason", "", "why (required, shown to the requester)")
		cmd.MarkFlagRequired("reason")
	}
	out := addOutputFlag(cmd)
	cmd.Flags().BoolVar(&remember, "remember", false, "remember this decision for exactly this operation")
	cmd.Flags().BoolVar(&class, "class", false, "with --remember: keep it in the class overlay (class-common)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		where := confirm.RememberNone
		switch {
		case class && !remember:
			return errors.New("--class needs --remember")
		case class:
			where = confirm.RememberClass
		case remember:
			where = confirm.RememberPersona
		}
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			cf, err := c.Decide(ctx, args[0], hubapi.DecideRequest{Approve: approve, Remember: where, Reason: reason})
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), cf)
			}
			if _, err = fmt.Fprintf(cmd.OutOrStdout(), "%s %s: %s (decision committed)\n", cf.State, cf.ID, cf.Operation); err != nil {
				return err
			}
			if where == confirm.RememberNone {
				return nil
			}
			rule, err := cf.RememberRuleIn(where) // the hub stored exactly this rule with the decision
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "remembered: %s\n", rule)
			return err
		})
	}
	return cmd
}

func newPromptsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prompts",
		Short: "The prompt registry: learned exact decisions",
		Long: `A learned choice is a remembered approval or denial of exactly one operation, keyed by
stamp hash, handler action, normalized target and operation shape. It applies only
where the stamp asks for confirmation: it never turns a denial into an allow nor exposes
a tool. A new stamp makes a persona's choices stale until a human reviews them.`,
	}
	cmd.AddCommand(newPromptsListCmd(a), newPromptsReviewCmd(a))
	return cmd
}

func newPromptsListCmd(a *app) *cobra.Command {
	var persona string
	cmd := &cobra.Command{
		Use:     "list [--persona ADDRESS|NAME]",
		Short:   "List learned choices (of one persona, or all)",
		Example: "  virgo-tui prompts list\n  virgo-tui prompts list --persona work/core/lead -o json",
		Args:    cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&persona, "persona", "", "only this persona's choices")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			current := map[string]string{}
			if persona == "" {
				choices, err := c.Prompts(ctx, "", false)
				if err != nil {
					return err
				}
				return writeChoices(cmd.OutOrStdout(), *out, choices, current)
			}
			v, err := c.Persona(ctx, persona)
			if err != nil {
				return err
			}
			current[v.Persona.Address] = v.Persona.StampHash
			active, err := c.Prompts(ctx, persona, false)
			if err != nil {
				return err
			}
			stale, err := c.Prompts(ctx, persona, true)
			if err != nil {
				return err
			}
			return writeChoices(cmd.OutOrStdout(), *out, append(active, stale...), current)
		})
	}
	return cmd
}

// writeChoices prints learned choices; current maps a persona to its stamp
// hash, when known, to mark stale ones.
func writeChoices(w io.Writer, out outputFormat, choices []confirm.Choice, current map[string]string) error {
	if out == outputJSON {
		if choices == nil {
			choices = []confirm.Choice{}
		}
		return writeJSON(w, choices)
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "ID\tVERDICT\tPERSONA\tWHERE\tACTION\tSHAPE\tTARGET\tSTAMP\tDECIDER")
	for _, c := range choices {
		hash := c.Key.StampHash
		if h, ok := current[c.Persona]; ok && h != c.Key.StampHash {
			hash += " (stale)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID(), c.Verdict, c.Persona, c.Where,
			c.Key.HandlerAction, c.Key.Shape, c.Key.Target, hash, c.Decider)
	}
	return tw.Flush()
}

func newPromptsReviewCmd(a *app) *cobra.Command {
	var persona string
	var carry, drop []string
	cmd := &cobra.Command{
		Use:   "review --persona ADDRESS|NAME [--carry-forward ID]... [--drop ID]...",
		Short: "List a persona's stale choices; carry each forward to its new stamp or drop it",
		Long: `A choice learned under an older stamp of the persona no longer matches. Review lists
those; a human (--as human:<name>, the decider recorded) carries each forward to the
current stamp hash or drops it, each with an audit entry. It goes through the hub like
every command, so it works while a hub or a console runs. What is printed is what
is still stale afterwards.`,
		Example: `  virgo-tui prompts review --persona work/core/lead
  virgo-tui prompts review --persona work/core/lead --as human:henry --carry-forward 3f2a… --drop 91bc…`,
		Args: cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&persona, "persona", "", "persona ADDRESS or NAME (required)")
	cmd.Flags().StringArrayVar(&carry, "carry-forward", nil, "re-key the stale choice ID to the current stamp (repeatable)")
	cmd.Flags().StringArrayVar(&drop, "drop", nil, "remove the stale choice ID (repeatable)")
	cmd.MarkFlagRequired("persona")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if len(carry)+len(drop) > 0 {
			ref, human, err := a.principal()
			if err != nil {
				return err
			}
			if !human {
				return fmt.Errorf("%s is a persona: only a human (--as human:<name>) carries forward or drops learned choices", ref)
			}
		}
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			v, err := c.Persona(ctx, persona)
			if err != nil {
				return err
			}
			p := v.Persona
			for _, id := range carry {
				if _, err := c.CarryForwardChoice(ctx, persona, id); err != nil {
					return fmt.Errorf("carry forward %s: %w", id, err)
				}
			}
			for _, id := range drop {
				if _, err := c.DropChoice(ctx, persona, id); err != nil {
					return fmt.Errorf("drop %s: %w", id, err)
				}
			}
			stale, err := c.Prompts(ctx, persona, true)
			if err != nil {
				return err
			}
			return writeChoices(cmd.OutOrStdout(), *out, stale, map[string]string{p.Address: p.StampHash})
		})
	}
	return cmd
}

func newAuditCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Print the audit log of confirmations and learned choices",
		Long: `Every request, join, decision, expiry and prompt-registry review, in commit order. Each
entry was written in the same transaction as the change it records.`,
		Example: "  virgo-tui audit\n  virgo-tui audit -o json",
		Args:    cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			entries, err := c.Audit(ctx, 0)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				if entries == nil {
					entries = []confirm.AuditEntry{}
				}
				return writeJSON(cmd.OutOrStdout(), entries)
			}
			tw := newTable(cmd.OutOrStdout())
			fmt.Fprintln(tw, "TIME\tEVENT\tCONFIRMATION\tACTOR\tBOUNDARY\tOPERATION\tREASON")
			for _, e := range entries {
				actor := e.Actor.String()
				if e.Via != nil {
					actor += " " + e.Via.String() // the SSH console, and the key
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.Local().Format(time.DateTime), e.Event,
					e.ConfirmationID, actor, e.Boundary, e.Operation, e.Reason)
			}
			return tw.Flush()
		})
	}
	return cmd
}
