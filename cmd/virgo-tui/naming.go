package main

import (
	"os"
	"path/filepath"
	"regexp"

	"github.com/spf13/cobra"
)

// The binary has two names: virgo-tui, and virgo (installed beside it by
// `make install`, so the spec's "virgo persona add" works). Help, usage,
// errors and every printed next step use the one it was run as, so that
// what an operator copies from the screen runs.
const (
	fullName  = "virgo-tui"
	shortName = "virgo"
)

// progName is the name the program was run as: virgo, or virgo-tui for any
// other (go run's and go test's binaries included).
func progName() string {
	if filepath.Base(os.Args[0]) == shortName {
		return shortName
	}
	return fullName
}

// mention matches the command virgo-tui in a text: at its start or after a
// space, a parenthesis, a quote or a backquote (so the module path
// github.com/virgo-hub/virgo-tui is left alone).
var mention = regexp.MustCompile("(^|[\\s(`\"])" + regexp.QuoteMeta(fullName) + `\b`)

// renamed is text with each mention of the command written as name.
func renamed(text, name string) string {
	if name == fullName {
		return text
	}
	return mention.ReplaceAllString(text, "${1}"+name)
}

// renameHelp writes name for the command in the help of cmd and every
// command under it (usage lines follow the root's name by themselves).
func renameHelp(cmd *cobra.Command, name string) {
	cmd.Short, cmd.Long, cmd.Example = renamed(cmd.Short, name), renamed(cmd.Long, name), renamed(cmd.Example, name)
	for _, c := range cmd.Commands() {
		renameHelp(c, name)
	}
}
