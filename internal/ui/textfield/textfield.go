// Package textfield bounds what a text field of the console takes from the
// terminal. A field holds at most its CharLimit characters, but the
// textinput under it reads a whole paste into runes and cleans it before
// cutting it, and measures its whole value again for every key, even one it
// then drops: a 1 MiB paste arriving as separate keys (a terminal without
// bracketed paste) held a console for minutes. Here a paste is cut to the
// room the field has left in one step, and a key typed into a full field is
// dropped before the field sees it.
package textfield

import (
	"fmt"
	"unicode/utf8"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// Paste cuts msg to the room in has left (its CharLimit less the
// characters it holds) and says what was cut, for the status line: "" when
// the whole paste fits. A field without a limit takes the paste whole.
func Paste(in *textinput.Model, msg tea.PasteMsg) (tea.PasteMsg, string) {
	if in.CharLimit <= 0 {
		return msg, ""
	}
	room := max(0, in.CharLimit-utf8.RuneCountInString(in.Value()))
	n := 0
	for i := range msg.Content {
		if n == room {
			total := room + utf8.RuneCountInString(msg.Content[i:])
			msg.Content = msg.Content[:i]
			if room == 0 {
				return msg, fmt.Sprintf("paste not taken: the field is full at %d characters", in.CharLimit)
			}
			return msg, fmt.Sprintf("paste cut: %d of %d characters taken (the field's limit)", room, total)
		}
		n++
	}
	return msg, ""
}

// Full says whether msg is text typed into in that it has no room for.
// Editing keys (backspace, arrows, the field's own bindings) are never
// full: they still reach the field.
func Full(in *textinput.Model, msg tea.KeyPressMsg) bool {
	if msg.Text == "" || in.CharLimit <= 0 {
		return false
	}
	// The cursor at the limit proves the field full without copying its
	// value out, which a flood of keys would pay for every key.
	return in.Position() >= in.CharLimit || utf8.RuneCountInString(in.Value()) >= in.CharLimit
}

// FullNote is what the status line says while keys are dropped by Full.
func FullNote(in *textinput.Model) string {
	return fmt.Sprintf("the field is full at %d characters: keys not taken", in.CharLimit)
}
