package hubapi

import (
	"github.com/virgo-hub/virgo-tui/internal/channel"
)

// FileSHA256Header carries a file item's "sha256:<hex>" on
// GET /v1/inbox/{id}/file, so the client checks what it saves.
const FileSHA256Header = "Virgo-SHA256"

// InboxReply is the body of POST /v1/inbox/{id}/reply.
type InboxReply struct {
	// Text may hold several lines; the channel bounds it (16 KiB).
	Text string `json:"text"`
}

// InboxReact is the body of POST /v1/inbox/{id}/react.
type InboxReact struct {
	Reaction      string `json:"reaction" limit:"ref"`
	CorrelationID string `json:"correlation_id" limit:"correlation_id"`
}

// InboxTick is the body of POST /v1/inbox/{id}/tick: line Index of a todo
// card done (or not).
// InboxAnswer is the body of POST /v1/inbox/{id}/answer: the one action of
// the card the human chooses.
type InboxAnswer struct {
	Action string `json:"action"`
}

// InboxTick is the body of POST /v1/inbox/{id}/tick.
type InboxTick struct {
	Index int  `json:"index"`
	Done  bool `json:"done"`
}

// InboxStatus is the answer of GET /v1/inbox/status: the human's unread
// count and who is typing.
type InboxStatus struct {
	Human  string           `json:"human"`
	Unread int              `json:"unread"`
	Typing []channel.Typing `json:"typing"`
	// Reactions is the reaction catalogue.
	Reactions []string `json:"reactions"`
}
