package etcdstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
)

// store status's view of a cluster: its one member healthy and leading,
// the revision; a status without a leader or with a silent member is
// ErrDegraded, naming what.
func TestStatus(t *testing.T) {
	s := open(t)
	st, err := s.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Leader == "" || len(st.Members) != 1 || !st.Members[0].Healthy || !st.Members[0].Leader || st.Revision == 0 || st.Prefix != s.Prefix() {
		t.Fatalf("status of a healthy single member: %+v", st)
	}
	if err := st.Degraded(); err != nil {
		t.Fatalf("a healthy cluster is degraded: %v", err)
	}
	st.Leader = ""
	st.Members[0].Healthy = false
	err = st.Degraded()
	if !errors.Is(err, etcdstore.ErrDegraded) || err.Error() != "etcd cluster degraded: no member leads (no quorum); member "+st.Members[0].Name+" does not answer" {
		t.Fatalf("a cluster without a leader and a member: %v", err)
	}
}
