package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

func newStampDiffCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Class-matrix diff of two stamps, personas or classes",
		Long: `Compare two sides: each is a stamp FILE, a class name (secretary, team-coordinator,
project-lead, coder-deputy), "nothing" (a new seat), or a registered ADDRESS|NAME (its current
stamp). Lists tools added, removed and changed in access or scope, grouped by bundle, and the
boundaries crossed.`,
		Example: `  virgo-tui stamp diff coder-deputy project-lead
  virgo-tui stamp diff nothing secretary
  virgo-tui stamp diff work/core/lead ./proposed/CAPABILITY-STAMP.json -o json`,
		Args: cobra.ExactArgs(2),
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var sides [2]diffSide
		for i, arg := range args {
			side, err := a.diffSideOf(cmd.Context(), arg)
			if err != nil {
				return err
			}
			sides[i] = side
		}
		d := stamp.DiffTools(sides[0].label, sides[0].tools, sides[1].label, sides[1].tools)
		if *out == outputJSON {
			return writeJSON(cmd.OutOrStdout(), d)
		}
		_, err := fmt.Fprint(cmd.OutOrStdout(), stamp.RenderDiff(d))
		return err
	}
	return cmd
}

// diffSide is one side of a diff: a label and its tools.
type diffSide struct {
	label string
	tools []stamp.Tool
}

func (a *app) diffSideOf(ctx context.Context, arg string) (diffSide, error) {
	switch {
	case arg == stamp.Nothing:
		return diffSide{label: stamp.Nothing}, nil
	case isFile(arg):
		s, _, err := readStampFile(arg)
		return diffSide{label: arg, tools: s.Tools}, err
	case slices.Contains(registry.Profiles, registry.Profile(arg)):
		return diffSide{label: arg, tools: stamp.ToolsFor(registry.Profile(arg))}, nil
	}
	s, err := a.loadRegistered(ctx, arg)
	return diffSide{label: s.Path.Address, tools: s.Tools}, err
}

func newStampMatrixCmd() *cobra.Command {
	var tools bool
	cmd := &cobra.Command{
		Use:   "matrix",
		Short: "Print the class matrix (and with --tools the tool inventory) from the table",
		Example: `  virgo-tui stamp matrix
  virgo-tui stamp matrix --tools
  virgo-tui stamp matrix -o json | jq '.[] | select(.cells["coder-deputy"] == "-") | .bundle'`,
		Args: cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.Flags().BoolVar(&tools, "tools", false, "also print the tool inventory")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		w := cmd.OutOrStdout()
		if *out == outputJSON {
			return writeJSON(w, matrixJSON())
		}
		fmt.Fprint(w, stamp.RenderMatrix())
		if tools {
			fmt.Fprintln(w)
			fmt.Fprint(w, stamp.RenderInventory())
		}
		return nil
	}
	return cmd
}

// matrixRow is the -o json shape of one matrix row.
type matrixRow struct {
	Bundle   string            `json:"bundle"`
	Standard bool              `json:"standard"`
	Cells    map[string]string `json:"cells"`
	Tools    []string          `json:"tools"`
}

func matrixJSON() []matrixRow {
	var rows []matrixRow
	for _, b := range stamp.Bundles() {
		r := matrixRow{Bundle: b.Name, Standard: b.Standard, Cells: map[string]string{}}
		for _, p := range registry.Profiles {
			r.Cells[string(p)] = stamp.CellText(stamp.CellFor(b, p))
		}
		for _, t := range b.Tools {
			r.Tools = append(r.Tools, t.Name)
		}
		rows = append(rows, r)
	}
	return rows
}

func newStampDossierCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:       "dossier CLASS",
		Short:     "What a class is granted, and what it is explicitly not granted",
		Example:   `  virgo-tui stamp dossier coder-deputy`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: profileNames(),
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		p := registry.Profile(args[0])
		if !slices.Contains(registry.Profiles, p) {
			return fmt.Errorf("%q is not a class: use one of %v", args[0], profileNames())
		}
		d := stamp.Dossier(p)
		if *out == outputJSON {
			return writeJSON(cmd.OutOrStdout(), d)
		}
		_, err := fmt.Fprint(cmd.OutOrStdout(), stamp.RenderDossier(d))
		return err
	}
	return cmd
}

func profileNames() []string {
	out := make([]string, len(registry.Profiles))
	for i, p := range registry.Profiles {
		out[i] = string(p)
	}
	return out
}

func newStampSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the embedded JSON Schema (draft 2020-12) of stamp schema v3",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(stamp.SchemaV3())
			return err
		},
	}
}
