// Package usecasetest builds installations for the tests and benchmarks of
// several packages (the hub's, the command's) the way the product builds
// them: each persona registered through the registration use case, as
// `persona add` registers it — its capability stamp built, written and
// stored in the registration's transaction, its activation queued — and
// activated by its bound human. One fixture for every many-persona figure,
// so that each counts what a real persona leaves in the store (a persona
// registered straight through the registry has no stamp, no activation
// confirmation and no audit entries: a store a fraction of the size).
package usecasetest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// Human is the human every generation RegisterMany registers is bound to,
// and who approves its activation in Stamped.
const Human = "human:henry"

// Registrar registers one generation.
type Registrar func(registry.Registration) (registry.Persona, error)

// Stamped registers a generation on st as `persona add` does — its
// capability stamp built, written into its generation directory under home
// and stored in the registration's transaction, its activation queued —
// and approves the activation as its bound human (Human): what a real
// active persona leaves in the store.
func Stamped(st store.Store, home registry.Home) Registrar {
	reg := roster.New(st, home)
	cases := usecase.New(usecase.Config{Store: st, Registry: reg, Queue: queue.New(st, queue.Options{})})
	human := confirm.Principal{Kind: confirm.PrincipalHuman, Name: "henry"} // Human
	return func(r registry.Registration) (registry.Persona, error) {
		ctx := context.Background()
		res, err := cases.Register(ctx, usecase.Key{}, usecase.Registration{Registration: r})
		if err != nil {
			return registry.Persona{}, err
		}
		if _, err := cases.Decide(ctx, usecase.Key{}, human, res.Confirmation.ID, true, confirm.RememberNone, ""); err != nil {
			return registry.Persona{}, err
		}
		return reg.Get(ctx, res.Persona.ID)
	}
}

// RegisterMany registers n generations with register, from 64 goroutines
// so that the store's group commit batches their transactions. Generation
// i is s<i/2>/core/lead (i even) or s<i/2>/core/deputy (i odd), named
// "Bench i", bound to Human; out[i] is generation i.
func RegisterMany(tb testing.TB, n int, register Registrar) []registry.Persona {
	tb.Helper()
	out := make([]registry.Persona, n)
	var wg sync.WaitGroup
	var failed atomic.Value
	work := make(chan int)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				role := "lead"
				if i%2 == 1 {
					role = "deputy"
				}
				p, err := register(registry.Registration{
					Address: fmt.Sprintf("s%d/core/%s", i/2, role), Name: fmt.Sprintf("Bench %d", i), Human: Human})
				if err != nil {
					failed.Store(err)
					continue
				}
				out[i] = p
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		tb.Fatal(err)
	}
	return out
}

// StampedHome registers n generations as `persona add` does (Stamped,
// RegisterMany) in the bbolt store of home, which it opens and closes, and
// returns them: the realistic many-persona installation.
func StampedHome(tb testing.TB, home registry.Home, n int) []registry.Persona {
	tb.Helper()
	st, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	ps := RegisterMany(tb, n, Stamped(st, home))
	if err := st.Close(); err != nil {
		tb.Fatal(err)
	}
	return ps
}

// DictionaryOut is the file a dictionary-writing tool test writes, named by
// environment variable env: the test is skipped when env is unset, and fails
// when the file exists — a dictionary that has shipped is frozen, and a new
// one is a new file beside it (a new format or codec byte).
func DictionaryOut(tb testing.TB, env string) string {
	tb.Helper()
	out := os.Getenv(env)
	if out == "" {
		tb.Skip("a tool: set " + env + "=FILE to write a new dictionary")
	}
	if _, err := os.Stat(out); err == nil {
		tb.Fatalf("%s exists: a dictionary that has shipped is frozen; write a new format's file", out)
	}
	return out
}
