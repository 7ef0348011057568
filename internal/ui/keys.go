package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap holds every rebindable key of the console. Field names map to the
// action names of keys.json through keyActions.
type KeyMap struct {
	Quit, Help, Filter, Jump        key.Binding
	NextView, PrevView              key.Binding
	Presence, Queue, Wizard, Matrix key.Binding
	Up, Down, PageUp, PageDown      key.Binding
	Top, Bottom                     key.Binding
	Sort, SortReverse, Detail, Back key.Binding
	Approve, ApproveRemember, Deny  key.Binding
	// Confirm is the answer that stores a rule in the remember dialog.
	Confirm key.Binding
}

// keyAction names one binding in keys.json.
type keyAction struct {
	name string
	get  func(*KeyMap) *key.Binding
	keys []string
	help string
}

// keyActions is the table of actions: its order is the order of help.
var keyActions = []keyAction{
	{"quit", func(k *KeyMap) *key.Binding { return &k.Quit }, []string{"q", "ctrl+c"}, "quit"},
	{"help", func(k *KeyMap) *key.Binding { return &k.Help }, []string{"?"}, "help"},
	{"filter", func(k *KeyMap) *key.Binding { return &k.Filter }, []string{"/"}, "filter"},
	{"jump", func(k *KeyMap) *key.Binding { return &k.Jump }, []string{":"}, "jump to address or name"},
	{"next_view", func(k *KeyMap) *key.Binding { return &k.NextView }, []string{"tab"}, "next view"},
	{"prev_view", func(k *KeyMap) *key.Binding { return &k.PrevView }, []string{"shift+tab"}, "previous view"},
	{"presence", func(k *KeyMap) *key.Binding { return &k.Presence }, []string{"1"}, "presence"},
	{"queue", func(k *KeyMap) *key.Binding { return &k.Queue }, []string{"2"}, "queue"},
	{"wizard", func(k *KeyMap) *key.Binding { return &k.Wizard }, []string{"3"}, "add persona"},
	{"matrix", func(k *KeyMap) *key.Binding { return &k.Matrix }, []string{"4"}, "class matrix"},
	{"up", func(k *KeyMap) *key.Binding { return &k.Up }, []string{"k", "up"}, "up"},
	{"down", func(k *KeyMap) *key.Binding { return &k.Down }, []string{"j", "down"}, "down"},
	{"page_up", func(k *KeyMap) *key.Binding { return &k.PageUp }, []string{"pgup", "ctrl+b"}, "page up"},
	{"page_down", func(k *KeyMap) *key.Binding { return &k.PageDown }, []string{"pgdown", "ctrl+f"}, "page down"},
	{"top", func(k *KeyMap) *key.Binding { return &k.Top }, []string{"g", "home"}, "top"},
	{"bottom", func(k *KeyMap) *key.Binding { return &k.Bottom }, []string{"G", "end"}, "bottom"},
	{"sort", func(k *KeyMap) *key.Binding { return &k.Sort }, []string{"s"}, "sort column"},
	{"sort_reverse", func(k *KeyMap) *key.Binding { return &k.SortReverse }, []string{"S"}, "reverse sort"},
	{"detail", func(k *KeyMap) *key.Binding { return &k.Detail }, []string{"enter"}, "detail"},
	{"back", func(k *KeyMap) *key.Binding { return &k.Back }, []string{"esc"}, "back"},
	{"approve", func(k *KeyMap) *key.Binding { return &k.Approve }, []string{"a"}, "approve"},
	{"approve_remember", func(k *KeyMap) *key.Binding { return &k.ApproveRemember }, []string{"A"}, "approve + remember"},
	{"deny", func(k *KeyMap) *key.Binding { return &k.Deny }, []string{"d"}, "deny"},
	{"confirm", func(k *KeyMap) *key.Binding { return &k.Confirm }, []string{"y"}, "store the rule (remember dialog)"},
}

// dialogOnly are the actions that only the remember dialog reads: their
// keys may also be bound to a list action (approve on y, say), since the
// dialog takes every key while it is open.
var dialogOnly = []string{"confirm"}

// neverApprove are the keys that must never grant power: the design says
// enter, space and esc never approve, so keys.json may not bind them to an
// approval.
var neverApprove = []string{"enter", "space", "esc"}

// Errors of a keys.json file.
var (
	// ErrKeyConfig wraps every refusal of a key configuration.
	ErrKeyConfig = errors.New("key configuration refused")
)

// DefaultKeyMap returns the console's default keys.
func DefaultKeyMap() KeyMap {
	var k KeyMap
	for _, a := range keyActions {
		*a.get(&k) = key.NewBinding(key.WithKeys(a.keys...), key.WithHelp(strings.Join(a.keys, "/"), a.help))
	}
	return k
}

// LoadKeyMap reads a keys.json of the form {"approve": ["a"], ...} over the
// defaults. A missing file yields the defaults; anything else wrong yields
// an error naming the file and the action.
func LoadKeyMap(path string) (KeyMap, error) {
	k := DefaultKeyMap()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return k, nil
	}
	if err != nil {
		return k, fmt.Errorf("read key configuration: %w", err)
	}
	return ParseKeyMap(path, data)
}

// ParseKeyMap applies a keys.json document (named name in errors) over the
// default keys.
func ParseKeyMap(name string, data []byte) (KeyMap, error) {
	k := DefaultKeyMap()
	var doc map[string][]string
	if err := json.Unmarshal(data, &doc); err != nil {
		return k, fmt.Errorf("%s: %w: want {\"action\": [\"key\", ...]}: %v", name, ErrKeyConfig, err)
	}
	names := make([]string, 0, len(doc))
	for n := range doc {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		i := slices.IndexFunc(keyActions, func(a keyAction) bool { return a.name == n })
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
			if (n == "approve" || n == "approve_remember" || n == "confirm") && slices.Contains(neverApprove, s) {
				return k, fmt.Errorf("%s: %w: action %q may not use %q: enter, space and esc never approve", name, ErrKeyConfig, n, s)
			}
		}
		a := keyActions[i]
		*a.get(&k) = key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(keys, "/"), a.help))
	}
	for _, s := range k.Confirm.Keys() {
		if slices.Contains(k.ApproveRemember.Keys(), s) {
			return k, fmt.Errorf("%s: %w: key %q is bound to both \"approve_remember\" and \"confirm\": a double press would store a rule", name, ErrKeyConfig, s)
		}
	}
	owner := map[string]string{}
	for _, a := range keyActions {
		if slices.Contains(dialogOnly, a.name) {
			continue
		}
		for _, s := range a.get(&k).Keys() {
			if prev, ok := owner[s]; ok {
				return k, fmt.Errorf("%s: %w: key %q is bound to both %q and %q", name, ErrKeyConfig, s, prev, a.name)
			}
			owner[s] = a.name
		}
	}
	return k, nil
}

func actionNames() string {
	n := make([]string, len(keyActions))
	for i, a := range keyActions {
		n[i] = a.name
	}
	return strings.Join(n, ", ")
}
