package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// completionTimeout bounds how long a tab press waits for a busy database;
// completing nothing beats a hung shell.
const completionTimeout = 200 * time.Millisecond

// complete runs fn over the registry for shell completion, swallowing every
// error: a completion that cannot read the store offers nothing.
func (a *app) complete(cmd *cobra.Command, fn func(context.Context, *registry.Registry) []string) []string {
	home, err := registry.ResolveHome(a.homeFlag)
	if err != nil {
		return nil
	}
	s, err := store.OpenBolt(home.DBPath(), store.Options{Timeout: completionTimeout})
	if err != nil {
		return nil
	}
	defer s.Close()
	return fn(cmd.Context(), registry.New(s, home))
}

// completePersonaRefs completes addresses and names of personas (all
// states when all is set, else the pending and active ones).
func (a *app) completePersonaRefs(all bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		refs := a.complete(cmd, func(ctx context.Context, r *registry.Registry) []string {
			list, err := r.List(ctx, registry.ListOptions{All: all})
			if err != nil {
				return nil
			}
			var out []string
			for _, p := range list {
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

// completeAddFlags completes persona add's --scope and --project from the
// registered addresses, --role from the role registry (narrowed by the
// address shape typed so far) and --name from the free names.
func (a *app) completeAddFlags(cmd *cobra.Command, f *addFlags) {
	noFile := cobra.ShellCompDirectiveNoFileComp
	cmd.RegisterFlagCompletionFunc("scope", func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		scopes := a.complete(cmd, func(ctx context.Context, r *registry.Registry) []string {
			s, _ := r.Scopes(ctx)
			return s
		})
		if !contains(scopes, registry.RootScope) {
			scopes = append([]string{registry.RootScope}, scopes...)
		}
		return scopes, noFile
	})
	cmd.RegisterFlagCompletionFunc("project", func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return a.complete(cmd, func(ctx context.Context, r *registry.Registry) []string {
			p, _ := r.Projects(ctx, f.scope)
			return p
		}), noFile
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
		return a.complete(cmd, func(ctx context.Context, r *registry.Registry) []string {
			n, _ := r.SuggestNames(ctx, 10)
			return n
		}), noFile
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
