// Command virgo-tui is the operator console of a Virgo installation and the
// scriptable subcommands behind it. Installed also as "virgo", so the spec's
// "virgo persona add" works.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

func main() { os.Exit(execute(newRootCmd(), os.Stdout, os.Stderr)) }

// execute runs a command tree with its output on stdout and stderr and
// returns the exit status. Everything a command prints (tables, JSON,
// errors, next steps) goes through the one escaping writer: stored text was
// written by personas, and none of it may reach the terminal as a control
// sequence. The console draws through Bubble Tea onto the terminal itself
// and cleans its text where it enters the model.
func execute(root *cobra.Command, stdout, stderr io.Writer) int {
	out, errOut := termtext.NewWriter(stdout), termtext.NewWriter(stderr)
	root.SetOut(out)
	root.SetErr(errOut)
	err := root.Execute()
	if err != nil {
		// Errors name next steps ("start one with `virgo-tui serve`"): in
		// the words of the name the program was run as.
		fmt.Fprintln(errOut, root.Name()+":", renamed(err.Error(), root.Name()))
	}
	out.Flush()
	errOut.Flush()
	if err != nil {
		return exitCode(err)
	}
	return 0
}
