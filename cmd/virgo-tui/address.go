package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func init() { subcommands = append(subcommands, newAddressCmd) }

func newAddressCmd(*app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "address",
		Short: "Work with persona addresses",
		Long: `An address is scope/role (root/secretary, root/operator, home/secretary,
work/coordinator) or scope/project/role (work/core/lead, work/core/deputy).`,
		Example: `  virgo-tui address check work/core/lead`,
	}
	cmd.AddCommand(newAddressCheckCmd())
	return cmd
}

// addressView is address check's JSON document.
type addressView struct {
	Address string           `json:"address"`
	Scope   string           `json:"scope"`
	Project string           `json:"project"`
	Role    string           `json:"role"`
	Arity   string           `json:"arity"`
	Profile registry.Profile `json:"profile"`
}

func newAddressCheckCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check PATH",
		Short: "Check an address against the grammar",
		Long: `Parse an address by segment count and print its scope, project, role, the
role's binding arity and capability profile — or the rule it breaks and how
to fix it (exit status 1). Nothing is read from or written to the installation.`,
		Example: `  virgo-tui address check work/core/lead
  virgo-tui address check root/secretary -o json
  virgo-tui address check work/lead     # refused: role "lead" is project-bound`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		a, err := registry.ParseAddress(args[0])
		var ae *registry.AddressError
		if errors.As(err, &ae) {
			return fmt.Errorf("%w [rule %s]", err, ae.Rule)
		}
		if err != nil {
			return err
		}
		role, _ := a.RoleInfo()
		v := addressView{Address: a.String(), Scope: a.Scope, Project: a.Project, Role: a.Role,
			Arity: role.Arity.String(), Profile: a.Profile()}
		if *out == outputJSON {
			return writeJSON(cmd.OutOrStdout(), v)
		}
		project := v.Project
		if project == "" {
			project = "(none: " + a.Shape().String() + ")"
		}
		tw := newTable(cmd.OutOrStdout())
		fmt.Fprintf(tw, "address\t%s\nscope\t%s\nproject\t%s\nrole\t%s\narity\t%s\nprofile\t%s\n",
			v.Address, v.Scope, project, v.Role, v.Arity, v.Profile)
		return tw.Flush()
	}
	return cmd
}
