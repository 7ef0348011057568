package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/private"
	"github.com/virgo-hub/virgo-tui/internal/snapshot"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

func init() { subcommands = append(subcommands, newSnapshotCmd) }

func newSnapshotCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Verify and restore persona snapshots; print the installation's snapshot key",
		Long: `A snapshot (virgo-tui persona snapshot ADDRESS -o FILE) is one file holding a persona
generation: its record, its capability stamp, the learned choices its decisions rely
on, its session lineage and the ids and digests of the records it owns — never a
token, a secret or an operator's material. It is signed with the installation's
snapshot key; docs/snapshots.md describes the format.`,
		Example: `  virgo-tui snapshot key
  virgo-tui snapshot verify spica.snap
  virgo-tui snapshot restore spica.snap --trust "ssh-ed25519 AAAA… virgo-snapshot"`,
	}
	cmd.AddCommand(newSnapshotKeyCmd(a), newSnapshotVerifyCmd(a), newSnapshotRestoreCmd(a))
	return cmd
}

func newPersonaSnapshotCmd(a *app) *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "snapshot ADDRESS|NAME|ID -o FILE",
		Short: "Write a persona generation's signed snapshot to a new file",
		Long: `Write the snapshot of a persona generation (an address names its current holder;
a name or a generation id names any generation, a retired one too) to FILE, a new
file of mode 0600. The same state gives the same bytes. Verify it with
"snapshot verify FILE"; restore it with "snapshot restore FILE".`,
		Example:           `  virgo-tui persona snapshot work/core/lead -o spica.snap`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completePersonaRefs(true),
	}
	cmd.Flags().StringVarP(&file, "output", "o", "", "the new file to write (required)")
	cmd.MarkFlagRequired("output")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		home, err := a.home()
		if err != nil {
			return err
		}
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			b, err := c.PersonaSnapshot(ctx, args[0])
			if err != nil {
				return err
			}
			// What is written is first checked as any reader will check it.
			trusted, err := snapshot.Trusted(home.Dir)
			if err != nil {
				return err
			}
			s, err := snapshot.Open(b, trusted)
			if err != nil {
				return fmt.Errorf("the hub's snapshot of %s does not verify; nothing was written: %w", args[0], err)
			}
			if err := private.Create(file, b); err != nil {
				return err
			}
			return writeSnapshotSummary(cmd.OutOrStdout(), file, len(b), s)
		})
	}
	return cmd
}

func newSnapshotKeyCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "key",
		Short: "Print the public half of the installation's snapshot signing key",
		Long: `Print the installation's public snapshot key in authorized_keys form. The key is made
on first use, 0600 in <home>/keys. Another installation trusts this one's snapshots
when an operator there lists this line in its <home>/keys/snapshot_trusted_keys, or
passes it to "snapshot restore --trust".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := a.home()
			if err != nil {
				return err
			}
			k, err := snapshot.InstallationKey(home.Dir)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), snapshot.FormatPublic(k.Public().(ed25519.PublicKey)))
			return err
		},
	}
}

func newSnapshotVerifyCmd(a *app) *cobra.Command {
	var keys []string
	cmd := &cobra.Command{
		Use:   "verify FILE [--key PUBKEY]...",
		Short: "Check a snapshot's every digest and its signature",
		Long: `Check a snapshot file: its size, its layout byte for byte, its format version, the
manifest's signature and every member against its digest. The first thing that
differs is named, and the command fails. The signer must be one of the --key keys
(an authorized_keys line, or a file of them); without --key, the installation's own
key or one its trusted-keys file lists.`,
		Example: `  virgo-tui snapshot verify spica.snap
  virgo-tui snapshot verify spica.snap --key ~/staging-snapshot.pub`,
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringArrayVar(&keys, "key", nil, "a trusted public key or a file of them (repeatable)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		trusted, err := readTrust(keys)
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			home, err := a.home()
			if err != nil {
				return err
			}
			if trusted, err = snapshot.Trusted(home.Dir); err != nil {
				return err
			}
		}
		b, err := readSnapshotFile(args[0])
		if err != nil {
			return err
		}
		s, err := snapshot.Open(b, trusted)
		if err != nil {
			return fmt.Errorf("%s: %w", args[0], err)
		}
		return writeSnapshotSummary(cmd.OutOrStdout(), args[0], len(b), s)
	}
	return cmd
}

func newSnapshotRestoreCmd(a *app) *cobra.Command {
	var trust []string
	cmd := &cobra.Command{
		Use:   "restore FILE [--trust PUBKEY]...",
		Short: "Restore a persona generation from its snapshot",
		Long: `Restore a snapshot into this installation. The hub verifies the file first (as
"snapshot verify" does) and refuses an unknown signer: it trusts its own key, the
keys its <home>/keys/snapshot_trusted_keys lists, and the --trust keys. A file that
fails writes nothing.

Into the installation it came from, it puts back the generation's learned choices
(and its stamp bytes, if the store lost them) under the same lineage; what is
stored is kept. Into another installation it registers a new pending generation of
the seat — the same lineage and character, a new for-life name when its own is
taken there — whose activation waits for its bound human. When the new stamp's hash
is the snapshot's, the learned choices match as they were; when it is not, they wait
for a human in "prompts review", and each matching request asks again until then.`,
		Example: `  virgo-tui snapshot restore spica.snap
  virgo-tui snapshot restore spica.snap --trust "$(cat staging-snapshot.pub)"`,
		Args: cobra.ExactArgs(1),
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringArrayVar(&trust, "trust", nil, "also trust this public key, or a file of them (repeatable)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		keys, err := readTrust(trust)
		if err != nil {
			return err
		}
		lines := make([]string, len(keys))
		for i, k := range keys {
			lines[i] = snapshot.FormatPublic(k)
		}
		b, err := readSnapshotFile(args[0])
		if err != nil {
			return err
		}
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			res, err := c.RestoreSnapshot(ctx, b, lines)
			if err != nil {
				return fmt.Errorf("restore %s: %w", args[0], err)
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			return writeRestored(cmd.OutOrStdout(), a.name, res)
		})
	}
	return cmd
}

// readTrust reads keys given as authorized_keys lines or files of them.
func readTrust(args []string) ([]ed25519.PublicKey, error) {
	var out []ed25519.PublicKey
	for _, arg := range args {
		if strings.HasPrefix(strings.TrimSpace(arg), "ssh-") {
			k, err := snapshot.ParsePublic(arg)
			if err != nil {
				return nil, err
			}
			out = append(out, k)
			continue
		}
		b, err := readBounded(arg, 64<<10)
		if err != nil {
			return nil, err
		}
		ks, err := snapshot.ParseKeys(arg, b)
		if err != nil {
			return nil, err
		}
		out = append(out, ks...)
	}
	if len(out) > snapshot.MaxTrusted {
		return nil, fmt.Errorf("%d trusted keys: at most %d: %w", len(out), snapshot.MaxTrusted, snapshot.ErrTooLarge)
	}
	return out, nil
}

// readSnapshotFile reads a snapshot file, refusing one over the limit
// before reading it.
func readSnapshotFile(path string) ([]byte, error) {
	b, err := readBounded(path, snapshot.MaxBytes)
	if errors.Is(err, errFileTooLarge) {
		return nil, fmt.Errorf("%s: %w: over %d bytes", path, snapshot.ErrTooLarge, snapshot.MaxBytes)
	}
	return b, err
}

// errFileTooLarge: a file over what its reader takes.
var errFileTooLarge = errors.New("file is over its size limit")

// readBounded reads at most limit bytes of path.
func readBounded(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes)", path, errFileTooLarge, limit)
	}
	return b, nil
}

// writeSnapshotSummary says what a verified snapshot holds.
func writeSnapshotSummary(w io.Writer, file string, size int, s snapshot.Snapshot) error {
	p := s.Contents.Persona
	fmt.Fprintf(w, "%s: verified, %d bytes\n", termtext.Clean(file), size)
	fmt.Fprintf(w, "  %s (%s, generation %d, %s), lineage %s\n", p.Name, p.Address, p.Generation, p.State, p.SessionLineage)
	fmt.Fprintf(w, "  stamp %s\n", p.StampHash)
	fmt.Fprintf(w, "  %d learned choices in its experience layer, %d from its class overlay, %d owned records\n",
		len(s.Contents.Experience), len(s.Contents.ClassOverlay), len(s.Contents.Records))
	fmt.Fprintf(w, "  signed by %s\n", snapshot.Fingerprint(s.Signer))
	for _, d := range s.Manifest.Members {
		fmt.Fprintf(w, "  %-22s %8d  %s\n", d.Name, d.Size, d.SHA256)
	}
	return nil
}

// writeRestored says what a restore did and what waits for a human.
func writeRestored(w io.Writer, prog string, r hubapi.Restored) error {
	p := r.Persona
	if r.Registered {
		fmt.Fprintf(w, "registered %s (%s, generation %d), pending: lineage %s\n", p.Name, p.Address, p.Generation, p.SessionLineage)
		if r.Renamed {
			fmt.Fprintf(w, "  the snapshot's name is taken here: the new generation is %s\n", p.Name)
		}
		if r.Unbound != "" {
			fmt.Fprintf(w, "  the repository %s is not on this host: registered without it\n", termtext.Clean(r.Unbound))
		}
		if r.Confirmation != nil {
			fmt.Fprintf(w, "  its activation waits for %s: %s confirm approve %s\n", p.Human, prog, r.Confirmation.ID)
		}
	} else {
		fmt.Fprintf(w, "restored the layer of %s (%s, generation %d, %s), lineage %s\n", p.Name, p.Address, p.Generation, p.State, p.SessionLineage)
		if r.Stamp {
			fmt.Fprintln(w, "  its stamp bytes, missing from the store, were written back")
		}
	}
	fmt.Fprintf(w, "  %d learned choices written, %d already there\n", r.Written, r.Present)
	if r.StampEqual {
		fmt.Fprintln(w, "  the stamp is the snapshot's: the learned choices match as they were")
		return nil
	}
	_, err := fmt.Fprintf(w, "  the stamp differs from the snapshot's: %d learned choices wait for review: %s prompts review --persona %s\n",
		r.Review, prog, p.Address)
	return err
}
