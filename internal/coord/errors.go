package coord

import "errors"

// Named errors of coordination. The returned errors wrap them with the
// seat, message or generation concerned.
var (
	// ErrFenced: the request came from an instance of a generation that a
	// newer instance has fenced out (or one that presents no fence while
	// an instance holds one): every call of it is refused, reads included.
	ErrFenced = errors.New("fenced: this runtime instance does not hold its generation's instance fence")
	// ErrNoMessage: the seat's inbox never held a message with this id.
	ErrNoMessage = errors.New("no such message")
	// ErrBadMessageID: a message id that is not m-<number>.
	ErrBadMessageID = errors.New("invalid message id")
	// ErrInboxFull: the recipient seat has MaxInbox messages it has not acked.
	ErrInboxFull = errors.New("recipient's inbox is full")
	// ErrBadMessage: an empty body, or a subject or body over its limit
	// or holding a control, bidi or invisible character.
	ErrBadMessage = errors.New("invalid message")
)
