package confirm

import (
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// The allow path neither allocates nor scans: Authorize on recoverable work
// is a few map lookups and a glob match over the stamp's index.
func TestAuthorizeAllowPathDoesNotAllocate(t *testing.T) {
	p := policyFor(t, "work/core/lead", Options{})
	ops := []Operation{
		op(t, p, "workspace_write", "path:memory/2026/08/notes.md", stamp.ShapeWriteOverwrite),
		op(t, p, "workspace_read", "path:docs/big.log", stamp.ShapeReadRange),
		op(t, p, "get_run", "run:work/core/t-1/r-1", stamp.ShapeReadMeta),
		op(t, p, "send_broker_message", "address:work/core/deputy", stamp.ShapeMessageSend),
	}
	for _, o := range ops {
		if n := testing.AllocsPerRun(100, func() { _ = p.Authorize(o) }); n != 0 {
			t.Errorf("%s: %v allocations on the allow path", o, n)
		}
	}
}

func BenchmarkAuthorizeAllow(b *testing.B) {
	p := policyFor(b, "work/core/lead", Options{})
	o := op(b, p, "workspace_write", "path:memory/2026/08/notes.md", stamp.ShapeWriteOverwrite)
	b.ReportAllocs()
	for b.Loop() {
		if d := p.Authorize(o); d.Verdict != Allow {
			b.Fatal(d)
		}
	}
}
