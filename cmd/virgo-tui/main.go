// Command virgo-tui is the operator console of a Virgo installation and the
// scriptable subcommands behind it. Installed also as "virgo", so the spec's
// "virgo persona add" works.
package main

import (
	"fmt"
	"os"
)

func main() {
	cmd := newRootCmd()
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "virgo-tui:", err)
		os.Exit(exitCode(err))
	}
}
