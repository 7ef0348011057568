package hubapi

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/virgo-hub/virgo-tui/internal/coord"
)

// FenceHeader carries a runtime instance's fence (POST /v1/fence) on its
// requests: a decimal number, absent for none. It is the claiming
// instance's own: the hub never logs it nor shows it to anyone else.
const FenceHeader = "Virgo-Fence"

// ErrBadFence: a Virgo-Fence header that is not a positive decimal number.
var ErrBadFence = errors.New("invalid Virgo-Fence header")

// ParseFence reads a Virgo-Fence header value ("" is coord.NoFence).
func ParseFence(s string) (coord.Fence, error) {
	if s == "" {
		return coord.NoFence, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 || strconv.FormatUint(n, 10) != s {
		return coord.NoFence, fmt.Errorf("%w: want the positive number POST /v1/fence answered", ErrBadFence)
	}
	return coord.Fence(n), nil
}

// FenceClaim is the answer of POST /v1/fence: the instance's fence, to
// send as Virgo-Fence on every later request of this instance.
type FenceClaim struct {
	Fence coord.Fence `json:"fence"`
}

// SendMessageRequest is the body of POST /v1/messages: a coordination
// message from the token's persona to the seat To.
type SendMessageRequest struct {
	To      string `json:"to" limit:"ref"`
	Subject string `json:"subject,omitempty" limit:"message_subject"`
	// Body may hold several lines; it is bounded by message_body.
	Body string `json:"body"`
	// ReplyTo is the id of the message this one answers.
	ReplyTo string `json:"reply_to,omitempty" limit:"ref"`
}

// MessagePage is one page of a seat's inbox (GET /v1/messages), oldest
// first; Next is the continuation token of the next page, empty on the last.
type MessagePage = coord.Page

// MessageAck is the answer of POST /v1/messages/{id}/ack.
type MessageAck = coord.Ack
