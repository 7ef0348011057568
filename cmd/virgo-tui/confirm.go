package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func init() {
	subcommands = append(subcommands, newConfirmCmd, newPromptsCmd, newAuditCmd)
}

// withQueue opens the installation's store once for a command and runs fn
// with the confirmation queue and the registry over it. The expiry of new
// confirmations is $VIRGO_CONFIRM_TTL (a Go duration), default one hour.
func (a *app) withQueue(ctx context.Context, fn func(context.Context, *confirm.Queue, *registry.Registry) error) (err error) {
	ttl := confirm.DefaultTTL
	if v := os.Getenv("VIRGO_CONFIRM_TTL"); v != "" {
		if ttl, err = time.ParseDuration(v); err != nil || ttl <= 0 {
			return fmt.Errorf("VIRGO_CONFIRM_TTL=%q: want a positive duration such as 30m or 2h", v)
		}
	}
	home, err := registry.ResolveHome(a.homeFlag)
	if err != nil {
		return err
	}
	s, err := openStore(home)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.Close()) }()
	r := registry.New(s, home)
	return fn(ctx, confirm.NewQueue(s, confirm.QueueOptions{TTL: ttl, Seats: seatHolders{r}}), r)
}

// seatHolders answers the queue's "who holds this seat now" from the registry.
type seatHolders struct{ r *registry.Registry }

func (s seatHolders) ActiveHolder(ctx context.Context, addr string) (string, bool, error) {
	p, err := s.r.Resolve(ctx, addr)
	if errors.Is(err, registry.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if p.State != registry.StateActive {
		return "", false, nil
	}
	return fmt.Sprintf("%s (generation %d)", p.Name, p.Generation), true, nil
}

// lifecycle carries out decided activations and retirements in the registry.
type lifecycle struct{ r *registry.Registry }

func (l lifecycle) Activate(ctx context.Context, id string) error {
	_, err := l.r.Activate(ctx, id)
	return err
}

func (l lifecycle) Refuse(ctx context.Context, id, reason string) error {
	_, err := l.r.Refuse(ctx, id, reason)
	return err
}

// Retire retires the generation by its for-life name: the registry
// resolves an address to the seat's current holder, which may be a later
// generation than the one whose retirement was confirmed.
func (l lifecycle) Retire(ctx context.Context, id, reason string) error {
	p, err := l.r.Get(ctx, id)
	if err != nil {
		return err
	}
	_, err = l.r.Retire(ctx, p.Name, reason)
	return err
}

func newConfirmCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "confirm",
		Short: "Request, list and decide confirmations",
		Long: `Confirmations are operations a persona's stamp routes to an authority: the bound human
for the global boundaries (credential or permission changes, destructive operations,
external publication or deployment), the owning lead for a deputy acting outside its
assigned task. A decision is committed durably, with its audit entry, before anyone
is told to execute. Nobody decides their own request; a persona never decides a
global-boundary confirmation; only the routed authority decides; a decision is
final; a pending confirmation expires ($VIRGO_CONFIRM_TTL, default 1h) and then
counts as denied.

The acting principal is --as or $VIRGO_PRINCIPAL: human:<name> or a persona address.`,
	}
	cmd.AddCommand(newConfirmRequestCmd(a), newConfirmListCmd(a), newConfirmShowCmd(a),
		newConfirmDecideCmd(a, true), newConfirmDecideCmd(a, false))
	return cmd
}

func newConfirmRequestCmd(a *app) *cobra.Command {
	var f opFlags
	var corr, as string
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
	cmd.Flags().StringVar(&as, "as", "", "acting principal (default $VIRGO_PRINCIPAL)")
	cmd.MarkFlagRequired("correlation-id")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		caller, err := actingPrincipal(as)
		if err != nil {
			return err
		}
		request := func() (res confirm.Result, err error) {
			err = a.withQueue(cmd.Context(), func(ctx context.Context, q *confirm.Queue, r *registry.Registry) error {
				p, o, err := operationFor(ctx, q, r, f)
				if err != nil {
					return err
				}
				res, err = q.Request(ctx, caller, p, o, corr)
				return err
			})
			return res, err
		}
		res, err := request()
		deadline := time.Now().Add(wait)
		// Poll with the store closed in between: without a hub, the one
		// process holding the database would lock the approver out.
		for err == nil && res.Status == confirm.StatusUnknown && time.Now().Before(deadline) {
			select {
			case <-cmd.Context().Done():
				return cmd.Context().Err()
			case <-time.After(min(time.Second, time.Until(deadline))):
			}
			res, err = request()
		}
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
		return a.withQueue(cmd.Context(), func(ctx context.Context, q *confirm.Queue, _ *registry.Registry) error {
			if _, err := q.Sweep(ctx); err != nil {
				return err
			}
			list, err := q.List(ctx, all)
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
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s %s %s\t%s\t%s\n", c.ID, c.State, c.Boundary, c.Operation.Persona,
					c.Operation.Tool, c.Operation.Shape, c.Operation.Target, authority, c.ExpiresAt.Local().Format(time.DateTime))
			}
			return tw.Flush()
		})
	}
	return cmd
}

func newConfirmShowCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "show ID",
		Short:   "Show one confirmation, its routing and its decision record",
		Example: "  virgo-tui confirm show c-1a2b3c4d5e6f -o json",
		Args:    cobra.ExactArgs(1),
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.withQueue(cmd.Context(), func(ctx context.Context, q *confirm.Queue, _ *registry.Registry) error {
			c, err := q.Get(ctx, args[0])
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), c)
			}
			return writeConfirmation(cmd.OutOrStdout(), c)
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
	var as, reason string
	var remember, class bool
	cmd := &cobra.Command{
		Use:   "approve ID [--remember [--class]]",
		Short: "Approve a confirmation routed to you",
		Long: `Approve a pending confirmation. The decision is committed and synced, with its audit
entry, before this command returns. --remember stores the decision in the prompt
registry for exactly this operation (stamp hash, handler action, target, shape), in the
persona's experience layer, or with --class in its class overlay. An approved persona
activation activates the generation; an approved retirement retires the persona.`,
		Example: "  virgo-tui confirm approve c-1a2b3c4d5e6f --as human:henry\n  VIRGO_PRINCIPAL=human:henry virgo-tui confirm approve c-1a2b3c4d5e6f --remember",
		Args:    cobra.ExactArgs(1),
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
	cmd.Flags().StringVar(&as, "as", "", "acting principal (default $VIRGO_PRINCIPAL)")
	cmd.Flags().BoolVar(&remember, "remember", false, "remember this decision for exactly this operation")
	cmd.Flags().BoolVar(&class, "class", false, "with --remember: keep it in the class overlay (class-common)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		who, err := actingPrincipal(as)
		if err != nil {
			return err
		}
		where := confirm.RememberNone
		switch {
		case class && !remember:
			return errors.New("--class needs --remember")
		case class:
			where = confirm.RememberClass
		case remember:
			where = confirm.RememberPersona
		}
		return a.withQueue(cmd.Context(), func(ctx context.Context, q *confirm.Queue, r *registry.Registry) error {
			c, err := q.Decide(ctx, who, args[0], approve, where, reason)
			if err != nil {
				return err
			}
			if err := confirm.ApplyLifecycle(ctx, c, lifecycle{r}); err != nil {
				return fmt.Errorf("%s is %s, but the registry did not follow: %w", c.ID, c.State, err)
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), c)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s %s: %s (decision committed)\n", c.State, c.ID, c.Operation)
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
		return a.withQueue(cmd.Context(), func(ctx context.Context, q *confirm.Queue, r *registry.Registry) error {
			var choices []confirm.Choice
			current := map[string]string{}
			if persona != "" {
				p, err := r.Resolve(ctx, persona)
				if err != nil {
					return err
				}
				current[p.Address] = p.StampHash
				choices, err = q.Prompts().List(ctx, p.Address, string(p.Profile))
				if err != nil {
					return err
				}
			} else {
				var err error
				if choices, err = q.Prompts().All(ctx); err != nil {
					return err
				}
			}
			return writeChoices(cmd.OutOrStdout(), *out, choices, current)
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
	var persona, as string
	var carry, drop []string
	cmd := &cobra.Command{
		Use:   "review --persona ADDRESS|NAME [--carry-forward ID]... [--drop ID]...",
		Short: "List a persona's stale choices; carry each forward to its new stamp or drop it",
		Long: `A choice learned under an older stamp of the persona no longer matches. Review lists
those; a human (--as) carries each forward to the current stamp hash or drops it.`,
		Example: `  virgo-tui prompts review --persona work/core/lead
  virgo-tui prompts review --persona work/core/lead --as human:henry --carry-forward 3f2a… --drop 91bc…`,
		Args: cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&persona, "persona", "", "persona ADDRESS or NAME (required)")
	cmd.Flags().StringVar(&as, "as", "", "acting principal (default $VIRGO_PRINCIPAL)")
	cmd.Flags().StringArrayVar(&carry, "carry-forward", nil, "re-key the stale choice ID to the current stamp (repeatable)")
	cmd.Flags().StringArrayVar(&drop, "drop", nil, "remove the stale choice ID (repeatable)")
	cmd.MarkFlagRequired("persona")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withQueue(cmd.Context(), func(ctx context.Context, q *confirm.Queue, r *registry.Registry) error {
			p, err := r.Resolve(ctx, persona)
			if err != nil {
				return err
			}
			stale, err := q.Prompts().Review(ctx, p.Address, string(p.Profile), p.StampHash)
			if err != nil {
				return err
			}
			if len(carry)+len(drop) > 0 {
				who, err := actingPrincipal(as)
				if err != nil {
					return err
				}
				if stale, err = resolveStale(ctx, q.Prompts(), who, p.StampHash, stale, carry, drop); err != nil {
					return err
				}
			}
			return writeChoices(cmd.OutOrStdout(), *out, stale, map[string]string{p.Address: p.StampHash})
		})
	}
	return cmd
}

// resolveStale carries forward and drops the named stale choices and
// returns those still stale.
func resolveStale(ctx context.Context, reg *confirm.Prompts, who confirm.Principal, hash string, stale []confirm.Choice, carry, drop []string) ([]confirm.Choice, error) {
	byID := map[string]confirm.Choice{}
	for _, c := range stale {
		byID[c.ID()] = c
	}
	for _, id := range append(append([]string{}, carry...), drop...) {
		if _, ok := byID[id]; !ok {
			return nil, fmt.Errorf("choice %s: %w among the stale choices", id, confirm.ErrNoChoice)
		}
	}
	for _, id := range carry {
		if _, err := reg.CarryForward(ctx, who, byID[id], hash); err != nil {
			return nil, err
		}
		delete(byID, id)
	}
	for _, id := range drop {
		if err := reg.Drop(ctx, who, byID[id], hash); err != nil {
			return nil, err
		}
		delete(byID, id)
	}
	var left []confirm.Choice
	for _, c := range stale {
		if _, ok := byID[c.ID()]; ok {
			left = append(left, c)
		}
	}
	return left, nil
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
		return a.withQueue(cmd.Context(), func(ctx context.Context, q *confirm.Queue, _ *registry.Registry) error {
			entries, err := q.Audit(ctx)
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
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.Local().Format(time.DateTime), e.Event,
					e.ConfirmationID, e.Actor, e.Boundary, e.Operation, e.Reason)
			}
			return tw.Flush()
		})
	}
	return cmd
}
