// Package keymap is the console's one key map: every rebindable key of every
// view (presence, queue, class matrix, persona add wizard), its defaults, and
// the reading of <home>/keys.json. The shell reads it once and passes the
// same KeyMap to each child view, so an operator who binds approve to y
// approves with y wherever approving exists, and a approves nowhere.
package keymap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// KeyMap holds every rebindable key of the console. Field names map to the
// action names of keys.json through the actions table.
type KeyMap struct {
	// The shell's keys, live in the presence, queue and matrix views.
	Quit, Help, Filter, Jump        key.Binding
	NextView, PrevView              key.Binding
	Presence, Queue, Wizard, Matrix key.Binding
	Inbox                           key.Binding
	// Notes opens the status line's recent notes.
	Notes key.Binding
	// Latest shows, in the queue, the confirmation the latest call (bell,
	// title, desktop notification) named.
	Latest key.Binding
	// Moves and scrolling, shared by the tables, the matrix and the wizard.
	Up, Down, PageUp, PageDown key.Binding
	Top, Bottom                key.Binding
	// The tables' own keys; Zoom widens the detail pane to the whole body.
	Sort, SortReverse, Detail, Back key.Binding
	Zoom                            key.Binding
	// PaneUp and PaneDown scroll an open detail pane; the movement keys
	// always move the selection, so the pane shows the row decided.
	PaneUp, PaneDown key.Binding
	// Decisions: the queue, and the wizard's approve-on-the-spot.
	Approve, ApproveRemember, Deny key.Binding
	// Mark marks a confirmation for approve several; ApproveMarked opens the
	// dialog that lists every marked one and approves them on confirm.
	Mark, ApproveMarked key.Binding
	// The matrix view: choose a class, open its dossier, compare two classes.
	ClassPrev, ClassNext, Dossier, Compare key.Binding
	CycleA, CycleB, Swap                   key.Binding
	// The wizard: choose an answer, switch the preview pane, submit, finish
	// after submitting, or cancel from any step.
	Choose, Pane, Submit, Finish, Cancel key.Binding
	// Confirm is the one key that agrees to what a dialog shows: the
	// remember dialog's rule, a card's chosen answer.
	Confirm key.Binding
	// The inbox: reply, react, ack (mark read), tick a todo line, save a
	// file, answer a card (a dialog of its actions); each opens a field or
	// a dialog or acts through the hub, none approves.
	Reply, React, Ack, Tick, Save, Answer key.Binding
	// The presence view's resident sessions: start (or resume) the
	// selected persona's, stop it, attach the terminal to it.
	SessionStart, SessionStop, SessionAttach key.Binding
}

// Views is a set of the places a key can be live in. Two actions may share
// a key only when they are never live in the same place.
type Views uint16

// The places keys are live in. The wizard's steps are separate places
// because one key (enter) means a different thing at each.
const (
	InPresence Views = 1 << iota
	InQueue
	InMatrix
	// InWizardAnswer is the wizard's typed steps (scope, project, role,
	// name): a key that can be part of an answer is text there, whatever it
	// is bound to.
	InWizardAnswer
	InWizardPreview
	InWizardSubmitted
	// InRememberDialog is the queue's remember dialog, which takes exactly
	// one key: confirm stores the rule, any other key cancels.
	InRememberDialog
	// InInbox is the inbox view on an item of the human channel.
	InInbox
	// InInboxConfirmation is the inbox view on a confirmation routed to
	// the operator: there the queue's decision keys decide, and the
	// item keys (ack, reply, …) have nothing to act on, so a decision key
	// may share a key with an item key (approve's a is ack's a).
	InInboxConfirmation
	// InAnswerDialog is the inbox's dialog of a card's actions: the
	// movement keys choose one, confirm sends it, any other key cancels.
	InAnswerDialog
)

const (
	inTables = InPresence | InQueue | InInbox | InInboxConfirmation
	inShell  = inTables | InMatrix
	inWizard = InWizardAnswer | InWizardPreview | InWizardSubmitted
	inScroll = inShell | InWizardPreview
)

// action names one binding in keys.json and says where it is live.
type action struct {
	name  string
	get   func(*KeyMap) *key.Binding
	keys  []string
	help  string
	views Views
}

// actions is the table of actions: the source of the defaults, of keys.json
// and of the conflict check. Its order is the order of help.
var actions = []action{
	{"quit", func(k *KeyMap) *key.Binding { return &k.Quit }, []string{"q", "ctrl+c"}, "quit", inShell},
	{"help", func(k *KeyMap) *key.Binding { return &k.Help }, []string{"?"}, "help", inShell | inWizard},
	{"filter", func(k *KeyMap) *key.Binding { return &k.Filter }, []string{"/"}, "filter", inTables},
	{"jump", func(k *KeyMap) *key.Binding { return &k.Jump }, []string{":"}, "jump to address or name", inShell},
	{"next_view", func(k *KeyMap) *key.Binding { return &k.NextView }, []string{"tab"}, "next view", inShell},
	{"prev_view", func(k *KeyMap) *key.Binding { return &k.PrevView }, []string{"shift+tab"}, "previous view", inShell},
	{"presence", func(k *KeyMap) *key.Binding { return &k.Presence }, []string{"1"}, "presence", inShell},
	{"queue", func(k *KeyMap) *key.Binding { return &k.Queue }, []string{"2"}, "queue", inShell},
	{"wizard", func(k *KeyMap) *key.Binding { return &k.Wizard }, []string{"3"}, "add persona", inShell},
	{"matrix", func(k *KeyMap) *key.Binding { return &k.Matrix }, []string{"4"}, "class matrix", inShell},
	{"inbox", func(k *KeyMap) *key.Binding { return &k.Inbox }, []string{"5"}, "inbox", inShell},
	{"notes", func(k *KeyMap) *key.Binding { return &k.Notes }, []string{"!"}, "recent notes", inShell},
	{"latest", func(k *KeyMap) *key.Binding { return &k.Latest }, []string{"W"}, "show what waits (the latest call)", inShell},
	{"up", func(k *KeyMap) *key.Binding { return &k.Up }, []string{"k", "up"}, "up", inScroll | InWizardAnswer | InAnswerDialog},
	{"down", func(k *KeyMap) *key.Binding { return &k.Down }, []string{"j", "down"}, "down", inScroll | InWizardAnswer | InAnswerDialog},
	{"page_up", func(k *KeyMap) *key.Binding { return &k.PageUp }, []string{"pgup", "ctrl+b"}, "page up", inScroll},
	{"page_down", func(k *KeyMap) *key.Binding { return &k.PageDown }, []string{"pgdown", "ctrl+f"}, "page down", inScroll},
	{"top", func(k *KeyMap) *key.Binding { return &k.Top }, []string{"g", "home"}, "top", inScroll},
	{"bottom", func(k *KeyMap) *key.Binding { return &k.Bottom }, []string{"G", "end"}, "bottom", inScroll},
	{"sort", func(k *KeyMap) *key.Binding { return &k.Sort }, []string{"s"}, "sort column", inTables},
	{"sort_reverse", func(k *KeyMap) *key.Binding { return &k.SortReverse }, []string{"S"}, "reverse sort", inTables},
	{"detail", func(k *KeyMap) *key.Binding { return &k.Detail }, []string{"enter"}, "detail", inTables},
	{"back", func(k *KeyMap) *key.Binding { return &k.Back }, []string{"esc"}, "back", inShell | InWizardAnswer | InWizardPreview},
	{"zoom", func(k *KeyMap) *key.Binding { return &k.Zoom }, []string{"z"}, "widen detail", inTables},
	{"pane_up", func(k *KeyMap) *key.Binding { return &k.PaneUp }, []string{"K", "ctrl+u"}, "scroll detail up", inTables},
	{"pane_down", func(k *KeyMap) *key.Binding { return &k.PaneDown }, []string{"J", "ctrl+d"}, "scroll detail down", inTables},
	{"approve", func(k *KeyMap) *key.Binding { return &k.Approve }, []string{"a"}, "approve", InQueue | InWizardSubmitted | InInboxConfirmation},
	{"approve_remember", func(k *KeyMap) *key.Binding { return &k.ApproveRemember }, []string{"A"}, "approve + remember", InQueue | InInboxConfirmation},
	{"deny", func(k *KeyMap) *key.Binding { return &k.Deny }, []string{"d"}, "deny", InQueue | InInboxConfirmation},
	{"mark", func(k *KeyMap) *key.Binding { return &k.Mark }, []string{"space"}, "mark (approve several)", InQueue},
	{"approve_marked", func(k *KeyMap) *key.Binding { return &k.ApproveMarked }, []string{"M"}, "approve marked (a dialog lists each)", InQueue},
	{"class_prev", func(k *KeyMap) *key.Binding { return &k.ClassPrev }, []string{"left", "h"}, "class", InMatrix},
	{"class_next", func(k *KeyMap) *key.Binding { return &k.ClassNext }, []string{"right", "l"}, "class", InMatrix},
	{"dossier", func(k *KeyMap) *key.Binding { return &k.Dossier }, []string{"enter", "o"}, "dossier", InMatrix},
	{"compare", func(k *KeyMap) *key.Binding { return &k.Compare }, []string{"c"}, "compare", InMatrix},
	{"compare_next_a", func(k *KeyMap) *key.Binding { return &k.CycleA }, []string{"a"}, "next A", InMatrix},
	{"compare_next_b", func(k *KeyMap) *key.Binding { return &k.CycleB }, []string{"b"}, "next B", InMatrix},
	{"compare_swap", func(k *KeyMap) *key.Binding { return &k.Swap }, []string{"s"}, "swap A/B", InMatrix},
	{"choose", func(k *KeyMap) *key.Binding { return &k.Choose }, []string{"enter"}, "choose", InWizardAnswer},
	{"pane", func(k *KeyMap) *key.Binding { return &k.Pane }, []string{"v"}, "stamp/diff", InWizardPreview},
	{"submit", func(k *KeyMap) *key.Binding { return &k.Submit }, []string{"enter"}, "submit", InWizardPreview},
	{"finish", func(k *KeyMap) *key.Binding { return &k.Finish }, []string{"enter", "esc"}, "done", InWizardSubmitted},
	{"cancel", func(k *KeyMap) *key.Binding { return &k.Cancel }, []string{"ctrl+c"}, "cancel", inWizard},
	{"confirm", func(k *KeyMap) *key.Binding { return &k.Confirm }, []string{"y"}, "approve and store the rule; send a card's answer", InRememberDialog | InAnswerDialog},
	{"reply", func(k *KeyMap) *key.Binding { return &k.Reply }, []string{"r"}, "reply", InInbox},
	{"react", func(k *KeyMap) *key.Binding { return &k.React }, []string{"+"}, "react", InInbox},
	{"ack", func(k *KeyMap) *key.Binding { return &k.Ack }, []string{"a"}, "ack (mark read)", InInbox},
	{"tick", func(k *KeyMap) *key.Binding { return &k.Tick }, []string{"t"}, "tick a todo line", InInbox},
	{"save", func(k *KeyMap) *key.Binding { return &k.Save }, []string{"f"}, "save file", InInbox},
	{"answer", func(k *KeyMap) *key.Binding { return &k.Answer }, []string{"c"}, "answer card", InInbox},
	{"session_start", func(k *KeyMap) *key.Binding { return &k.SessionStart }, []string{"r"}, "run (start or resume) its session", InPresence},
	{"session_stop", func(k *KeyMap) *key.Binding { return &k.SessionStop }, []string{"x"}, "stop its session", InPresence},
	{"session_attach", func(k *KeyMap) *key.Binding { return &k.SessionAttach }, []string{"t"}, "attach the terminal to its session (C-b d returns)", InPresence},
}

// grantsPower are the actions that approve or store a rule: keys.json may
// not bind them to a key neverApproves refuses.
var grantsPower = []string{"approve", "approve_remember", "approve_marked", "confirm"}

// What a terminal sends for text and for backing out, by the key name Bubble
// Tea gives it: a paste's line break arrives as enter (CR) or ctrl+j (LF),
// its tab as tab, Esc followed quickly by any key as alt+that key (Esc then
// Enter is alt+enter). None of these may grant power, whatever modifier is
// added to the base key (shift+enter is still an Enter). A printable key
// is safe from a paste in a terminal that brackets pastes (the console
// sees one paste, never its keys) and is held to the stand-alone rule
// everywhere else.
var (
	// neverApproveBase are the base keys text and backing out produce.
	neverApproveBase = map[string]string{
		"enter": "a line break of a paste arrives as enter",
		"tab":   "a tab of a paste arrives as tab",
		"space": "a space of a paste or of a sentence arrives as space",
		"esc":   "esc backs out and never approves",
	}
	// neverApproveCtrl are the control keys that are the same bytes as a
	// key of neverApproveBase.
	neverApproveCtrl = map[string]string{
		"m":     "ctrl+m is the carriage return enter sends",
		"j":     "ctrl+j is the line feed a pasted line break sends",
		"i":     "ctrl+i is the byte tab sends",
		"[":     "ctrl+[ is the byte esc sends",
		"@":     "ctrl+@ is the NUL ctrl+space sends",
		"space": "ctrl+space is the NUL ctrl+@ sends",
	}
)

// neverApproves says why key (a Bubble Tea key name) may not grant power,
// or "" when it may.
func neverApproves(key string) string {
	parts := strings.Split(strings.ToLower(key), "+")
	base, mods := parts[len(parts)-1], parts[:len(parts)-1]
	if len(parts) > 1 && base == "" { // "ctrl++": the key is "+"
		base = "+"
	}
	if why, ok := neverApproveBase[base]; ok {
		return why
	}
	if slices.Contains(mods, "alt") {
		return "esc followed quickly by a key arrives as alt+that key"
	}
	if why, ok := neverApproveCtrl[base]; ok && slices.Contains(mods, "ctrl") {
		return why
	}
	return ""
}

// FileName is the key configuration's name in an installation's home.
const FileName = "keys.json"

// ErrKeyConfig wraps every refusal of a key configuration.
var ErrKeyConfig = errors.New("key configuration refused")

// ErrNeverApprove: a key a paste, a line break or a backing-out produces
// was bound to an action that approves or stores a rule (see
// neverApproves). It is wrapped with ErrKeyConfig.
var ErrNeverApprove = errors.New("key never approves")

// Default returns the console's default keys.
func Default() KeyMap {
	var k KeyMap
	for _, a := range actions {
		*a.get(&k) = binding(a, a.keys)
	}
	return k
}

func binding(a action, keys []string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(Label(keys), a.help))
}

// arrows are how help shows the arrow keys.
var arrows = map[string]string{"up": "↑", "down": "↓", "left": "←", "right": "→"}

// Label is how help shows a binding's keys: joined by /, arrows as arrows.
func Label(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k
		if a, ok := arrows[k]; ok {
			out[i] = a
		}
	}
	return strings.Join(out, "/")
}

// Load reads a keys.json of the form {"approve": ["a"], ...} over the
// defaults. A missing file yields the defaults; anything else wrong yields
// an error naming the file and the action.
func Load(path string) (KeyMap, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return Default(), fmt.Errorf("read key configuration: %w", err)
	}
	return Parse(path, data)
}

// Parse applies a keys.json document (named name in errors) over the
// default keys.
func Parse(name string, data []byte) (KeyMap, error) {
	k := Default()
	var doc map[string][]string
	if err := strictjson.Decode(data, &doc); err != nil {
		return k, fmt.Errorf("%s: %w: want {\"action\": [\"key\", ...]}: %v", name, ErrKeyConfig, err)
	}
	names := make([]string, 0, len(doc))
	for n := range doc {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		i := slices.IndexFunc(actions, func(a action) bool { return a.name == n })
		if i < 0 {
			return k, fmt.Errorf("%s: %w: unknown action %q (known: %s)", name, ErrKeyConfig, n, actionNames())
		}
		keys := doc[n]
		if len(keys) == 0 {
			return k, fmt.Errorf("%s: %w: action %q has no keys; give at least one or leave it out", name, ErrKeyConfig, n)
		}
		for _, s := range keys {
			if strings.TrimSpace(s) == "" {
				return k, fmt.Errorf("%s: %w: action %q has an empty key", name, ErrKeyConfig, n)
			}
			if why := neverApproves(s); why != "" && slices.Contains(grantsPower, n) {
				return k, fmt.Errorf("%s: %w: %w: action %q may not use %q: %s", name, ErrKeyConfig, ErrNeverApprove, n, s, why)
			}
		}
		*actions[i].get(&k) = binding(actions[i], keys)
	}
	// The remember dialog opens on approve_remember and stores on confirm:
	// one key for both would store a rule on a double press.
	for _, s := range k.Confirm.Keys() {
		if slices.Contains(k.ApproveRemember.Keys(), s) {
			return k, fmt.Errorf("%s: %w: key %q is bound to both \"approve_remember\" and \"confirm\": a double press would store a rule",
				name, ErrKeyConfig, s)
		}
	}
	// A key may serve two actions only when they are never live in the same
	// place (the matrix's a is not the queue's a).
	for i, a := range actions {
		for _, b := range actions[i+1:] {
			if a.views&b.views == 0 {
				continue
			}
			for _, s := range a.get(&k).Keys() {
				if slices.Contains(b.get(&k).Keys(), s) {
					return k, fmt.Errorf("%s: %w: key %q is bound to both %q and %q", name, ErrKeyConfig, s, a.name, b.name)
				}
			}
		}
	}
	return k, nil
}

func actionNames() string {
	n := make([]string, len(actions))
	for i, a := range actions {
		n[i] = a.name
	}
	return strings.Join(n, ", ")
}
