package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// app is what every subcommand shares: the resolved flags and the streams.
type app struct {
	// name is the name the program was run as (progName): every printed
	// next step uses it.
	name     string
	homeFlag string
	// storeFlag is --store: the store a hub or a direct read opens
	// (storeurl); empty means $VIRGO_STORE, else the home's bbolt file.
	storeFlag string
	// as is --as: the acting principal (see app.principal).
	as string
	// tokenFile is --token-file: a persona principal's runtime token
	// (see app.personaClient).
	tokenFile string
}

// subcommands are added by each command file's init, so that files owned by
// different parts of the tool never edit one list.
var subcommands []func(*app) *cobra.Command

// newRootCmd is the command tree under the name the program was run as.
func newRootCmd() *cobra.Command { return newRootCmdNamed(progName()) }

// newRootCmdNamed is the command tree of the program run as name (virgo or
// virgo-tui): its usage, help and next steps say name.
func newRootCmdNamed(name string) *cobra.Command {
	a := &app{name: name}
	root := &cobra.Command{
		Use:   name,
		Short: "Operator console of a Virgo installation",
		Long: `With no subcommand, virgo-tui opens the operator console on the installation's
hub, starting one inside this process (serving the home's socket, so runtimes
can connect) when none runs. Every subcommand goes through the hub the same way.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE:          a.runConsole,
		Version:       version(),
	}
	root.SetVersionTemplate(name + " {{.Version}}\n")
	root.PersistentFlags().StringVar(&a.homeFlag, "home", "", "installation home (default $VIRGO_HOME, else $XDG_DATA_HOME/virgo)")
	root.PersistentFlags().StringVar(&a.storeFlag, "store", "", "the store: bolt:PATH, or etcd://host:2379[,host:2379…]/PREFIX (default $VIRGO_STORE, else the home's database file)")
	root.PersistentFlags().StringVar(&a.as, "as", "", "acting principal: human:<name> or a persona address (default $VIRGO_PRINCIPAL, else human:$USER, else human:owner)")
	root.PersistentFlags().StringVar(&a.tokenFile, "token-file", "", "a persona's runtime token file, when acting as a persona (default $VIRGO_TOKEN_FILE, else the one the home's seat file names)")
	for _, sub := range subcommands {
		root.AddCommand(sub(a))
	}
	renameHelp(root, name)
	return root
}

// exitError carries a specific exit status (authorize uses distinct codes).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}
