package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/storecopy"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// storeMigration is what store migrate prints (-o json: these fields).
type storeMigration struct {
	From string `json:"from"`
	To   string `json:"to"`
	storecopy.Report
}

func newStoreMigrateCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate --to STORE",
		Short: "Copy the installation into another store (bbolt to etcd, or back)",
		Long: `Copy every key of the installation from one store to another — its bbolt file
into an etcd cluster, or an etcd prefix into a bbolt file — then check that both
hold the same keys and values (their count and a SHA-256 of every key and value,
in key order) and print what was checked.

--from defaults to the installation's store (--store, $VIRGO_STORE, else the
home's bbolt file). Stop the hub first: a bbolt file a hub holds is refused,
and an etcd source must not change during the copy (the check would fail).
A destination that holds keys is refused unless --replace deletes them first.

Afterwards start the hub on the new store (serve --store, or $VIRGO_STORE).
Its change stream starts a new epoch, so every console re-reads the state.`,
		Example: `  virgo-tui store migrate --to etcd://etcd1:2379,etcd2:2379,etcd3:2379/virgo/home
  virgo-tui store migrate --from etcd://etcd1:2379/virgo/home --to bolt:$HOME/virgo-back.db`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	from := cmd.Flags().String("from", "", "the store to copy (bolt:PATH or etcd://…; default: the installation's)")
	to := cmd.Flags().String("to", "", "the store to copy into (bolt:PATH or etcd://host:2379[,…]/PREFIX)")
	replace := cmd.Flags().Bool("replace", false, "delete the destination's keys first instead of refusing a non-empty one")
	_ = cmd.MarkFlagRequired("to")
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		home, err := a.home()
		if err != nil {
			return err
		}
		res := storeMigration{From: *from, To: *to}
		if res.From == "" {
			res.From = storeurl.Spec(a.storeFlag)
		}
		if path, bolt, err := storeurl.BoltPath(res.From, home.DBPath()); err == nil && bolt {
			res.From = "bolt:" + path // the home's file, named
		}
		src, err := openMigrationStore(ctx, res.From, home.DBPath(), true)
		if err != nil {
			return fmt.Errorf("open the source: %w", err)
		}
		defer src.Close()
		dst, err := openMigrationStore(ctx, res.To, home.DBPath(), false)
		if err != nil {
			return fmt.Errorf("open the destination: %w", err)
		}
		defer dst.Close()
		res.Report, err = storecopy.Copy(ctx, src, dst, storecopy.Options{Replace: *replace})
		if err != nil {
			return err
		}
		w := cmd.OutOrStdout()
		if *out == outputJSON {
			return writeJSON(w, res)
		}
		return res.write(w)
	}
	return cmd
}

// openMigrationStore opens one side of a migration. A bbolt source must
// exist (opening creates a file, and an empty copy would check out); a
// bbolt file a hub holds is named as such, and two names of one bbolt file
// are refused (bbolt locks it once).
func openMigrationStore(ctx context.Context, spec, homeDB string, source bool) (store.Store, error) {
	path, bolt, err := storeurl.BoltPath(spec, homeDB)
	if err != nil {
		return nil, err
	}
	if bolt && source {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%w: %v", errNoBoltFile, err)
		}
	}
	s, err := storeurl.Open(ctx, spec, homeDB, boltstore.Options{Timeout: directOpenTimeout})
	switch {
	case errors.Is(err, store.ErrLocked) && !source:
		return nil, fmt.Errorf("%w: %s (is it the source too, or does a hub hold it?)", err, path)
	case errors.Is(err, store.ErrLocked):
		return nil, fmt.Errorf("%w: %s is held by a running hub; stop it (the copy must see no writes), then migrate", err, path)
	}
	return s, err
}

// write prints what was copied and checked; the store names are the
// operator's own, cleaned all the same before they reach the terminal.
func (m storeMigration) write(w io.Writer) error {
	s, d := m.Source, m.Destination
	if m.Replaced > 0 {
		if _, err := fmt.Fprintf(w, "deleted   %d keys the destination held (--replace)\n", m.Replaced); err != nil {
			return err
		}
	}
	if m.Leased > 0 {
		if _, err := fmt.Fprintf(w, "leased    %d keys on a lease left out (live hubs' presence, announcements, candidates)\n", m.Leased); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "copied    %d keys, %d bytes\n"+
		"from      %s  revision %d\n"+
		"to        %s  revision %d\n"+
		"checked   %d keys and %d bytes on both sides, sha256 %s on both sides\n"+
		"next      start the hub on the new store (serve --store, or $VIRGO_STORE); consoles resync\n",
		s.Keys, s.Bytes, termtext.Clean(m.From), s.Revision, termtext.Clean(m.To), d.Revision, d.Keys, d.Bytes, d.SHA256)
	return err
}
