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
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func newPersonaRetireCmd(a *app) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "retire ADDRESS|NAME --reason TEXT",
		Short: "Ask to retire a persona and free its seat (confirmed by its bound human)",
		Long: `Retire the persona at an address (its current holder) or by name. Retirement is
destructive, so it is queued as a confirmation for the persona's bound human and
carried out when they approve it (virgo-tui confirm approve ID); the generation's
token stops working at that moment, and the registry records --reason (with the
approver's note, if any). Asking while a retirement of the generation waits joins
it; after a denial or expiry, asking again queues a new confirmation. A generation
that never got a stamp holds no capability and is retired at once.

Retirement is a durable state change with a reason and a time, never a deletion:
the record and the seat's history stay, the name stays taken, and the persona
never becomes active again. The seat may then be granted to a new generation.`,
		Example: `  virgo-tui persona retire work/core/lead --reason "context exhausted; regranting"
  virgo-tui persona retire Spica --reason "project closed"`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completePersonaRefs(false),
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&reason, "reason", "", "why the persona retires (required, recorded)")
	cmd.MarkFlagRequired("reason")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			res, err := c.RequestRetirement(ctx, args[0], reason)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), retirementView{Persona: res.Persona.Persona, Confirmation: res.Confirmation})
			}
			operator, _, err := a.principal()
			if err != nil {
				return err
			}
			return writeRetirement(cmd.OutOrStdout(), a.name, res, operator)
		})
	}
	return cmd
}

// retirementView is retire's JSON document: the persona (retired, or still
// active while its retirement waits) and the queued confirmation, null when
// the retirement took effect at once.
type retirementView struct {
	Persona      registry.Persona      `json:"persona"`
	Confirmation *confirm.Confirmation `json:"confirmation"`
}

// errRetirementDecided: the hub answered a retirement request with a
// retirement confirmation that is already denied or expired. The hub queues
// a new one for such a generation, so this is only seen when the answer
// raced an expiry; asking again queues a new one.
var errRetirementDecided = errors.New("the retirement the hub answered with is already decided; ask again to queue a new one")

// writeRetirement says what happened: retired at once, queued (or joined:
// a pending retirement of the generation is asked once) and who approves,
// or already retired by an approved retirement.
func writeRetirement(w io.Writer, prog string, res hubapi.Retirement, operator string) error {
	p, c := res.Persona.Persona, res.Confirmation
	if c == nil {
		_, err := fmt.Fprintf(w, "retired %s (%s, generation %d): %s\nthe seat %s is free\n",
			p.Name, p.Address, p.Generation, p.RetireReason, p.Address)
		return err
	}
	switch st := c.StateAt(time.Now()); st {
	case confirm.StatePending:
	case confirm.StateApproved:
		_, err := fmt.Fprintf(w, "%s (%s, generation %d) is already retired: confirmation %s approved by %s (%s)\n",
			p.Name, p.Address, p.Generation, c.ID, c.Decision.Decider, p.RetireReason)
		return err
	default:
		return fmt.Errorf("retire %s (%s, generation %d): %w: confirmation %s is %s",
			p.Name, p.Address, p.Generation, errRetirementDecided, c.ID, st)
	}
	fmt.Fprintf(w, "retirement of %s (%s, generation %d) queued for %s: confirmation %s\n", p.Name, p.Address, p.Generation, p.Human, c.ID)
	if p.Human == operator {
		_, err := fmt.Fprintf(w, "you are the bound human: approve it with\n  %s confirm approve %s\n", prog, c.ID)
		return err
	}
	_, err := fmt.Fprintf(w, "%s approves it with\n  %s confirm approve %s --as %s\n", p.Human, prog, c.ID, p.Human)
	return err
}

func newPersonaNamesCmd(a *app) *cobra.Command {
	var count int
	cmd := &cobra.Command{
		Use:   "names",
		Short: "Suggest free Virgo-constellation names",
		Long: `Print free persona names from the Virgo constellation, first one first. Names
in use or retired (in any case) are skipped; after the list come "Spica II",
"Porrima II", and so on.`,
		Example: `  virgo-tui persona names
  virgo-tui persona names --count 1
  virgo-tui persona names -o json`,
		Args: cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.Flags().IntVarP(&count, "count", "n", 5, "how many names to print")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if count < 1 {
			return fmt.Errorf("--count %d: %w", count, registry.ErrInvalidCount)
		}
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			names, err := c.SuggestNames(ctx, count)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), names)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), strings.Join(names, "\n"))
			return err
		})
	}
	return cmd
}
