package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// outputFormat is the value of a command's -o flag.
type outputFormat string

// Output formats: a table for people, JSON for scripts (docs/json-output.md).
const (
	outputTable outputFormat = "table"
	outputJSON  outputFormat = "json"
)

// String, Set and Type make outputFormat a pflag.Value, so a bad -o is
// refused while flags are parsed, before anything is opened.
func (o *outputFormat) String() string { return string(*o) }

// Set accepts table or json.
func (o *outputFormat) Set(v string) error {
	switch outputFormat(v) {
	case outputTable, outputJSON:
		*o = outputFormat(v)
		return nil
	}
	return fmt.Errorf("unknown output format %q: use table or json", v)
}

// Type names the flag's value in --help.
func (o *outputFormat) Type() string { return "table|json" }

// addOutputFlag adds -o/--output (default table) with completion of its values.
func addOutputFlag(cmd *cobra.Command) *outputFormat {
	o := outputTable
	cmd.Flags().VarP(&o, "output", "o", "output format: table or json")
	cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return &o
}

// writeJSON writes v indented, with a trailing newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// newTable returns a tabwriter aligned the way every table of the tool is.
func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }
