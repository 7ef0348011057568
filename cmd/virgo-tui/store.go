package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
)

func init() { subcommands = append(subcommands, newStoreCmd) }

func newStoreCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Check, back up, move or inspect the installation's store",
		Long: `The database keeps a checksum with every record; a damaged record is reported
with its key and never served. check and backup check all of it, or copy it.
With a hub running they go through the hub (which holds the file); with none,
they read the file itself without writing to it. compact returns free pages
to the file system with the hub stopped. migrate copies the
installation into another store (its bbolt file into etcd, or back), and
status shows the store in use and its health.`,
	}
	cmd.AddCommand(newStoreCheckCmd(a), newStoreBackupCmd(a), newStoreCompactCmd(a), newStoreMigrateCmd(a), newStoreStatusCmd(a))
	return cmd
}

// errStoreDamaged: store check found problems (exit status 1).
var errStoreDamaged = errors.New("the database is damaged")

// errStoreNotBolt: store check and backup read a bbolt file, and the
// installation's store is an etcd cluster.
var errStoreNotBolt = errors.New("the store is not a bbolt file")

func newStoreCheckCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check every page and record of the database",
		Long: `Check the database in full: bbolt's page structure, and every record, change-log
entry and counter against its checksum. Every problem is listed with what it
names (a record's key); the exit status is 1 if there is any, 0 if none.`,
		Example: `  virgo-tui store check
  virgo-tui store check -o json`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var res hubapi.StoreCheck
		err := a.onStore(cmd.Context(),
			func(ctx context.Context, c *hubclient.Client) (err error) {
				res, err = c.StoreCheck(ctx)
				return err
			},
			func(db string) error {
				problems, err := boltstore.CheckFile(db, directOpenTimeout)
				res = hubapi.StoreCheck{Path: db, Problems: []string{}}
				for _, p := range problems {
					res.Problems = append(res.Problems, p.Error())
				}
				return err
			})
		if err != nil {
			return err
		}
		w := cmd.OutOrStdout()
		if *out == outputJSON {
			err = writeJSON(w, res)
		} else if len(res.Problems) == 0 {
			_, err = fmt.Fprintf(w, "%s: intact\n", res.Path)
		} else {
			for _, p := range res.Problems {
				if _, err = fmt.Fprintln(w, p); err != nil {
					break
				}
			}
		}
		if err == nil && len(res.Problems) > 0 {
			err = fmt.Errorf("%w: %s has %d problems; restore it from a backup (virgo-tui store backup)", errStoreDamaged, res.Path, len(res.Problems))
		}
		return err
	}
	return cmd
}

func newStoreBackupCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent, checked copy of the database",
		Long: `Write a copy of the database to FILE (a new file, mode 0600) while the hub goes
on serving: one consistent snapshot. The copy is synced and checked in full
before the command reports success; a copy that fails its check is removed.`,
		Example: `  virgo-tui store backup ~/virgo-$(date +%F).db`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dst := args[0]
			var n int64
			err := a.onStore(cmd.Context(),
				func(ctx context.Context, c *hubclient.Client) (err error) {
					n, err = boltstore.WriteBackup(dst, func(w io.Writer) (int64, error) { return c.StoreBackup(ctx, w) })
					return err
				},
				func(db string) (err error) {
					n, err = boltstore.BackupFile(db, dst, directOpenTimeout)
					return err
				})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: %d bytes, checked\n", dst, n)
			return err
		},
	}
}

// onStore runs viaHub through the running hub, or direct on the database
// file when no hub runs. A hub that holds the file without answering yet
// (one starting) sends the command through it after all.
func (a *app) onStore(ctx context.Context, viaHub func(context.Context, *hubclient.Client) error, direct func(db string) error) error {
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
		return fmt.Errorf("%w: the installation's store is %s; etcd checks and copies its own data "+
			"(etcdctl endpoint health, etcdctl snapshot save FILE)", errStoreNotBolt, spec)
	}
	if a.hubAnswers(ctx, home) {
		return a.withClient(ctx, viaHub)
	}
	if err := direct(db); !errors.Is(err, store.ErrLocked) {
		return err
	}
	return a.withClient(ctx, viaHub)
}
