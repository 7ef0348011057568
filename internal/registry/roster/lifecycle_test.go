package roster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// installation is a home on disk whose database each step reopens, so every
// assertion is about what was durably committed, not what a process remembers.
type installation struct {
	t    *testing.T
	home registry.Home
	now  time.Time
}

func newInstallation(t *testing.T) *installation {
	t.Helper()
	h, err := registry.CreateHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &installation{t: t, home: h, now: time.Date(2026, 8, 4, 9, 0, 0, 0, time.UTC)}
}

// step opens the database, runs fn with a registry over it, and closes it.
func (in *installation) step(fn func(r *Registry)) {
	in.t.Helper()
	s, err := boltstore.Open(in.home.DBPath(), boltstore.Options{})
	if err != nil {
		in.t.Fatalf("open store: %v", err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			in.t.Fatalf("close store: %v", err)
		}
	}()
	in.now = in.now.Add(time.Minute)
	now := in.now
	fn(New(s, in.home, WithClock(func() time.Time { return now })))
}

func mustRegister(t *testing.T, r *Registry, reg registry.Registration) registry.Persona {
	t.Helper()
	p, err := r.Register(context.Background(), reg)
	if err != nil {
		t.Fatalf("Register(%+v): %v", reg, err)
	}
	return p
}

func TestRegisterReopenList(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	repo := t.TempDir()
	var spica registry.Persona
	in.step(func(r *Registry) {
		spica = mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:ada",
			Repository: repo, SessionLineage: "ses-1", CharacterHash: "sha256:abc"})
		mustRegister(t, r, registry.Registration{Address: "root/secretary", Name: "Porrima"})
		mustRegister(t, r, registry.Registration{Address: "work/core/deputy", Name: "Rijl al Awwa", Pending: true})
	})
	in.step(func(r *Registry) {
		list, err := r.List(ctx, ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range list {
			got = append(got, p.Address+"="+p.Name+"/"+string(p.State))
		}
		want := "root/secretary=Porrima/active work/core/deputy=Rijl al Awwa/pending work/core/lead=Spica/active"
		if strings.Join(got, " ") != want {
			t.Errorf("List = %v, want %s", got, want)
		}
		p, err := r.Resolve(ctx, "work/core/lead")
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != spica.ID || p.Generation != 1 || p.Profile != registry.ProfileProjectLead || p.Role != "lead" ||
			p.Project != "core" || p.Human != "human:ada" || p.Repository != repo || p.SessionLineage != "ses-1" ||
			p.CharacterHash != "sha256:abc" || !p.CreatedAt.Equal(spica.CreatedAt) || p.ActivatedAt == nil {
			t.Errorf("reopened persona = %+v, registered %+v", p, spica)
		}
		fi, err := os.Stat(in.home.GenerationDir(p.ID))
		if err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
			t.Errorf("generation dir: %v, %v; want a 0700 directory", fi, err)
		}
	})
}

func TestRegisterDefaults(t *testing.T) {
	t.Setenv("USER", "grace")
	in := newInstallation(t)
	in.step(func(r *Registry) {
		p := mustRegister(t, r, registry.Registration{Address: "home/secretary", Name: "  Heze  "})
		if p.Name != "Heze" || p.Human != "human:grace" || !strings.HasPrefix(p.SessionLineage, "ses-") ||
			!strings.HasPrefix(p.CharacterHash, "sha256:") || len(p.ID) != 16 || p.Repository != "" {
			t.Errorf("defaults not filled: %+v", p)
		}
		q := mustRegister(t, r, registry.Registration{Address: "home/coordinator", Name: "Kang"})
		if q.SessionLineage == p.SessionLineage || q.CharacterHash == p.CharacterHash || q.ID == p.ID {
			t.Errorf("two personas share generated values: %+v %+v", p, q)
		}
	})
}

func TestRegisterRefusesBadInput(t *testing.T) {
	in := newInstallation(t)
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	tests := []struct {
		reg  registry.Registration
		want error
	}{
		{registry.Registration{Address: "work/lead", Name: "Spica"}, registry.ErrInvalidAddress},
		{registry.Registration{Address: "work/core/lead", Name: ""}, registry.ErrInvalidName},
		{registry.Registration{Address: "work/core/lead", Name: "Spica/2"}, registry.ErrInvalidName},
		{registry.Registration{Address: "work/core/lead", Name: strings.Repeat("x", 41)}, registry.ErrInvalidName},
		{registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:a b"}, registry.ErrInvalidHuman},
		{registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:"}, registry.ErrInvalidHuman},
		{registry.Registration{Address: "work/core/lead", Name: "Spica", Repository: filepath.Join(file, "nope")}, registry.ErrNoRepository},
		{registry.Registration{Address: "work/core/lead", Name: "Spica", Repository: file}, registry.ErrNoRepository},
		{registry.Registration{Address: "work/core/lead", Name: "Spica", SessionLineage: "a b"}, registry.ErrInvalidLineage},
		{registry.Registration{Address: "work/core/lead", Name: "Spica", CharacterHash: "x\n"}, registry.ErrInvalidLineage},
	}
	in.step(func(r *Registry) {
		for _, tt := range tests {
			if _, err := r.Register(context.Background(), tt.reg); !errors.Is(err, tt.want) {
				t.Errorf("Register(%+v) = %v, want %v", tt.reg, err, tt.want)
			}
		}
		if list, _ := r.List(context.Background(), ListOptions{All: true}); len(list) != 0 {
			t.Errorf("refused registrations left records: %+v", list)
		}
	})
	if entries, _ := os.ReadDir(filepath.Join(in.home.Dir, "personas")); len(entries) != 0 {
		t.Errorf("refused registrations left %d directories", len(entries))
	}
}

// "An address is a seat with at most one active holder (ErrSeatTaken names the holder)."
func TestSeatTaken(t *testing.T) {
	in := newInstallation(t)
	in.step(func(r *Registry) { mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Spica"}) })
	in.step(func(r *Registry) {
		_, err := r.Register(context.Background(), registry.Registration{Address: "work/core/lead", Name: "Porrima"})
		if !errors.Is(err, registry.ErrSeatTaken) {
			t.Fatalf("second holder: %v, want ErrSeatTaken", err)
		}
		if want := "work/core/lead is held by Spica (generation 1); retire it first"; !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not contain %q", err, want)
		}
	})
	in.step(func(r *Registry) {
		// The refused name stays free: a failed registration reserves nothing.
		if _, err := r.Register(context.Background(), registry.Registration{Address: "work/core/deputy", Name: "Porrima"}); err != nil {
			t.Errorf("Porrima after a refused registration: %v", err)
		}
	})
}

// "Names are unique for life across the installation, retired ones included, case-insensitively."
func TestNameReuseRefused(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	in.step(func(r *Registry) { mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Spica"}) })
	in.step(func(r *Registry) {
		_, err := r.Register(ctx, registry.Registration{Address: "home/secretary", Name: "SPICA"})
		if !errors.Is(err, registry.ErrNameTaken) || !strings.Contains(err.Error(), "belongs to Spica (work/core/lead, generation 1, active)") ||
			!strings.Contains(err.Error(), "e.g. Porrima") {
			t.Fatalf("same name, other case: %v", err)
		}
	})
	in.step(func(r *Registry) {
		if _, err := r.Retire(ctx, "spica", "moved on"); err != nil {
			t.Fatal(err)
		}
	})
	in.step(func(r *Registry) {
		for _, n := range []string{"Spica", "spica", "sPiCa"} {
			_, err := r.Register(ctx, registry.Registration{Address: "work/core/lead", Name: n})
			if !errors.Is(err, registry.ErrNameTaken) || !strings.Contains(err.Error(), "retired") {
				t.Errorf("retired name %q reused: %v", n, err)
			}
		}
	})
}

// "A seat whose holder retired can be granted to a new persona generation
// under a new name; resolving the address then gives the new holder, and the
// seat's history lists every holder in order."
func TestRetireThenRegrant(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	var first registry.Persona
	in.step(func(r *Registry) {
		first = mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Spica"})
	})
	in.step(func(r *Registry) {
		if _, err := r.Retire(ctx, "work/core/lead", ""); !errors.Is(err, registry.ErrReasonRequired) {
			t.Errorf("retire without reason: %v", err)
		}
		p, err := r.Retire(ctx, "work/core/lead", "context window exhausted")
		if err != nil {
			t.Fatal(err)
		}
		if p.State != registry.StateRetired || p.RetireReason != "context window exhausted" || p.RetiredAt == nil {
			t.Errorf("retired = %+v", p)
		}
	})
	in.step(func(r *Registry) {
		if _, err := r.Resolve(ctx, "work/core/lead"); !errors.Is(err, registry.ErrNotFound) ||
			!strings.Contains(err.Error(), "work/core/lead has no holder; last held by Spica (generation 1, retired)") {
			t.Errorf("resolve empty seat: %v", err)
		}
		if _, err := r.Retire(ctx, "Spica", "again"); !errors.Is(err, registry.ErrRetired) {
			t.Errorf("retire twice: %v", err)
		}
		if _, err := r.Activate(ctx, first.ID); !errors.Is(err, registry.ErrRetired) {
			t.Errorf("activate retired: %v, want ErrRetired", err)
		}
		mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Porrima"})
	})
	var third registry.Persona
	in.step(func(r *Registry) {
		if _, err := r.Retire(ctx, "porrima", "rotated"); err != nil {
			t.Fatal(err)
		}
		third = mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Vindemiatrix"})
	})
	in.step(func(r *Registry) {
		p, err := r.Resolve(ctx, "work/core/lead")
		if err != nil || p.ID != third.ID || p.Generation != 3 || p.State != registry.StateActive {
			t.Errorf("Resolve after regrant = %+v, %v; want Vindemiatrix generation 3", p, err)
		}
		hist, err := r.SeatHistory(ctx, "work/core/lead")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hist {
			got = append(got, h.Name+":"+string(h.State))
		}
		if want := "Spica:retired Porrima:retired Vindemiatrix:active"; strings.Join(got, " ") != want {
			t.Errorf("history = %v, want %s", got, want)
		}
		old, err := r.Resolve(ctx, "SPICA")
		if err != nil || old.ID != first.ID || old.State != registry.StateRetired {
			t.Errorf("retired persona by name = %+v, %v", old, err)
		}
		active, _ := r.List(ctx, ListOptions{})
		all, _ := r.List(ctx, ListOptions{All: true})
		if len(active) != 1 || len(all) != 3 || all[0].Generation != 1 || all[2].Generation != 3 {
			t.Errorf("List = %d active, %d all (%+v)", len(active), len(all), all)
		}
	})
}

// Pending holds the seat; refusal frees it; an approved one becomes active.
func TestPendingHoldsSeatRefusedFreesIt(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	var pend registry.Persona
	in.step(func(r *Registry) {
		pend = mustRegister(t, r, registry.Registration{Address: "work/core/deputy", Name: "Zaniah", Pending: true})
		if pend.State != registry.StatePending || pend.ActivatedAt != nil {
			t.Errorf("pending registration = %+v", pend)
		}
	})
	in.step(func(r *Registry) {
		_, err := r.Register(ctx, registry.Registration{Address: "work/core/deputy", Name: "Syrma"})
		if !errors.Is(err, registry.ErrSeatTaken) || !strings.Contains(err.Error(), "held by Zaniah (generation 1, pending confirmation)") {
			t.Errorf("seat of a pending persona: %v", err)
		}
		if _, err := r.Refuse(ctx, pend.ID, " "); !errors.Is(err, registry.ErrReasonRequired) {
			t.Errorf("refuse without reason: %v", err)
		}
		p, err := r.Refuse(ctx, pend.ID, "wrong repository")
		if err != nil || p.State != registry.StateRefused || p.RefuseReason != "wrong repository" || p.RefusedAt == nil {
			t.Fatalf("Refuse = %+v, %v", p, err)
		}
	})
	var next registry.Persona
	in.step(func(r *Registry) {
		if _, err := r.Activate(ctx, pend.ID); !errors.Is(err, registry.ErrRefused) {
			t.Errorf("activate refused: %v, want ErrRefused", err)
		}
		next = mustRegister(t, r, registry.Registration{Address: "work/core/deputy", Name: "Syrma", Pending: true})
		if next.Generation != 2 {
			t.Errorf("generation after a refused one = %d, want 2", next.Generation)
		}
	})
	in.step(func(r *Registry) {
		p, err := r.Activate(ctx, next.ID)
		if err != nil || p.State != registry.StateActive || p.ActivatedAt == nil || !p.ActivatedAt.Equal(in.now) {
			t.Fatalf("Activate = %+v, %v", p, err)
		}
		if _, err := r.Refuse(ctx, next.ID, "late"); !errors.Is(err, registry.ErrNotPending) {
			t.Errorf("refuse active: %v, want ErrNotPending", err)
		}
	})
	in.step(func(r *Registry) {
		p, err := r.Resolve(ctx, "work/core/deputy")
		if err != nil || p.ID != next.ID || p.State != registry.StateActive {
			t.Errorf("Resolve = %+v, %v", p, err)
		}
	})
}

// "A deputy's owning lead is the active holder of the same project's lead seat."
func TestOwningLead(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	in.step(func(r *Registry) {
		if _, err := r.OwningLead(ctx, "work/core/deputy"); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("no lead yet: %v", err)
		}
		lead := mustRegister(t, r, registry.Registration{Address: "work/core/lead", Name: "Spica", Pending: true})
		mustRegister(t, r, registry.Registration{Address: "work/web/lead", Name: "Auva"})
		if _, err := r.OwningLead(ctx, "work/core/deputy"); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("pending lead owns deputies: %v", err)
		}
		r.Activate(ctx, lead.ID)
		got, err := r.OwningLead(ctx, "work/core/deputy")
		if err != nil || got.ID != lead.ID {
			t.Errorf("OwningLead = %+v, %v; want Spica", got, err)
		}
		if _, err := r.OwningLead(ctx, "work/core/lead"); !errors.Is(err, registry.ErrNotDeputy) {
			t.Errorf("OwningLead of a lead: %v", err)
		}
	})
}

// An admission records the stamp hash with the persona, seat and name in
// the one transaction of its plan; a second admission planned against the
// same seat before the first committed conflicts instead of winning too.
func TestAdmissionIsOneGuardedTransaction(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	in.step(func(r *Registry) {
		p, err := r.Prepare(registry.Registration{Address: "root/operator", Name: "Lich", Pending: true})
		if err != nil {
			t.Fatal(err)
		}
		first, err := r.Admit(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := r.Prepare(registry.Registration{Address: "root/operator", Name: "Zaniah", Pending: true})
		if err != nil {
			t.Fatal(err)
		}
		second, err := r.Admit(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := first.Plan("not a hash\n"); !errors.Is(err, registry.ErrInvalidLineage) {
			t.Errorf("a stamp hash with a newline: %v, want ErrInvalidLineage", err)
		}
		plan, err := first.Plan("sha256:01")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := plan.Commit(ctx, r.s); err != nil {
			t.Fatal(err)
		}
		got, err := r.Resolve(ctx, "root/operator")
		if err != nil || got.ID != p.ID || got.StampHash != "sha256:01" || got.State != registry.StatePending {
			t.Fatalf("seat holder after the admission = %+v, %v; want Lich pending with sha256:01", got, err)
		}
		plan, err = second.Plan("sha256:02")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := plan.Commit(ctx, r.s); !errors.Is(err, store.ErrConflict) {
			t.Errorf("a second admission to the taken seat: %v, want store.ErrConflict", err)
		}
		if _, err := r.Resolve(ctx, "Zaniah"); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("the conflicting admission's name is used up: %v", err)
		}
	})
}

func TestScopesProjectsFirstDefault(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	in.step(func(r *Registry) {
		addr, name, ok, err := r.FirstPersonaDefault(ctx)
		if err != nil || !ok || addr != "root/secretary" || name != "Spica" {
			t.Errorf("empty installation default = %q %q %v %v", addr, name, ok, err)
		}
		for i, a := range []string{"work/core/lead", "work/web/deputy", "home/secretary", "work/coordinator", "root/secretary"} {
			mustRegister(t, r, registry.Registration{Address: a, Name: registry.Suggestion(i)})
		}
		if _, _, ok, _ := r.FirstPersonaDefault(ctx); ok {
			t.Errorf("default offered to a non-empty installation")
		}
		scopes, _ := r.Scopes(ctx)
		projects, _ := r.Projects(ctx, "work")
		if strings.Join(scopes, ",") != "home,root,work" || strings.Join(projects, ",") != "core,web" {
			t.Errorf("Scopes = %v, Projects(work) = %v", scopes, projects)
		}
	})
}

func TestResolveUnknown(t *testing.T) {
	in := newInstallation(t)
	in.step(func(r *Registry) {
		for _, ref := range []string{"Nobody", "work/core/lead"} {
			if _, err := r.Resolve(context.Background(), ref); !errors.Is(err, registry.ErrNotFound) {
				t.Errorf("Resolve(%q) = %v, want ErrNotFound", ref, err)
			}
		}
		if _, err := r.Resolve(context.Background(), "work/lead"); !errors.Is(err, registry.ErrInvalidAddress) {
			t.Errorf("Resolve(work/lead) = %v, want ErrInvalidAddress", err)
		}
	})
}
