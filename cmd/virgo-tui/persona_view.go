package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
)

func newPersonaListCmd(a *app) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List personas by address",
		Long:  "List the pending and active personas, sorted by address then generation; --all adds retired and refused ones.",
		Example: `  virgo-tui persona list
  virgo-tui persona list --all
  virgo-tui persona list -o json | jq -r '.[] | select(.role == "lead") | .name'`,
		Args: cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "include retired and refused personas")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		direct, err := a.readDirect(cmd.Context(), func(ctx context.Context, r *roster.Registry) error {
			list, err := r.ListRecords(ctx, roster.ListOptions{All: all})
			if err != nil {
				return err
			}
			return writePersonaList(cmd.OutOrStdout(), a.name, *out, list)
		})
		if direct {
			return err
		}
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			list, err := c.PersonaRecords(ctx, all)
			if err != nil {
				return err
			}
			return writePersonaList(cmd.OutOrStdout(), a.name, *out, list)
		})
	}
	return cmd
}

// writePersonaList renders a list: a JSON array with one persona per line
// (never null), the records' bytes as the store holds them, or a table.
func writePersonaList(w io.Writer, prog string, o outputFormat, list []registry.Record) error {
	if o == outputJSON {
		return registry.WriteJSONArray(w, list)
	}
	if len(list) == 0 {
		_, err := fmt.Fprintf(w, "no personas; register one with: %s persona add --help\n", prog)
		return err
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "ADDRESS\tGEN\tNAME\tSTATE\tPROFILE\tHUMAN\tSINCE")
	for _, r := range list {
		p, err := r.Persona()
		if err != nil {
			return fmt.Errorf("%s: %w", r.Address(), err)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", p.Address, p.Generation, p.Name, p.State, p.Profile, p.Human, since(p))
	}
	return tw.Flush()
}

// since is when the persona entered its current state.
func since(p registry.Persona) string {
	t := p.CreatedAt
	for _, at := range []*time.Time{p.ActivatedAt, p.RetiredAt, p.RefusedAt} {
		if at != nil && at.After(t) {
			t = *at
		}
	}
	return t.UTC().Format(time.RFC3339)
}

func newPersonaShowCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show ADDRESS|NAME",
		Short: "Show one persona and its seat's history",
		Long: `Show a persona by address (the seat's current holder, or its last one when the
seat is free) or by name (any state, any case), with every holder of its seat.`,
		Example: `  virgo-tui persona show work/core/lead
  virgo-tui persona show spica
  virgo-tui persona show "Rijl al Awwa" -o json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completePersonaRefs(true),
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			v, hist, err := showPersona(ctx, c, args[0])
			if err != nil {
				return err
			}
			return writePersona(cmd.OutOrStdout(), *out, v.Persona, standingOf(v), hist)
		})
	}
	return cmd
}

// showPersona resolves ref, with its presence, and reads its seat's
// history. An address whose seat is free shows its last holder, so the
// history stays reachable by path.
func showPersona(ctx context.Context, c *hubclient.Client, ref string) (hubapi.PersonaView, []registry.Persona, error) {
	v, err := c.Persona(ctx, ref)
	if errors.Is(err, registry.ErrNotFound) && strings.Contains(ref, "/") {
		hist, herr := c.SeatHistory(ctx, ref)
		if herr != nil || len(hist) == 0 {
			return hubapi.PersonaView{}, nil, err
		}
		return hubapi.PersonaView{Persona: hist[len(hist)-1]}, hist, nil
	}
	if err != nil {
		return hubapi.PersonaView{}, nil, err
	}
	hist, err := c.SeatHistory(ctx, v.Persona.Address)
	return v, hist, err
}

// personaView is show's JSON document: the persona, whether it stands, and
// its seat's history.
type personaView struct {
	Persona registry.Persona `json:"persona"`
	// Standing is shown for an active generation: whether it stands and,
	// when not, why (its capability stamp file missing, unreadable or
	// changed, or its stamp refused).
	Standing *standing          `json:"standing,omitempty"`
	History  []registry.Persona `json:"history"`
}

// standing is whether an active generation stands, and why not.
type standing struct {
	Standing bool   `json:"standing"`
	Problem  string `json:"problem,omitempty"`
}

// standingOf is what the presence of an active generation says of its
// standing; nil for one that is not active (it has no runtime to stand).
func standingOf(v hubapi.PersonaView) *standing {
	if v.Persona.State != registry.StateActive || v.Presence == nil {
		return nil
	}
	return &standing{Standing: v.Presence.Problem == "", Problem: v.Presence.Problem}
}

// writePersona renders one persona; history, when given, follows it (show).
// In JSON it is show's personaView.
func writePersona(w io.Writer, o outputFormat, p registry.Persona, st *standing, hist []registry.Persona) error {
	if o == outputJSON {
		return writeJSON(w, personaView{Persona: p, Standing: st, History: hist})
	}
	tw := newTable(w)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	row("name", p.Name)
	row("address", p.Address)
	row("profile", string(p.Profile))
	row("generation", strconv.Itoa(p.Generation))
	row("state", string(p.State))
	switch {
	case st == nil:
	case st.Standing:
		row("standing", "yes")
	default:
		row("standing", "no: "+st.Problem)
	}
	row("id", p.ID)
	row("human", p.Human)
	row("repository", p.Repository)
	row("session lineage", p.SessionLineage)
	row("character hash", p.CharacterHash)
	row("stamp hash", p.StampHash)
	row("composition", p.Composition)
	row("created", rfc3339(&p.CreatedAt))
	row("activated", rfc3339(p.ActivatedAt))
	row("retired", rfc3339(p.RetiredAt))
	row("retire reason", p.RetireReason)
	row("refused", rfc3339(p.RefusedAt))
	row("refuse reason", p.RefuseReason)
	if err := tw.Flush(); err != nil || hist == nil {
		return err
	}
	fmt.Fprintf(w, "\nseat %s history:\n", p.Address)
	tw = newTable(w)
	fmt.Fprintln(tw, "GEN\tNAME\tSTATE\tSINCE")
	for _, h := range hist {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", h.Generation, h.Name, h.State, since(h))
	}
	return tw.Flush()
}

func rfc3339(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
