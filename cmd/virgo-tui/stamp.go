package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
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
		newStampProjectCmd(), newStampDiffCmd(a), newStampMatrixCmd(), newStampDossierCmd(), newStampSchemaCmd())
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
		Short: "Build and write the stamp of a persona's current generation",
		Long: `Build the capability stamp of a registered persona (by address: the seat's current holder;
or by name), validate it, write it once into the generation's private directory and record its
hash. The address is the one the registry holds: the factory has no default of its own. A
generation that already has a stamp is refused; a new generation gets a new stamp.`,
		Example: `  virgo-tui stamp build root/secretary --surface teams=chat:henry
  virgo-tui stamp build work/coordinator --surface teams=channel:work --lane-approver human:henry
  virgo-tui stamp build work/core/deputy --mutable 'worktree/**' --dry-run -o json`,
		Args: cobra.ExactArgs(1),
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringArrayVar(&f.surfaces, "surface", nil, "human-surface binding SURFACE=TARGET (repeatable)")
	cmd.Flags().StringVar(&f.laneApprover, "lane-approver", "", "team-coordinator's lane approver (default: the bound human)")
	cmd.Flags().StringVar(&f.graphNS, "graph-namespace", "", "graph namespace (default: virgo/<address>)")
	cmd.Flags().StringArrayVar(&f.mutable, "mutable", nil, "extra workspace mutable path, relative (repeatable)")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "build and validate, print, write nothing")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.withRegistry(cmd.Context(), func(ctx context.Context, r *registry.Registry) error {
			p, err := r.Resolve(ctx, args[0])
			if err != nil {
				return err
			}
			in, err := stampInput(p, f)
			if err != nil {
				return err
			}
			s, err := stamp.Build(in)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			prev, err := previousStamp(ctx, r, p)
			if err != nil {
				return err
			}
			diff := stamp.Diff(prev, s)
			if f.dryRun {
				if err := writeStamp(w, *out, s); err != nil || *out == outputJSON {
					return err
				}
				_, err := fmt.Fprint(w, "\n", stamp.RenderDiff(diff))
				return err
			}
			path, hash, err := writeGenerationStamp(ctx, r, p, s)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(w, map[string]any{"path": path, "hash": hash, "address": p.Address, "tools": len(s.Tools), "diff": diff})
			}
			fmt.Fprintf(w, "wrote %s\n%s  %s (%s, %d tools)\n\n%s", path, hash, p.Address, s.Path.Profile, len(s.Tools), stamp.RenderDiff(diff))
			if err := stamp.BootCheck(s, stamp.Handlers()); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: the persona will not stand until this is fixed:\n%v\n", err)
			}
			return nil
		})
	}
	return cmd
}

// writeGenerationStamp writes a built stamp once into the generation's
// private directory and records its hash in the persona. persona add calls
// it for each new generation, stamp build for one that has none yet.
func writeGenerationStamp(ctx context.Context, r *registry.Registry, p registry.Persona, s stamp.Stamp) (path, hash string, err error) {
	if p.StampHash != "" {
		return "", "", fmt.Errorf("stamp %s: %w: generation %d (%s) has stamp %s; a new generation gets a new stamp",
			p.Address, stamp.ErrStampExists, p.Generation, p.Name, p.StampHash)
	}
	dir := r.Home().GenerationDir(p.ID)
	if hash, err = stamp.Write(dir, s); err != nil {
		return "", "", err
	}
	if _, err := r.SetStampHash(ctx, p.ID, hash); err != nil {
		return "", "", err
	}
	return filepath.Join(dir, stamp.FileName), hash, nil
}

// previousStamp is the stamp of the seat's previous generation, the side a
// new generation's diff is read against; the zero stamp ("nothing") for a
// new seat or when no earlier generation was stamped.
func previousStamp(ctx context.Context, r *registry.Registry, p registry.Persona) (stamp.Stamp, error) {
	hist, err := r.SeatHistory(ctx, p.Address)
	if err != nil {
		return stamp.Stamp{}, err
	}
	for i := len(hist) - 1; i >= 0; i-- {
		q := hist[i]
		if q.Generation >= p.Generation || q.StampHash == "" {
			continue
		}
		return stamp.Load(filepath.Join(r.Home().GenerationDir(q.ID), stamp.FileName), q.StampHash)
	}
	return stamp.Stamp{}, nil
}

// stampInput turns a registered persona and the build flags into the
// factory's input, through the one mapping stamp.InputFor.
func stampInput(p registry.Persona, f buildFlags) (stamp.Input, error) {
	b := stamp.Bindings{LaneApprover: f.laneApprover, GraphNamespace: f.graphNS, MutablePaths: f.mutable}
	for _, sv := range f.surfaces {
		surface, target, ok := strings.Cut(sv, "=")
		if !ok {
			return stamp.Input{}, fmt.Errorf("--surface %q: use SURFACE=TARGET, e.g. teams=chat:henry", sv)
		}
		b.HumanSurfaces = append(b.HumanSurfaces, stamp.SurfaceBinding{Surface: surface, Target: target})
	}
	return stamp.InputFor(p, b), nil
}

// readStampFile reads and validates a stamp file of any known version.
func readStampFile(path string) (stamp.Stamp, []byte, error) {
	b, err := os.ReadFile(path)
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

// loadRegistered loads the stamp of a persona's current generation, checked
// against the hash its record holds.
func (a *app) loadRegistered(ctx context.Context, ref string) (stamp.Stamp, error) {
	var s stamp.Stamp
	err := a.withRegistry(ctx, func(ctx context.Context, r *registry.Registry) error {
		p, err := r.Resolve(ctx, ref)
		if err != nil {
			return err
		}
		if p.StampHash == "" {
			return fmt.Errorf("%s (%s) has no stamp yet: run virgo-tui stamp build %s", p.Address, p.Name, p.Address)
		}
		s, err = stamp.Load(filepath.Join(r.Home().GenerationDir(p.ID), stamp.FileName), p.StampHash)
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
