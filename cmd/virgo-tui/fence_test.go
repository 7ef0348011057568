package main

import (
	"context"
	"strconv"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// claimFences claims n instance fences for the persona at address, as n
// runtime instances starting one after the other would, while no hub runs.
func claimFences(t *testing.T, home, address string, n int) []coord.Fence {
	t.Helper()
	h := registry.Home{Dir: home}
	st, err := boltstore.Open(h.DBPath(), boltstore.Options{})
	mustNil(t, err)
	defer st.Close()
	reg := roster.New(st, h)
	cases := usecase.New(usecase.Config{Store: st, Registry: reg, Queue: queue.New(st, queue.Options{})})
	ctx := context.Background()
	p, _, err := reg.ActiveHolder(ctx, address)
	mustNil(t, err)
	out := make([]coord.Fence, n)
	for i := range out {
		out[i], err = cases.ClaimFence(ctx, p)
		mustNil(t, err)
	}
	return out
}

// A command acting as a persona presents $VIRGO_FENCE on every call, and
// the hub holds every call to the generation's latest fence: with an
// older instance's fence, or none once an instance claimed one, a write
// (decision raise) and a read (decision list, msg list) fail with a
// non-zero exit and say why; with the latest fence they work.
func TestCommandOfAFencedInstanceFails(t *testing.T) {
	c := confirmSetup(t) // work/core/lead Porrima, work/core/deputy Zaniah
	fences := claimFences(t, c.home, "work/core/lead", 2)
	older, newer := strconv.FormatUint(uint64(fences[0]), 10), strconv.FormatUint(uint64(fences[1]), 10)
	raise := []string{"decision", "raise", "--as", "work/core/lead", "--question", "Ship it?", "--option", "yes", "--option", "no"}
	for _, fence := range []string{older, ""} {
		t.Setenv(FenceEnv, fence)
		for _, args := range [][]string{raise, {"decision", "list", "--as", "work/core/lead"}, {"msg", "list", "--as", "work/core/lead"}} {
			wantContains(t, "VIRGO_FENCE="+fence+" "+args[0]+" "+args[1], c.fails(args...), "fenced", "work/core/lead", "claimed at")
		}
	}
	t.Setenv(FenceEnv, older)
	wantContains(t, "the older instance", c.fails(raise...), "a newer instance of this generation holds its fence")
	t.Setenv(FenceEnv, newer)
	c.ok(raise...)
	wantContains(t, "list with the latest fence", c.ok("decision", "list", "--as", "work/core/lead"), "Ship it?")
}
