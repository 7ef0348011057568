package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

func init() { subcommands = append(subcommands, newStampCmd) }

func newStampCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stamp",
		Short: "Build, check, compare and inspect capability stamps",
		Long: `A capability stamp (CAPABILITY-STAMP.json, schema v3) gives one persona generation its
tools and permissions. It is built from the class matrix, validated by a JSON Schema and a
semantic validator, written once (0600) into the generation's private directory, and hashed
(SHA-256 over its RFC 8785 canonical form) into the persona's record.`,
	}
	cmd.AddCommand(newStampBuildCmd(a), newStampValidateCmd(), newStampShowCmd(a), newStampHashCmd(),
		newStampProjectCmd(a), newStampDiffCmd(a), newStampMatrixCmd(), newStampDossierCmd(), newStampSchemaCmd())
	return cmd
}

// buildFlags are the bindings the registry does not hold yet.
type buildFlags struct {
	surfaces     []string
	laneApprover string
	graphNS      string
	mutable      []string
	dryRun       bool
}

func newStampBuildCmd(a *app) *cobra.Command {
	var f buildFlags
	cmd := &cobra.Command{
		Use:   "build ADDRESS|NAME",
		Short: "Build a persona's stamp and compare it with its generation's and the seat's previous one",
		Long: `Build the capability stamp of a registered persona (by address: the seat's current holder;
or by name) from the class matrix and the given bindings, validate it, and show it with its
class-matrix diff against the seat's previous generation. persona add writes each new
generation's stamp once, at registration, so a generation that has a stamp is refused unless
--dry-run: a new generation gets a new stamp.`,
		Example: `  virgo-tui stamp build work/core/deputy --dry-run
  virgo-tui stamp build work/coordinator --surface virgo-channel=human:henry --lane-approver human:henry --dry-run
  virgo-tui stamp build work/core/deputy --mutable 'worktree/**' --dry-run -o json`,
		Args: cobra.ExactArgs(1),
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringArrayVar(&f.surfaces, "surface", nil, "human-surface binding virgo-channel=human:NAME (repeatable)")
	cmd.Flags().StringVar(&f.laneApprover, "lane-approver", "", "team-coordinator's lane approver (default: the bound human)")
	cmd.Flags().StringVar(&f.graphNS, "graph-namespace", "", "graph namespace (default: virgo/<address>)")
	cmd.Flags().StringArrayVar(&f.mutable, "mutable", nil, "extra workspace mutable path, relative (repeatable)")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "build and validate, print, write nothing")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			v, err := c.Persona(ctx, args[0])
			if err != nil {
				return err
			}
			p := v.Persona
			if !f.dryRun {
				if p.StampHash != "" {
					return fmt.Errorf("stamp %s: %w: generation %d (%s) has stamp %s; a new generation gets a new stamp (persona add writes it), or use --dry-run",
						p.Address, stamp.ErrStampExists, p.Generation, p.Name, p.StampHash)
				}
				return fmt.Errorf("stamp %s: %w: generation %d (%s) has none, and the hub writes a stamp only at persona add; retire it and register a new generation",
					p.Address, usecase.ErrNoStamp, p.Generation, p.Name)
			}
			in, err := stampInput(p, f)
			if err != nil {
				return err
			}
			s, err := stamp.Build(in)
			if err != nil {
				return err
			}
			hist, err := seatHistory(ctx, c, p.Address)
			if err != nil {
				return err
			}
			prev, err := previousStamp(ctx, c, hist, p.Generation)
			if err != nil {
				return err
			}
			if prev == nil {
				prev = &stamp.Stamp{}
			}
			w := cmd.OutOrStdout()
			if err := writeStamp(w, *out, s); err != nil || *out == outputJSON {
				return err
			}
			_, err = fmt.Fprint(w, "\n", stamp.RenderDiff(stamp.Diff(*prev, s)))
			return err
		})
	}
	return cmd
}

// seatHistory is every generation that held the seat at address, oldest
// first; empty for a seat never held.
func seatHistory(ctx context.Context, c *hubclient.Client, address string) ([]registry.Persona, error) {
	hist, err := c.SeatHistory(ctx, address)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, nil
	}
	return hist, err
}

// previousStamp is the stamp of the seat's last stamped generation before
// generation, the side a new generation's diff is read against; nil for a
// new seat or when no earlier generation was stamped.
func previousStamp(ctx context.Context, c *hubclient.Client, hist []registry.Persona, generation int) (*stamp.Stamp, error) {
	for i := len(hist) - 1; i >= 0; i-- {
		q := hist[i]
		if q.Generation >= generation || q.StampHash == "" {
			continue
		}
		v, err := c.Stamp(ctx, q.ID)
		if err != nil {
			return nil, err
		}
		return &v.Stamp, nil
	}
	return nil, nil
}

// stampInput turns a registered persona and the build flags into the
// factory's input, through the one mapping stamp.InputFor.
func stampInput(p registry.Persona, f buildFlags) (stamp.Input, error) {
	b := stamp.Bindings{LaneApprover: f.laneApprover, GraphNamespace: f.graphNS, MutablePaths: f.mutable}
	surfaces, err := parseSurfaces(f.surfaces)
	if err != nil {
		return stamp.Input{}, err
	}
	b.HumanSurfaces = surfaces
	return stamp.InputFor(p, b), nil
}

// readStampFile reads and validates a stamp file of any known version: a
// regular file of at most stamp.MaxBytes (stamp.ReadFile).
func readStampFile(path string) (stamp.Stamp, []byte, error) {
	b, err := stamp.ReadFile(path)
	if err != nil {
		return stamp.Stamp{}, nil, err
	}
	s, err := stamp.ReadSource(path, b)
	return s, b, err
}

// isFile reports whether arg names an existing regular file.
func isFile(arg string) bool {
	fi, err := os.Stat(arg)
	return err == nil && fi.Mode().IsRegular()
}

// loadRegistered loads, through the hub, the stamp of a persona's current
// generation, checked by the hub against the hash its record holds.
func (a *app) loadRegistered(ctx context.Context, ref string) (s stamp.Stamp, err error) {
	err = a.withClient(ctx, func(ctx context.Context, c *hubclient.Client) error {
		v, err := c.Stamp(ctx, ref)
		s = v.Stamp
		return err
	})
	return s, err
}

// loadStampArg reads a FILE, or the stamp of a registered ADDRESS|NAME.
func (a *app) loadStampArg(ctx context.Context, arg string) (stamp.Stamp, error) {
	if isFile(arg) {
		s, _, err := readStampFile(arg)
		return s, err
	}
	return a.loadRegistered(ctx, arg)
}

// errReported is returned after a command has printed every problem itself;
// the exit status is 1 and nothing is printed twice.
var errReported = errors.New("refused; see above")
