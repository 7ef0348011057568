package stamp

import (
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/procmem"
)

// reportCPU reports CPU time per op since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(procmem.CPUTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkBuildValidateHash is one stamp through the whole factory path:
// build (which runs the JSON Schema and the semantic validator), render the
// file bytes, and hash their JCS form. Goal: under 1 ms.
func BenchmarkBuildValidateHash(b *testing.B) {
	in := inputFor("work/coordinator")
	b.ReportAllocs()
	start := procmem.CPUTime()
	defer reportCPU(b, start)
	for b.Loop() {
		s, err := Build(in)
		if err != nil {
			b.Fatal(err)
		}
		bs, err := Marshal(s)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Hash(bs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProjectAndCheck derives the three consumer projections from a
// stamp file's bytes and proves their equality. Goal: under 100 µs.
func BenchmarkProjectAndCheck(b *testing.B) {
	bs := mustMarshal(b, mustBuild(b, "work/coordinator"))
	b.ReportAllocs()
	start := procmem.CPUTime()
	defer reportCPU(b, start)
	for b.Loop() {
		p, err := Project(bs)
		if err != nil {
			b.Fatal(err)
		}
		if err := CheckProjections(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRead is what Load does at a runtime's start, without the file
// read: hash, version dispatch, both validators.
func BenchmarkRead(b *testing.B) {
	bs := mustMarshal(b, mustBuild(b, "work/coordinator"))
	b.ReportAllocs()
	start := procmem.CPUTime()
	defer reportCPU(b, start)
	for b.Loop() {
		if _, err := Hash(bs); err != nil {
			b.Fatal(err)
		}
		if _, err := readHashed("bench", bs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClassKey: the class key of one stamp (marshal, RFC 8785
// canonical form, SHA-256), computed once per generation and stamp hash
// when the hub indexes the stamp's policy.
func BenchmarkClassKey(b *testing.B) {
	s := mustBuild(b, "work/core/lead")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ClassKey(s); err != nil {
			b.Fatal(err)
		}
	}
}
