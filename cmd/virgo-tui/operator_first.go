package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/operators"
	"github.com/virgo-hub/virgo-tui/internal/operators/roll"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
)

// checkFirstInstall is asked before `operator add` writes a first install's
// token file in home (it found no operator file there): the file enrols its
// operator only where operators.EnrolsByFile says so. A fresh home of an
// installation that already has operators (another host's, over one etcd
// prefix or one store file) would get a token every hub refuses, so the
// command refuses instead, writing nothing, and names the way that works.
// The home's own hub, when one answers, says it (it may hold the store's
// lock); else the store is read directly.
func (a *app) checkFirstInstall(ctx context.Context, home registry.Home, name string) error {
	enrols, others, err := a.enrolsByFile(ctx, home)
	if err != nil {
		return fmt.Errorf("operator add %s: check whether the installation already has operators: %w", name, err)
	}
	if enrols {
		return nil
	}
	existing := "an enrolled operator"
	if len(others) > 0 {
		existing = strings.Join(others, ", ")
	}
	store := ""
	if a.storeFlag != "" {
		store = " --store " + a.storeFlag
	}
	return fmt.Errorf("operator add %s in %s: %w (enrolled: %s). Enrol %s through an enrolled operator: "+
		"copy their token file (operators/OPERATOR.token in the home that enrolled them) to %s/operators/OPERATOR.token here (0600), then run: "+
		"virgo-tui --home %s%s --as human:OPERATOR operator add %s",
		name, home.Dir, operators.ErrNotFirstInstall, existing, name, home.Dir, home.Dir, store, strings.TrimPrefix(name, "human:"))
}

// enrolsByFile answers operators.EnrolsByFile for home: through the hub
// answering on its socket, else from the store's records (others: the
// active operators, each "human:NAME on HOST", when read there).
func (a *app) enrolsByFile(ctx context.Context, home registry.Home) (enrols bool, others []string, err error) {
	// Acting as an operator here would take the first-install branch of
	// hubapi.OperatorToken, writing a file: the probe carries no token.
	if h, err := hubclient.Probe(ctx, home.Dir); err == nil {
		return h.EnrolsByFile, nil, nil
	}
	host, err := os.Hostname()
	if err != nil {
		return false, nil, fmt.Errorf("name this host: %w", err)
	}
	s, err := storeurl.Open(ctx, storeurl.Spec(a.storeFlag), home.DBPath(), boltstore.Options{Timeout: directOpenTimeout})
	if err != nil {
		return false, nil, err
	}
	all, err := roll.List(ctx, s)
	if err = errors.Join(err, s.Close()); err != nil {
		return false, nil, err
	}
	for _, e := range all {
		if e.Active() {
			others = append(others, e.Principal()+" on "+e.Host)
		}
	}
	return operators.EnrolsByFile(slices.Values(all), host, home.Dir), others, nil
}
