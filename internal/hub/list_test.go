package hub

import (
	"context"
	"reflect"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// The first list after a start is served from the start's read; it must
// still be exactly the registry's List, with and without --all, and a
// write since must show at once.
func TestListAfterStartIsTheRegistrysList(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	th.addPersona(t, "work/core/lead", "Spica")
	th.addPersona(t, "work/core/deputy", "Porrima")
	th.retire(t, "work/core/deputy", "done")
	th.stop()

	th = startHub(t, home, Config{}, Timeouts{})
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		for _, all := range []bool{false, true} {
			want, err := th.hub.Registry().List(ctx, registry.ListOptions{All: all})
			mustNil(t, err)
			got, err := th.hub.listPersonas(ctx, registry.ListOptions{All: all})
			mustNil(t, err)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, all=%v: listed %+v, want %+v", when, all, got, want)
			}
		}
	}
	check("after the start")
	th.hub.startList.Lock()
	cached := th.hub.startList.ps != nil
	th.hub.startList.Unlock()
	if !cached {
		t.Fatal("the start's read is not kept for the first list")
	}
	th.addPersona(t, "work/web/lead", "Heze")
	check("after a registration")
	vs, err := th.operator(t, "henry").Personas(ctx, false)
	mustNil(t, err)
	if len(vs) != 2 || vs[1].Persona.Name != "Heze" {
		t.Fatalf("the client lists %+v, want Spica and Heze", vs)
	}
}
