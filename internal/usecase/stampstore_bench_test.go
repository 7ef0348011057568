package usecase

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// BenchmarkRegisterWithStoredStamp is the registration use case on a real
// bbolt file, now that its one transaction carries the stamp's bytes too.
func BenchmarkRegisterWithStoredStamp(b *testing.B) {
	in := newInstallation(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := range b.N {
		_, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{
			Address: "work/p" + strconv.Itoa(i) + "/lead", Name: "Bench " + strconv.Itoa(i), Human: "human:henry"}})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadStamp is a stamp's first read after a start (the cache
// empty, nothing verified yet): from the store, as every hub now reads it,
// against the baseline of the file in the registering home, both verified
// against the hash; and a read from the store of bytes this process
// verified before (a stamp the cache dropped, read again: decoded).
func BenchmarkReadStamp(b *testing.B) {
	in := newInstallation(b)
	ctx := context.Background()
	res, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:henry"}})
	if err != nil {
		b.Fatal(err)
	}
	p := res.Persona
	b.Run("store", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := in.fresh().readStoredStamp(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("store-verified-before", func(b *testing.B) {
		u := in.fresh()
		if _, err := u.readStoredStamp(ctx, p); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for range b.N {
			if _, err := u.readStoredStamp(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("file", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			path := in.cases.localStampPath(p.ID)
			data, err := stamp.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := stamp.Verify(path, data, p.StampHash); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPolicyInRotation is the policy every persona request is decided
// by (Policy: the stamp's policy index, learned choices, assigned tasks)
// when the generations that act take turns, one request each: within the
// stamp cache's bound (1,024 generations: after the first lap every request
// finds its stamp and index cached) and past it (MaxCachedStamps + 2,048 =
// 4,096 in rotation: the least recently used goes first, so every request
// misses and reads the stamp from the store, expands, verifies and indexes
// it again). The first lap is not timed.
func BenchmarkPolicyInRotation(b *testing.B) {
	in := newInstallation(b)
	ctx := context.Background()
	ps := make([]registry.Persona, MaxCachedStamps+2048)
	var wg sync.WaitGroup
	errs := make(chan error, len(ps))
	for w := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(ps); i += 64 {
				res, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{
					Address: "w" + strconv.Itoa(i) + "/core/lead", Name: "Bench " + strconv.Itoa(i), Human: "human:henry"}})
				if err != nil {
					errs <- err
					return
				}
				ps[i] = res.Persona
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	for _, n := range []int{1024, len(ps)} {
		b.Run(fmt.Sprintf("generations=%d", n), func(b *testing.B) {
			u := in.fresh()
			for _, p := range ps[:n] {
				if _, err := u.Policy(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := u.Policy(ctx, ps[i%n]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
