package hub

import (
	"context"
	"reflect"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
)

// The hub's persona list is exactly the registry's List, with and without
// --all, after a restart and after a registration.
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
			want, err := th.hub.Registry().List(ctx, roster.ListOptions{All: all})
			mustNil(t, err)
			vs, err := th.operator(t, "henry").Personas(ctx, all)
			mustNil(t, err)
			got := make([]registry.Persona, len(vs))
			for i, v := range vs {
				got[i] = v.Persona
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, all=%v: listed %+v, want %+v", when, all, got, want)
			}
		}
	}
	check("after the start")
	th.addPersona(t, "work/web/lead", "Heze")
	check("after a registration")
	vs, err := th.operator(t, "henry").Personas(ctx, false)
	mustNil(t, err)
	if len(vs) != 2 || vs[1].Persona.Name != "Heze" {
		t.Fatalf("the client lists %+v, want Spica and Heze", vs)
	}
}
