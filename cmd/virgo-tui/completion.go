package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/ui/wizard"
)

// completionTimeout bounds how long a tab press waits for the hub (or for
// one to start in this process); completing nothing beats a hung shell.
const completionTimeout = time.Second

// complete runs fn over a hub client for shell completion, swallowing every
// error: a completion that cannot reach the installation offers nothing.
func (a *app) complete(cmd *cobra.Command, fn func(context.Context, *hubclient.Client) []string) []string {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, completionTimeout)
	defer cancel()
	var out []string
	a.withClient(ctx, func(ctx context.Context, c *hubclient.Client) error {
		out = fn(ctx, c)
		return nil
	})
	return out
}

// completeSnapshot completes from what the persona add wizard would offer.
func (a *app) completeSnapshot(cmd *cobra.Command, pick func(wizard.Snapshot) []string) []string {
	return a.complete(cmd, func(ctx context.Context, c *hubclient.Client) []string {
		snap, err := wizardBackend{c}.Snapshot(ctx)
		if err != nil {
			return nil
		}
		return pick(snap)
	})
}

// completePersonaRefs completes addresses and names of personas (all
// states when all is set, else the pending and active ones).
func (a *app) completePersonaRefs(all bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		refs := a.complete(cmd, func(ctx context.Context, c *hubclient.Client) []string {
			list, err := c.Personas(ctx, all)
			if err != nil {
				return nil
			}
			var out []string
			for _, v := range list {
				p := v.Persona
				if p.State == registry.StateActive || p.State == registry.StatePending {
					out = append(out, p.Address)
				}
				out = append(out, p.Name)
			}
			return out
		})
		return refs, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeConfirmationIDs completes the first argument with confirmation
// ids: the pending ones, or every one when all is set (confirm show). Each
// carries what it is about (kind, persona, tool: words the hub checked, not
// free text a persona wrote).
func (a *app) completeConfirmationIDs(all bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ids := a.complete(cmd, func(ctx context.Context, c *hubclient.Client) []string {
			list, err := c.Confirmations(ctx, all)
			if err != nil {
				return nil
			}
			out := make([]string, 0, len(list))
			for _, cf := range list {
				about := strings.TrimSpace(string(cf.Kind) + " " + cf.Operation.Persona + " " + cf.Operation.Tool)
				out = append(out, cobra.CompletionWithDesc(cf.ID, about))
			}
			return out
		})
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeActiveAddresses completes the first argument with the addresses
// of active personas: the seats a runtime beats and reports for.
func (a *app) completeActiveAddresses(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	addrs := a.complete(cmd, func(ctx context.Context, c *hubclient.Client) []string {
		list, err := c.Personas(ctx, false)
		if err != nil {
			return nil
		}
		var out []string
		for _, v := range list {
			if v.Persona.State == registry.StateActive {
				out = append(out, v.Persona.Address)
			}
		}
		return out
	})
	return addrs, cobra.ShellCompDirectiveNoFileComp
}

// completeAddFlags completes persona add's --scope and --project from the
// registered addresses, --role from the role registry (narrowed by the
// address shape typed so far) and --name from the free names.
func (a *app) completeAddFlags(cmd *cobra.Command, f *addFlags) {
	noFile := cobra.ShellCompDirectiveNoFileComp
	cmd.RegisterFlagCompletionFunc("scope", func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		scopes := a.completeSnapshot(cmd, func(s wizard.Snapshot) []string { return s.Scopes })
		if !contains(scopes, registry.RootScope) {
			scopes = append([]string{registry.RootScope}, scopes...)
		}
		return scopes, noFile
	})
	cmd.RegisterFlagCompletionFunc("project", func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return a.completeSnapshot(cmd, func(s wizard.Snapshot) []string { return s.Projects[f.scope] }), noFile
	})
	cmd.RegisterFlagCompletionFunc("role", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		shape := registry.ScopeWide
		switch {
		case f.project != "":
			shape = registry.ProjectBound
		case f.scope == registry.RootScope:
			shape = registry.AtRoot
		}
		var out []string
		for _, r := range registry.RolesFor(shape) {
			out = append(out, r.Name+"\t"+r.Duty)
		}
		return out, noFile
	})
	cmd.RegisterFlagCompletionFunc("name", func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return a.completeSnapshot(cmd, func(s wizard.Snapshot) []string { return s.Suggestions }), noFile
	})
	cmd.RegisterFlagCompletionFunc("repo", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
