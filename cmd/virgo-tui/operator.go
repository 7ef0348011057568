package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func init() { subcommands = append(subcommands, newOperatorCmd) }

func newOperatorCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Enrol, list and remove the humans who operate the installation",
		Long: `Humans are enrolled, never minted: a command acting as human:<name> works only
once <name> has an operator token in <home>/operators (0600). The first
operator is enrolled at first install; every later one by an enrolled
operator. See docs/security.md for what a token does and does not protect.`,
	}
	cmd.AddCommand(newOperatorAddCmd(a), newOperatorListCmd(a), newOperatorRemoveCmd(a))
	return cmd
}

// uidFlag is --uid: a Unix user id, or "self" for the running user.
type uidFlag struct{ uid int }

func (f *uidFlag) String() string {
	if f.uid == hubapi.NoUID {
		return ""
	}
	return strconv.Itoa(f.uid)
}

// Set accepts a user id or "self".
func (f *uidFlag) Set(v string) error {
	if v == "self" {
		f.uid = os.Getuid()
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("--uid %q: give a Unix user id (0 or more) or self", v)
	}
	f.uid = n
	return nil
}

// Type names the flag's value in --help.
func (f *uidFlag) Type() string { return "UID|self" }

func newOperatorAddCmd(a *app) *cobra.Command {
	uid := uidFlag{uid: hubapi.NoUID}
	out := outputTable
	cmd := &cobra.Command{
		Use:   "add NAME [--uid UID|self]",
		Short: "Enrol a human as an operator (by an enrolled operator, or at first install)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := registry.ResolveHome(a.homeFlag)
			if err != nil {
				return err
			}
			name, err := registry.NormalizeHuman(args[0])
			if err != nil {
				return err
			}
			ops, err := hubapi.Operators(home.Dir)
			if err != nil {
				return err
			}
			var e hubapi.Enrolled
			if len(ops) == 0 {
				// First install: nobody is enrolled yet to vouch for anyone.
				if _, err := hubapi.EnrolOperator(home.Dir, name, uid.uid); err != nil {
					return err
				}
				o, err := hubapi.ReadOperator(hubapi.OperatorTokenPath(home.Dir, strings.TrimPrefix(name, "human:")))
				if err != nil {
					return err
				}
				e = o.Enrolled(home.Dir)
			} else if err := a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
				e, err = c.EnrolOperator(ctx, name, uid.uid)
				return err
			}); err != nil {
				return err
			}
			if out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), e)
			}
			bound := ""
			if e.UID != nil {
				bound = fmt.Sprintf(", bound to uid %d", *e.UID)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "enrolled %s%s; token in %s (0600): hand it to them, or they act with --as %s\n",
				e.Principal, bound, e.TokenFile, e.Principal)
			return err
		},
	}
	cmd.Flags().Var(&uid, "uid", "bind the operator to a Unix user: only connections from that user may use the token")
	cmd.Flags().VarP(&out, "output", "o", "output format: table or json")
	return cmd
}

func newOperatorListCmd(a *app) *cobra.Command {
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the enrolled operators (names and bindings; never tokens)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := registry.ResolveHome(a.homeFlag)
			if err != nil {
				return err
			}
			ops, err := hubapi.Operators(home.Dir)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				list := make([]hubapi.Enrolled, 0, len(ops))
				for _, o := range ops {
					list = append(list, o.Enrolled(home.Dir))
				}
				return writeJSON(cmd.OutOrStdout(), list)
			}
			tw := newTable(cmd.OutOrStdout())
			fmt.Fprintln(tw, "OPERATOR\tUID")
			for _, o := range ops {
				bound := "any"
				if o.UID != hubapi.NoUID {
					bound = strconv.Itoa(o.UID)
				}
				fmt.Fprintf(tw, "human:%s\t%s\n", o.Name, bound)
			}
			return tw.Flush()
		},
	}
	out = addOutputFlag(cmd)
	return cmd
}

func newOperatorRemoveCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Revoke an operator's token (their open consoles and streams end within a second)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := registry.NormalizeHuman(args[0])
			if err != nil {
				return err
			}
			if err := a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
				return c.RemoveOperator(ctx, name)
			}); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "removed %s: their token no longer works\n", name)
			return err
		},
	}
}
