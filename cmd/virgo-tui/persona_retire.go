package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func newPersonaRetireCmd(a *app) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "retire ADDRESS|NAME --reason TEXT",
		Short: "Retire a persona and free its seat",
		Long: `Retire the persona at an address (its current holder) or by name. Retirement is
a durable state change with a reason and a time, never a deletion: the record
and the seat's history stay, the name stays taken, and the persona never
becomes active again. The seat may then be granted to a new generation.`,
		Example: `  virgo-tui persona retire work/core/lead --reason "context exhausted; regranting"
  virgo-tui persona retire Spica --reason "project closed"`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completePersonaRefs(false),
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&reason, "reason", "", "why the persona retires (required, recorded)")
	cmd.MarkFlagRequired("reason")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.withRegistry(cmd.Context(), func(ctx context.Context, r *registry.Registry) error {
			p, err := r.Retire(ctx, args[0], reason)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), p)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "retired %s (%s, generation %d): %s\nthe seat %s is free\n",
				p.Name, p.Address, p.Generation, p.RetireReason, p.Address)
			return err
		})
	}
	return cmd
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
		return a.withRegistry(cmd.Context(), func(ctx context.Context, r *registry.Registry) error {
			names, err := r.SuggestNames(ctx, count)
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
