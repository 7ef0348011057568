package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// hostileText is what a persona wrote into a reason in a hostile
// campaign ("a reason no\u001b]0;pwned\u0007\u001b[2J is stored; confirm show
// and audit print it raw"), with a bidi override, a zero-width space, a C1
// CSI and a DEL beside it, and the invisible characters that were stored
// in 31 fields and printed raw: Unicode Tag characters (invisible text), a
// shaping control, a variation selector, the combining grapheme joiner, the
// Hangul fillers, other scripts' format controls.
const hostileText = "no\u001b]0;pwned\u0007\u001b[2J \u202eevil\u200b\u009b2J\x7f" + invisibleText

// invisibleText is "ignore all" in Tag characters, then invisible fillers
// and format controls.
const invisibleText = "\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065 \U000E0061\U000E006C\U000E006C" +
	"\u206a\ufe0f\u034f\u115f\u1160\u3164\uffa0\U0001D173\U0001BCA0\U00013430\u17b4\u0600"

// poisonedFields are the text fields of stored records that people read:
// every one of them is overwritten with hostile text.
var poisonedFields = map[string]bool{
	"reason": true, "request_reason": true, "retire_reason": true, "refuse_reason": true, "detail": true,
	"name": true, "summary": true, "activity": true, "session_lineage": true, "repository": true,
	"authority_binding": true, "correlation_id": true,
}

// poison walks a decoded JSON value and appends hostile text to every
// poisoned field; it reports whether anything changed.
func poison(v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && poisonedFields[k] {
				v[k] = s + hostileText
				changed = true
				continue
			}
			changed = poison(x) || changed
		}
	case []any:
		for _, x := range v {
			changed = poison(x) || changed
		}
	}
	return changed
}

// poisonStore rewrites every record of the home's database with hostile text
// in its people-readable fields, as a store written by a hostile persona
// through an older, laxer hub (or edited by hand) would hold.
func poisonStore(t *testing.T, home string) int {
	t.Helper()
	ctx := context.Background()
	st, err := boltstore.Open(registry.Home{Dir: home}.DBPath(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	kvs, err := st.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, kv := range kvs {
		var v any
		if json.Unmarshal(kv.Value, &v) != nil || !poison(v) {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Txn(ctx, []store.Cond{{Key: kv.Key, ModRev: kv.ModRev}}, []store.Op{store.Put(kv.Key, b)}); err != nil {
			t.Fatalf("poison %s: %v", kv.Key, err)
		}
		n++
	}
	return n
}

// wantTerminalSafe fails when out holds a byte a terminal would act on: a
// control other than line feed and tab, DEL, a C1 control, a bidi or an
// invisible character, or invalid UTF-8.
func wantTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: output is not valid UTF-8: %q", what, out)
	}
	for i, r := range out {
		if termtext.Unsafe(r) && r != '\n' && r != '\t' {
			t.Errorf("%s: %U reaches the terminal at offset %d: %q", what, r, i, out)
			return
		}
	}
}

// "Every printed byte is safe": every command that prints stored
// text, fed a store seeded with hostile text, writes no control byte to
// stdout or stderr, in tables, JSON and errors alike — and the hostile text
// is shown escaped, not dropped.
func TestEveryCommandPrintsHostileStoredTextSafely(t *testing.T) {
	c := confirmSetup(t)
	pending, _, _ := c.run("confirm", "request", "--as", "work/core/lead", "--persona", "work/core/lead", "--tool", "publish_deployment_v1",
		"--target", "external:https://example.org/r", "--shape", "deploy", "--correlation-id", "pub-1", "-o", "json")
	var res struct{ Confirmation struct{ ID string } }
	if err := json.Unmarshal([]byte(pending), &res); err != nil {
		t.Fatal(err)
	}
	denied, _, _ := c.run("confirm", "request", "--as", "work/core/lead", "--persona", "work/core/lead", "--tool", "publish_deployment_v1",
		"--target", "external:https://example.org/s", "--shape", "deploy", "--correlation-id", "pub-2", "-o", "json")
	var den struct{ Confirmation struct{ ID string } }
	if err := json.Unmarshal([]byte(denied), &den); err != nil {
		t.Fatal(err)
	}
	c.ok("confirm", "deny", den.Confirmation.ID, "--as", "human:henry", "--reason", "not now")
	c.ok("persona", "retire", "work/core/deputy", "--reason", "task done", "--as", "human:henry")

	if n := poisonStore(t, c.home); n < 5 {
		t.Fatalf("only %d records poisoned; the test would prove little", n)
	}

	commands := [][]string{
		{"persona", "list"}, {"persona", "list", "--all"}, {"persona", "list", "--all", "-o", "json"},
		{"persona", "show", "work/core/lead"}, {"persona", "show", "work/core/lead", "-o", "json"},
		{"persona", "show", "work/core/deputy"},
		{"confirm", "list", "--all"}, {"confirm", "list", "--all", "-o", "json"},
		{"confirm", "show", res.Confirmation.ID}, {"confirm", "show", res.Confirmation.ID, "-o", "json"},
		{"confirm", "show", den.Confirmation.ID}, {"confirm", "show", den.Confirmation.ID, "-o", "json"},
		{"audit"}, {"audit", "-o", "json"},
		{"prompts", "list", "--persona", "work/core/lead"},
		{"presence", "list"}, {"presence", "list", "-o", "json"},
		{"stamp", "show", "work/core/lead"},
		{"persona", "names"},
		// Errors that echo what was typed or stored.
		{"persona", "show", "evil\u001b]0;pwned\u0007"},
		{"address", "check", "work/\u001b[2J/lead"},
		{"confirm", "show", "c-\u009b2J"},
	}
	shownEscaped := false
	for _, args := range commands {
		out, errOut, _ := c.run(args...)
		what := strings.Join(args, " ")
		wantTerminalSafe(t, what+" (stdout)", out)
		wantTerminalSafe(t, what+" (stderr)", errOut)
		if strings.Contains(out, `\u001b]0;pwned\u0007`) && strings.Contains(out, `\udb40\udc69\udb40\udc67`) &&
			strings.Contains(out, `\u3164\uffa0\ud834\udd73`) {
			shownEscaped = true
		}
		if strings.HasSuffix(what, "-o json") && strings.TrimSpace(out) != "" && !json.Valid([]byte(out)) {
			t.Errorf("%s: escaped JSON no longer parses:\n%s", what, out)
		}
	}
	if !shownEscaped {
		t.Error("no command showed the hostile reason escaped: the poisoned records were never printed")
	}
}
