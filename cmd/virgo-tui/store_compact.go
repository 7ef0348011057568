package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
)

// errHubHoldsStore: store compact needs the database alone, and a hub
// serves it.
var errHubHoldsStore = errors.New("a hub holds the database")

func newStoreCompactCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compact",
		Short: "Return the database's free pages to the file system (the hub stopped)",
		Long: `The database file never shrinks by itself: pages freed by deletes (the
retention sweep's, docs/security.md) are kept for reuse. compact copies every
record into a new file beside it (bbolt's own compaction), syncs and checks the
copy in full, and renames it over the database, so a crash leaves the old file
or the new one, whole. It needs the file alone: stop the hub first; while a
hub (or another command) holds it, it is refused, naming the file.`,
		Example: `  virgo-tui store compact
  virgo-tui store compact -o json`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		home, err := a.home()
		if err != nil {
			return err
		}
		spec := storeurl.Spec(a.storeFlag)
		db, bolt, err := storeurl.BoltPath(spec, home.DBPath())
		switch {
		case err != nil:
			return err
		case !bolt:
			return fmt.Errorf("%w: the installation's store is %s; etcd compacts its own data (etcdctl compact, etcdctl defrag)", errStoreNotBolt, spec)
		case a.hubAnswers(cmd.Context(), home):
			return fmt.Errorf("%w: a hub serves %s on %s; stop it, then compact", errHubHoldsStore, db, hubapi.SocketPath(home.Dir))
		}
		res, err := boltstore.CompactFile(db, directOpenTimeout)
		if err != nil {
			return err
		}
		if *out == outputJSON {
			return writeJSON(cmd.OutOrStdout(), res)
		}
		_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: %d bytes, now %d, checked\n", res.Path, res.Before, res.After)
		return err
	}
	return cmd
}
