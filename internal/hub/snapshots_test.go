package hub

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/operators"
	"github.com/virgo-hub/virgo-tui/internal/operators/roll"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	personasnap "github.com/virgo-hub/virgo-tui/internal/snapshot"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// snapTargets are the operations the snapshot tests' lead learned: the
// first two remembered in its experience layer, the third in its class's
// overlay.
var snapTargets = []string{"external:https://example.org/a", "external:https://example.org/b", "external:https://example.org/c"}

// learnedLead is an installation whose work/core/lead (Spica) learned
// snapTargets, and that generation's snapshot file.
func learnedLead(t *testing.T) (*testHub, registry.Persona, []byte) {
	t.Helper()
	ctx := context.Background()
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	henry := th.operator(t, "henry")
	for i, target := range snapTargets {
		res, err := th.runtime(t, lead).RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "publish_deployment_v1", Target: target,
			Shape: "deploy", CorrelationID: fmt.Sprintf("learn-%d", i)})
		mustNil(t, err)
		where := confirm.RememberPersona
		if i == 2 {
			where = confirm.RememberClass
		}
		_, err = henry.Decide(ctx, res.Confirmation.ID, hubapi.DecideRequest{Approve: true, Remember: where})
		mustNil(t, err)
	}
	file, err := henry.PersonaSnapshot(ctx, "work/core/lead")
	mustNil(t, err)
	return th, lead, file
}

// publicKey is th's snapshot key in authorized_keys form.
func publicKey(t *testing.T, th *testHub) string {
	t.Helper()
	k, err := personasnap.InstallationKey(th.home.Dir)
	mustNil(t, err)
	return personasnap.FormatPublic(k.Public().(ed25519.PublicKey))
}

// ask requests the lead's publish of target and reports whether a
// remembered approval allowed it (else it waits for a human).
func ask(t *testing.T, th *testHub, p registry.Persona, target, corr string) bool {
	t.Helper()
	res, err := th.runtime(t, p).RequestConfirmation(context.Background(), hubapi.OperationRequest{Tool: "publish_deployment_v1",
		Target: target, Shape: "deploy", CorrelationID: corr})
	mustNil(t, err)
	return res.Status == confirm.StatusAllowed && res.Decision.Remembered
}

// listing is every key of th's store with its value and revisions, but
// the operators' enrolments, which the hub settles from their token files
// in the background whatever the requests.
func listing(t *testing.T, th *testHub) map[string]string {
	t.Helper()
	kvs, err := th.hub.st.List(context.Background(), "")
	mustNil(t, err)
	out := map[string]string{}
	for _, kv := range kvs {
		if strings.HasPrefix(kv.Key, roll.Prefix) {
			continue
		}
		out[kv.Key] = fmt.Sprintf("%d/%d %x", kv.CreateRev, kv.ModRev, kv.Value)
	}
	return out
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		mustNil(t, err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// diffKeys names the keys whose entries differ between two listings.
func diffKeys(a, b map[string]string) []string {
	var out []string
	for k := range a {
		if a[k] != b[k] {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// changedMembers names the members whose digests differ between two
// snapshots.
func changedMembers(t *testing.T, a, b personasnap.Snapshot) []string {
	t.Helper()
	var out []string
	for i, d := range a.Manifest.Members {
		if d != b.Manifest.Members[i] {
			out = append(out, d.Name)
		}
	}
	return out
}

// Snapshot → verify → restore into a fresh installation → snapshot again
// gives the same member digests except persona.json, whose registration
// and activation times are the new installation's; the learned choices
// match as they were, since the stamp is equal.
func TestSnapshotRoundTripIntoAFreshInstallation(t *testing.T) {
	ctx := context.Background()
	a, _, file := learnedLead(t)
	again, err := a.operator(t, "henry").PersonaSnapshot(ctx, "Spica")
	mustNil(t, err)
	if !bytes.Equal(file, again) {
		t.Fatal("two snapshots of the same state differ")
	}
	keyA := publicKey(t, a)
	trustA, err := personasnap.ParsePublic(keyA)
	mustNil(t, err)
	first, err := personasnap.Open(file, []ed25519.PublicKey{trustA})
	mustNil(t, err)
	if len(first.Contents.Experience) != 2 || len(first.Contents.ClassOverlay) != 1 {
		t.Fatalf("snapshot carries %d experience and %d class choices, want 2 and 1", len(first.Contents.Experience), len(first.Contents.ClassOverlay))
	}

	b := startHub(t, shortHome(t), Config{}, Timeouts{})
	henry := b.operator(t, "henry")
	before := listing(t, b)
	_, err = henry.RestoreSnapshot(ctx, file, nil)
	wantCode(t, err, "snapshot_untrusted_signer")
	if after := listing(t, b); !maps.Equal(before, after) {
		t.Fatalf("a refused restore changed the store: %v", diffKeys(before, after))
	}

	res, err := henry.RestoreSnapshot(ctx, file, []string{keyA})
	mustNil(t, err)
	if !res.Registered || !res.StampEqual || res.Renamed || res.Written != 3 || res.Review != 0 || res.Confirmation == nil {
		t.Fatalf("restore into a fresh installation: %+v", res)
	}
	_, err = henry.Decide(ctx, res.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	p, err := b.hub.Registry().Get(ctx, res.Persona.ID)
	mustNil(t, err)
	for i, target := range snapTargets {
		if !ask(t, b, p, target, fmt.Sprintf("after-%d", i)) {
			t.Errorf("%s: the restored approval does not answer it", target)
		}
	}

	fileB, err := henry.PersonaSnapshot(ctx, "work/core/lead")
	mustNil(t, err)
	keyB, err := personasnap.ParsePublic(publicKey(t, b))
	mustNil(t, err)
	second, err := personasnap.Open(fileB, []ed25519.PublicKey{keyB})
	mustNil(t, err)
	if got := changedMembers(t, first, second); !slices.Equal(got, []string{personasnap.MemberPersona}) {
		t.Fatalf("members that changed: %v, want only %s", got, personasnap.MemberPersona)
	}
	var ra, rb map[string]any
	mustNil(t, json.Unmarshal(mustMember(t, first), &ra))
	mustNil(t, json.Unmarshal(mustMember(t, second), &rb))
	var fields []string
	for k := range ra {
		if fmt.Sprint(ra[k]) != fmt.Sprint(rb[k]) {
			fields = append(fields, k)
		}
	}
	slices.Sort(fields)
	if !slices.Equal(fields, []string{"activated_at", "created_at"}) {
		t.Fatalf("persona fields that changed: %v, want activated_at and created_at", fields)
	}
}

// mustMember is the persona.json of s, encoded as the snapshot holds it.
func mustMember(t *testing.T, s personasnap.Snapshot) []byte {
	t.Helper()
	b, err := json.Marshal(s.Contents.Persona)
	mustNil(t, err)
	return b
}

// Restored where the seat had a generation before, the stamp differs
// (its generation number): every learned choice waits for review, the
// class-overlay one in the persona's own layer so that no other persona of
// the class is widened, and a matching request asks again until a human
// carries the choice forward.
func TestSnapshotRestoreWithAChangedStampWaitsForReview(t *testing.T) {
	ctx := context.Background()
	a, _, file := learnedLead(t)
	c := startHub(t, shortHome(t), Config{}, Timeouts{})
	c.addPersona(t, "work/core/lead", "Vindemiatrix")
	c.retire(t, "work/core/lead", "making room")
	henry := c.operator(t, "henry")
	res, err := henry.RestoreSnapshot(ctx, file, []string{publicKey(t, a)})
	mustNil(t, err)
	if !res.Registered || res.StampEqual || res.Persona.Generation != 2 || res.Review != 3 {
		t.Fatalf("restore over a seat held before: %+v", res)
	}
	_, err = henry.Decide(ctx, res.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	p, err := c.hub.Registry().Get(ctx, res.Persona.ID)
	mustNil(t, err)
	stale, err := henry.Prompts(ctx, "work/core/lead", true)
	mustNil(t, err)
	if len(stale) != 3 {
		t.Fatalf("%d choices wait for review, want 3", len(stale))
	}
	all, err := henry.Prompts(ctx, "", false)
	mustNil(t, err)
	for _, ch := range all {
		if ch.Where == confirm.RememberClass {
			t.Fatalf("a restored choice with a changed stamp went to the class overlay: %+v", ch)
		}
	}
	if ask(t, c, p, snapTargets[0], "before-review") {
		t.Fatal("a choice waiting for review answered a request")
	}
	_, err = henry.CarryForwardChoice(ctx, "work/core/lead", stale[0].ID())
	mustNil(t, err)
	if !ask(t, c, p, stale[0].Key.Target.String(), "after-review") {
		t.Fatal("the carried-forward choice does not answer its request")
	}
}

// One flipped byte anywhere (sampled over every region of the file), a
// cut file and a manifest re-signed by another key are refused by the
// restore, and nothing is written: the store's full listing and the
// home's persona directories are as before.
func TestSnapshotRestoreRefusesDamageAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	a, _, file := learnedLead(t)
	keyA := publicKey(t, a)
	trustA, err := personasnap.ParsePublic(keyA)
	mustNil(t, err)
	b := startHub(t, shortHome(t), Config{}, Timeouts{})
	henry := b.operator(t, "henry")
	before, dirs := listing(t, b), dirNames(t, b.home.PersonasDir())

	s, err := personasnap.Open(file, []ed25519.PublicKey{trustA})
	mustNil(t, err)
	_, other, err := ed25519.GenerateKey(rand.Reader)
	mustNil(t, err)
	resigned, err := personasnap.Encode(s.Contents, other)
	mustNil(t, err)
	bad := map[string][]byte{"re-signed by another key": resigned, "cut short": file[:len(file)/2], "empty": {},
		"over the size limit": append(bytes.Clone(file), make([]byte, personasnap.MaxBytes)...)}
	for off := 0; off < len(file); off += 61 {
		f := bytes.Clone(file)
		f[off] ^= 0x20
		bad[fmt.Sprintf("byte %d flipped", off)] = f
	}
	for what, f := range bad {
		_, err := henry.RestoreSnapshot(ctx, f, []string{keyA})
		if err == nil {
			t.Fatalf("%s: restored", what)
		}
		if ae, ok := err.(*hubapi.APIError); !ok || ae.Status/100 != 4 {
			t.Fatalf("%s: %v, want a refusal of the file", what, err)
		}
	}
	if after := listing(t, b); !maps.Equal(before, after) {
		t.Fatalf("a refused restore changed the store: %v", diffKeys(before, after))
	}
	if got := dirNames(t, b.home.PersonasDir()); !slices.Equal(got, dirs) {
		t.Fatalf("persona directories %v after refused restores, want %v", got, dirs)
	}
}

// secretsOf is every secret the installation at home holds, in the forms
// a careless writer could copy it in: each private file of the home but
// the database and the stamps (tokens, keys) as it is and trimmed, the
// seed of every private key in raw, hex and base64, and every token hash
// the store keeps.
func secretsOf(t *testing.T, th *testHub) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(th.home.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSocket != 0 {
			return err
		}
		switch filepath.Base(path) {
		case "virgo.db", stamp.FileName, "hub.pid":
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[path] = b
		out[path+" (trimmed)"] = bytes.TrimSpace(b)
		if k, err := gossh.ParseRawPrivateKey(b); err == nil {
			if ek, ok := k.(*ed25519.PrivateKey); ok {
				seed := ek.Seed()
				out[path+" seed"] = seed
				out[path+" seed hex"] = []byte(hex.EncodeToString(seed))
				out[path+" seed base64"] = []byte(base64.StdEncoding.EncodeToString(seed))
			}
		}
		return nil
	})
	mustNil(t, err)
	kvs, err := th.hub.st.List(context.Background(), "")
	mustNil(t, err)
	for _, kv := range kvs {
		if strings.HasPrefix(kv.Key, TokenHashPrefix) {
			out[kv.Key] = kv.Value // the hex hash of the generation's token
		}
		if strings.HasPrefix(kv.Key, roll.Prefix) {
			var e operators.Enrolment
			if json.Unmarshal(kv.Value, &e) == nil && e.TokenSHA256 != "" {
				out[kv.Key] = []byte(e.TokenSHA256)
			}
		}
	}
	return out
}

// A snapshot holds no token, secret or operator's material: none of the
// installation's secrets appears in it in any form, nor any token's prefix.
func TestSnapshotHoldsNoSecret(t *testing.T) {
	th, lead, file := learnedLead(t)
	th.operator(t, "vega") // a second operator, with a token of their own
	secrets := secretsOf(t, th)
	var tokens, keys int
	for what, s := range secrets {
		if len(s) < 16 {
			continue
		}
		if bytes.Contains(file, s) {
			t.Errorf("the snapshot holds %s", what)
		}
		switch {
		case strings.Contains(what, "seed"):
			keys++
		case bytes.HasPrefix(s, []byte(hubapi.TokenPrefix)):
			tokens++
		}
	}
	// the scan saw the generation's token, the operators' and the keys
	if tokens < 3 || keys < 3 {
		t.Fatalf("scanned %d tokens and %d key forms (of %d secrets); the scan missed the home's secrets", tokens, keys, len(secrets))
	}
	if bytes.Contains(file, []byte(hubapi.TokenPrefix)) {
		t.Error("the snapshot holds a token's prefix")
	}
	if !bytes.Contains(file, []byte(lead.SessionLineage)) {
		t.Error("the snapshot lacks the generation's session lineage")
	}
}

// Retirement keeps the generation's snapshot in the home; restored into
// the same installation it puts back what the store lost of that
// generation's layer — a learned choice carried away, its stamp bytes —
// and keeps what is there.
func TestRetirementKeepsASnapshotThatRestoresItsLayer(t *testing.T) {
	ctx := context.Background()
	th, lead, _ := learnedLead(t)
	th.retire(t, "work/core/lead", "regranting")
	kept, err := personasnap.KeptOf(th.home.Dir, "work/core/lead")
	mustNil(t, err)
	if len(kept) != 1 || kept[0].ID != lead.ID || kept[0].Generation != 1 {
		t.Fatalf("kept snapshots of the seat: %+v, want generation 1 (%s)", kept, lead.ID)
	}
	file, err := os.ReadFile(kept[0].Path)
	mustNil(t, err)
	trust, err := personasnap.ParsePublic(publicKey(t, th))
	mustNil(t, err)
	s, err := personasnap.Open(file, []ed25519.PublicKey{trust})
	mustNil(t, err)
	if s.Contents.Persona.State != registry.StateRetired || len(s.Contents.Experience) != 2 {
		t.Fatalf("kept snapshot: state %s, %d learned choices; want retired with 2", s.Contents.Persona.State, len(s.Contents.Experience))
	}
	// the console's snapshot lists it, for the presence view's detail
	view, err := th.operator(t, "henry").Snapshot(ctx)
	mustNil(t, err)
	if len(view.Kept) != 1 || view.Kept[0].Path != kept[0].Path || view.Kept[0].Address != "work/core/lead" {
		t.Fatalf("the console's snapshot lists kept snapshots %+v, want %s", view.Kept, kept[0].Path)
	}

	// the next generation carries one choice away; the store loses the
	// retired generation's stamp bytes
	th.addPersona(t, "work/core/lead", "Porrima")
	henry := th.operator(t, "henry")
	stale, err := henry.Prompts(ctx, "work/core/lead", true)
	mustNil(t, err)
	_, err = henry.CarryForwardChoice(ctx, "work/core/lead", stale[0].ID())
	mustNil(t, err)
	_, err = th.hub.st.Txn(ctx, nil, []store.Op{{Key: "stamp/" + lead.ID, Delete: true}})
	mustNil(t, err)

	res, err := henry.RestoreSnapshot(ctx, file, nil)
	mustNil(t, err)
	if res.Registered || !res.StampEqual || !res.Stamp || res.Written != 1 || res.Present != 2 || res.Persona.ID != lead.ID {
		t.Fatalf("restore into its own installation: %+v", res)
	}
	left, err := henry.Prompts(ctx, "work/core/lead", true)
	mustNil(t, err)
	if len(left) != 2 {
		t.Fatalf("%d stale choices after the restore, want the 2 of the retired generation", len(left))
	}
	again, err := henry.RestoreSnapshot(ctx, file, nil)
	mustNil(t, err)
	if again.Written != 0 || again.Stamp {
		t.Fatalf("a second restore wrote %d choices (stamp %v), want nothing", again.Written, again.Stamp)
	}
}

// A restore killed right after its first transaction left the generation
// registered with part of its learned choices; the same restore run again
// writes the rest, and every choice is there once.
func TestRestoreKilledAfterItsFirstTransactionCompletesWhenRunAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a hub subprocess")
	}
	ctx := context.Background()
	a := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := a.addPersona(t, "work/core/lead", "Spica")
	keys, err := a.hub.cases.LearnKeys(ctx, lead)
	mustNil(t, err)
	const n = 300 // three transactions' worth
	cs := make([]confirm.Choice, n)
	for i := range cs {
		cs[i] = confirm.Choice{Key: confirm.PromptKey{StampHash: keys.StampHash, HandlerAction: "deployment.publish",
			Target: confirm.Target{Kind: confirm.TargetExternal, Value: fmt.Sprintf("https://example.org/%d", i)}, Shape: "deploy"},
			Verdict: confirm.Allow, Boundary: confirm.BoundaryPublication, Persona: lead.Address, Profile: string(lead.Profile),
			Where: confirm.RememberPersona, Decider: confirm.Principal{Kind: confirm.PrincipalHuman, Name: "henry"}, ConfirmationID: fmt.Sprintf("c-%d", i)}
	}
	for len(cs) > 0 {
		plan, rest, _, err := a.hub.queue.Prompts().PlanRestore(ctx, cs, store.MaxTxnOps)
		mustNil(t, err)
		_, err = plan.Commit(ctx, a.hub.st)
		mustNil(t, err)
		cs = rest
	}
	file, err := a.operator(t, "henry").PersonaSnapshot(ctx, "work/core/lead")
	mustNil(t, err)
	keyA := publicKey(t, a)

	home := shortHome(t)
	b := startHub(t, home, Config{}, Timeouts{})
	b.operator(t, "henry")
	b.stop()
	child := startChildHub(t, home.Dir, usecase.FailpointEnv+"="+usecase.UseRestore+":"+usecase.StepAfterCommit)
	c, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("henry"))
	mustNil(t, err)
	if _, err := c.RestoreSnapshot(ctx, file, []string{keyA}); err == nil {
		t.Fatal("the restore was answered; the hub should have died after its first transaction")
	}
	c.Close()
	wantKilled(t, child, usecase.StepAfterCommit)

	b = startHub(t, home, Config{}, Timeouts{})
	henry := b.operator(t, "henry")
	p, err := b.hub.Registry().Get(ctx, lead.ID)
	mustNil(t, err)
	first, err := henry.Prompts(ctx, "work/core/lead", false)
	mustNil(t, err)
	if p.State != registry.StatePending || len(first) == 0 || len(first) >= n {
		t.Fatalf("after the kill: %s with %d of %d choices; want pending with part of them", p.State, len(first), n)
	}
	res, err := henry.RestoreSnapshot(ctx, file, []string{keyA})
	mustNil(t, err)
	if res.Registered || res.Written != n-len(first) || res.Present != len(first) {
		t.Fatalf("the restore run again: %+v; want the %d choices missing written", res, n-len(first))
	}
	all, err := henry.Prompts(ctx, "work/core/lead", false)
	mustNil(t, err)
	if len(all) != n {
		t.Fatalf("%d choices after the second restore, want %d", len(all), n)
	}
}
