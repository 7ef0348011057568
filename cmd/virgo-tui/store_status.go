package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/leader"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// errNoBoltFile: store status names a bbolt file that does not exist (it
// is not created by looking at it).
var errNoBoltFile = errors.New("the store's bbolt file does not exist")

// storeStatus is what store status prints (-o json: these fields).
type storeStatus struct {
	Backend string `json:"backend"`
	// Path is a bbolt store's file; HeldByHub says a running hub holds it
	// (its revision is then not read).
	Path      string `json:"path"`
	HeldByHub bool   `json:"held_by_hub"`
	Revision  int64  `json:"revision"`
	FileSize  int64  `json:"file_size"`
	// Usage is bbolt's count of a file's pages by bucket, read when no hub
	// holds it.
	Usage *boltstore.Usage `json:"usage,omitempty"`
	// Etcd is an etcd store's cluster.
	Etcd *etcdstore.Status `json:"etcd"`
	// Hubs are the live hubs of an etcd store's installation, each with
	// its lease; Jobs who leads the run-once jobs (nil: no hub does).
	Hubs []hubLease     `json:"hubs,omitempty"`
	Jobs *leader.Holder `json:"jobs,omitempty"`
}

// hubLease is a live hub and the health of its lease: how long it has
// left unless renewed (a hub that renews keeps it near its TTL).
type hubLease struct {
	hub.Peer
	LeftSeconds int64  `json:"left_seconds"`
	Error       string `json:"error,omitempty"`
}

func newStoreStatusCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show which store the installation uses and its health",
		Long: `Show the installation's store: the backend (bolt or etcd) and its revision; for a
bbolt file its path and size; for an etcd cluster its members, which leads,
and whether each answers (within 5 seconds); the hubs that serve the
installation, each with its lease (how long it has left unless renewed),
and which hub leads the run-once jobs. For a bbolt file no hub holds,
bbolt's own count of its pages: each bucket's keys, leaf pages (how full
they are) and branch pages, and the free pages. The exit status is 1 when the
cluster has no leader or a member does not answer.`,
		Example: `  virgo-tui store status
  virgo-tui --store etcd://etcd1:2379,etcd2:2379,etcd3:2379/virgo/home store status -o json`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		home, err := a.home()
		if err != nil {
			return err
		}
		spec := storeurl.Spec(a.storeFlag)
		var res storeStatus
		path, bolt, err := storeurl.BoltPath(spec, home.DBPath())
		if err != nil {
			return err
		}
		if bolt {
			fi, err := os.Stat(path)
			if err != nil {
				return fmt.Errorf("%w: %v (register a persona, or start the hub, to create it)", errNoBoltFile, err)
			}
			res = storeStatus{Backend: "bolt", Path: path, FileSize: fi.Size()}
			b, err := boltstore.Open(path, boltstore.Options{Timeout: directOpenTimeout})
			switch {
			case errors.Is(err, store.ErrLocked):
				res.HeldByHub = true
			case err != nil:
				return err
			default:
				st, err := b.Stats()
				var u boltstore.Usage
				if err == nil {
					u, err = b.Usage()
				}
				b.Close()
				if err != nil {
					return err
				}
				res.Revision, res.FileSize, res.Usage = st.Rev, st.FileSize, &u
			}
		} else {
			s, err := storeurl.Open(ctx, spec, home.DBPath(), boltstore.Options{})
			if err != nil {
				return err
			}
			es, ok := s.(*etcdstore.Store)
			if !ok {
				s.Close()
				return fmt.Errorf("store status: %s opened as %T, not an etcd store", spec, s)
			}
			st, err := es.Status(ctx)
			if err == nil {
				res = storeStatus{Backend: "etcd", Revision: st.Revision, Etcd: &st}
				err = res.readHubs(ctx, es)
			}
			s.Close()
			if err != nil {
				return err
			}
		}
		w := cmd.OutOrStdout()
		if *out == outputJSON {
			err = writeJSON(w, res)
		} else {
			_, err = fmt.Fprint(w, res.text())
		}
		if err == nil && res.Etcd != nil {
			err = res.Etcd.Degraded()
		}
		return err
	}
	return cmd
}

// readHubs reads the live hubs of an etcd store, their leases' health,
// and who leads the run-once jobs.
func (s *storeStatus) readHubs(ctx context.Context, es *etcdstore.Store) error {
	peers, err := hub.Peers(ctx, es)
	if err != nil {
		return err
	}
	for _, p := range peers {
		hl := hubLease{Peer: p}
		left, err := es.LeaseLeft(ctx, store.LeaseID(p.LeaseID))
		if err != nil {
			hl.Error = err.Error()
		}
		hl.LeftSeconds = int64(left / time.Second)
		s.Hubs = append(s.Hubs, hl)
	}
	holder, ok, err := leader.For(es, leader.Options{Name: hub.JobsElection}).Leader(ctx)
	if err != nil {
		return err
	}
	if ok {
		s.Jobs = &holder
	}
	return nil
}

// text is the status as lines; names and addresses come from the cluster
// and are cleaned before they reach the terminal.
func (s storeStatus) text() string {
	var b strings.Builder
	if s.Etcd == nil {
		fmt.Fprintf(&b, "backend   bolt\npath      %s\n", termtext.Clean(s.Path))
		if s.HeldByHub {
			b.WriteString("state     held by the running hub\n")
		} else {
			fmt.Fprintf(&b, "revision  %d\n", s.Revision)
		}
		fmt.Fprintf(&b, "size      %d bytes\n", s.FileSize)
		if u := s.Usage; u != nil {
			writeUsage(&b, *u)
		}
		return b.String()
	}
	e := s.Etcd
	leader := termtext.Clean(e.Leader)
	if leader == "" {
		leader = "none (no quorum)"
	}
	fmt.Fprintf(&b, "backend   etcd\nprefix    %s\nrevision  %d\nleader    %s\n", termtext.Clean(e.Prefix), s.Revision, leader)
	for _, m := range e.Members {
		health := "healthy"
		if !m.Healthy {
			health = "unreachable: " + termtext.Clean(m.Error)
		}
		role := "follower"
		if m.Leader {
			role = "leader"
		}
		fmt.Fprintf(&b, "member    %s  %s  %s  %s  %s  %d bytes\n", termtext.Clean(m.Name), m.ID, role,
			termtext.Clean(strings.Join(m.ClientURLs, ",")), health, m.DBSize)
	}
	if len(s.Hubs) == 0 {
		b.WriteString("hubs      none running\n")
	}
	for _, h := range s.Hubs {
		health := fmt.Sprintf("%ds of %ds left", h.LeftSeconds, h.TTLSeconds)
		if h.Error != "" {
			health = termtext.Clean(h.Error)
		}
		fmt.Fprintf(&b, "hub       %s pid %d  hub %s  lease %x  %s\n", termtext.Clean(h.Host), h.PID,
			termtext.Clean(h.Hub), h.LeaseID, health)
	}
	jobs := "no hub leads"
	if s.Jobs != nil {
		jobs = fmt.Sprintf("%s (of %d candidates)", termtext.Clean(s.Jobs.Name), s.Jobs.Candidates)
	}
	fmt.Fprintf(&b, "jobs      %s\n", jobs)
	return b.String()
}

// writeUsage lists bbolt's count of a file's pages by bucket. Bucket
// names are the store's own; they are cleaned all the same.
func writeUsage(b *strings.Builder, u boltstore.Usage) {
	fmt.Fprintf(b, "pages     %d of %d bytes below the high-water mark, %d free\n", u.Pages, u.PageSize, u.FreePages)
	for _, bu := range u.Buckets {
		fmt.Fprintf(b, "bucket    %-10s %8d keys %8d leaf pages %4.0f %% full %6d branch pages\n",
			termtext.Clean(bu.Name), bu.Keys, bu.LeafPages, bu.Fill(u.PageSize)*100, bu.BranchPages)
	}
}
