package usecase

import (
	"context"
	"strconv"
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
// empty): from the store, as every hub now reads it, against the baseline of
// the file in the registering home, both verified against the hash.
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
			if _, err := in.cases.readStoredStamp(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("file", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := stamp.Load(in.cases.localStampPath(p.ID), p.StampHash); err != nil {
				b.Fatal(err)
			}
		}
	})
}
