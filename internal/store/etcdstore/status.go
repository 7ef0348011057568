package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Status is what `virgo-tui store status` shows of an etcd store: the
// cluster's members as the one it reached lists them, each asked for its
// own status, and the installation's revision.
type Status struct {
	Endpoints []string `json:"endpoints"`
	Prefix    string   `json:"prefix"`
	// Revision is the cluster's current revision.
	Revision int64 `json:"revision"`
	// Leader names the member that leads, "" when none does (no quorum).
	Leader  string         `json:"leader"`
	Members []MemberStatus `json:"members"`
}

// MemberStatus is one member of the cluster.
type MemberStatus struct {
	Name       string   `json:"name"`
	ID         string   `json:"id"`
	ClientURLs []string `json:"client_urls"`
	// Healthy: the member answered its status within the call timeout.
	Healthy bool `json:"healthy"`
	Leader  bool `json:"leader"`
	// DBSize is the member's database file in bytes.
	DBSize int64 `json:"db_size"`
	// Error says why a member is not healthy.
	Error string `json:"error"`
}

// Status asks the cluster for its members and each member for its status,
// every call bounded by the call timeout. A cluster whose member list
// cannot be read is store.ErrUnavailable; a member that does not answer
// is listed unhealthy, with its error.
func (s *Store) Status(ctx context.Context) (Status, error) {
	if err := s.begin(ctx); err != nil {
		return Status{}, err
	}
	st := Status{Endpoints: s.opts.Endpoints, Prefix: s.prefix}
	cctx, cancel := s.call(ctx)
	list, err := s.cli.MemberList(cctx)
	cancel()
	if err != nil {
		return st, s.fail(ctx, "list the cluster's members", err)
	}
	var leader uint64
	for _, m := range list.Members {
		ms := MemberStatus{Name: m.Name, ID: fmt.Sprintf("%x", m.ID), ClientURLs: m.ClientURLs}
		if len(m.ClientURLs) == 0 {
			ms.Error = "no client URL (a member added but not started)"
		}
		for _, u := range m.ClientURLs {
			// Not s.call: a member without a leader answers its status,
			// which is how a missing leader shows.
			cctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
			r, err := s.cli.Status(cctx, u)
			cancel()
			if err != nil {
				ms.Error = s.fail(ctx, "status of "+u, err).Error()
				continue
			}
			ms.Healthy, ms.Error, ms.DBSize = true, "", r.DbSize
			if r.Leader != 0 {
				leader = r.Leader
			}
			st.Revision = max(st.Revision, r.Header.Revision)
			break
		}
		st.Members = append(st.Members, ms)
	}
	for i := range st.Members {
		if st.Members[i].ID == fmt.Sprintf("%x", leader) && leader != 0 {
			st.Members[i].Leader, st.Leader = true, st.Members[i].Name
		}
	}
	slices.SortFunc(st.Members, func(a, b MemberStatus) int { return strings.Compare(a.Name, b.Name) })
	return st, nil
}

// ErrDegraded: the cluster has no leader, or a member does not answer.
var ErrDegraded = errors.New("etcd cluster degraded")

// Degraded says, as ErrDegraded, what a status shows wrong, or nil.
func (st Status) Degraded() error {
	var bad []string
	if st.Leader == "" {
		bad = append(bad, "no member leads (no quorum)")
	}
	for _, m := range st.Members {
		if !m.Healthy {
			bad = append(bad, "member "+m.Name+" does not answer")
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrDegraded, strings.Join(bad, "; "))
}
