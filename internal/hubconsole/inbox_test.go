package hubconsole

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// The hub's stream carries every human's channel; the console shows only
// its operator's: another human's items and typing never reach it, its
// own do, and a cleared indicator (a removal, no payload) clears by id.
func TestChannelChangesAreTheOperatorsOnly(t *testing.T) {
	sec := coord.Sender{Address: "root/secretary", Name: "Spica", ID: "g-1", Generation: 1}
	item := func(human string) hubapi.Change {
		data, _ := json.Marshal(channel.Item{ID: "h-1", Human: human, Persona: sec, Kind: channel.KindMessage, Thread: "h-1", Text: "hi"})
		return hubapi.Change{Seq: 4, Kind: hubapi.KindChannelItem, ID: human + "/#00000000000000000001", Data: data}
	}
	typing := func(human string) hubapi.Change {
		data, _ := json.Marshal(channel.Typing{Persona: sec, Until: time.Now().Add(time.Minute)})
		return hubapi.Change{Seq: 5, Kind: hubapi.KindTyping, ID: human + "/g-1", Data: data}
	}
	k := &Client{operator: "human:henry"}
	for _, ch := range []hubapi.Change{item("human:eve"), typing("human:eve"),
		{Seq: 6, Kind: hubapi.KindTyping, ID: "human:eve/g-1", Delete: true}} {
		if got := k.change(ch); len(got) != 0 {
			t.Fatalf("another human's %s reached the console: %+v", ch.Kind, got)
		}
	}
	if got := k.change(item("human:henry")); len(got) != 1 || got[0].Kind != ui.InboxItemChanged || got[0].Item.Persona != "root/secretary" ||
		got[0].Item.Text != "hi" {
		t.Fatalf("the operator's item maps to %+v", got)
	}
	if got := k.change(typing("human:henry")); len(got) != 1 || got[0].Typing.ID != "g-1" || got[0].Typing.Until.IsZero() {
		t.Fatalf("the operator's typing maps to %+v", got)
	}
	got := k.change(hubapi.Change{Seq: 7, Kind: hubapi.KindTyping, ID: "human:henry/g-1", Delete: true})
	if len(got) != 1 || got[0].Kind != ui.TypingChanged || got[0].Typing.ID != "g-1" || !got[0].Typing.Until.IsZero() {
		t.Fatalf("a cleared indicator maps to %+v", got)
	}
}

// A console served over SSH would save an inbox file on the server, as the
// server's user, not on the human's machine: the remote adapter refuses
// before it reaches the hub or the disk.
func TestARemoteConsoleSavesNoFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.pdf")
	k := &Client{remote: true}
	if _, err := k.SaveInboxFile(context.Background(), "h-1", path); !errors.Is(err, ErrSaveRemote) {
		t.Fatalf("a remote console saving a file: %v, want ErrSaveRemote", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the refused save left %s: %v", path, err)
	}
}

// A card's answer, streamed back from the hub, reaches the console's item:
// the inbox shows it answered and its answer key says so.
func TestACardsAnswerReachesTheConsole(t *testing.T) {
	at := time.Date(2026, 12, 5, 2, 0, 0, 0, time.UTC)
	card := channel.Item{ID: "h-3", Human: "human:henry", Persona: coord.Sender{Address: "root/secretary", Name: "Spica"},
		Kind: channel.KindCard, Thread: "h-3", Title: "Ship?", Actions: []string{"ship", "hold"},
		Answer: &channel.Answer{Action: "hold", By: "human:henry", At: at}}
	data, _ := json.Marshal(card)
	k := &Client{operator: "human:henry"}
	got := k.change(hubapi.Change{Seq: 4, Kind: hubapi.KindChannelItem, ID: "human:henry/#00000000000000000003", Data: data})
	if len(got) != 1 || got[0].Item.Answer == nil || *got[0].Item.Answer != (ui.CardAnswer{Action: "hold", By: "human:henry", At: at}) {
		t.Fatalf("the answered card maps to %+v", got)
	}
}
