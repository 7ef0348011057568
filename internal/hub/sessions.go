package hub

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys/keyring"
)

// The SSH console (internal/sshconsole) runs in the hub's process and acts
// for the human whose key a session authenticated with. It never holds
// that human's operator token: the hub issues each session a token of its
// own, kept only as a hash in memory, that identifies the human and the
// transport (confirm.Via: "ssh" and the key's fingerprint), so every
// decision made through it is audited as such. A session token works only
// while its human is enrolled — removing the operator ends their SSH
// sessions within a second, as it ends their streams — and is forgotten
// when the session ends or the hub stops.

// SSHKeyOwner is the enrolled human public key pk is listed for. A key
// listed for nobody is operatorkeys.ErrUnknownKey; one whose human is no
// longer enrolled is hubapi.ErrNotEnrolled.
func (h *Hub) SSHKeyOwner(ctx context.Context, pk ssh.PublicKey) (operatorkeys.Key, error) {
	k, err := keyring.Owner(ctx, h.st, pk)
	if err != nil {
		return operatorkeys.Key{}, err
	}
	if !h.tokens.enrolled(k.Human) {
		return operatorkeys.Key{}, fmt.Errorf("%s (key %s): %w", k.Human, k.Fingerprint, hubapi.ErrNotEnrolled)
	}
	return k, nil
}

// OpenSSHSession issues a token acting as human through via, for one SSH
// console session; end forgets it. The human must be enrolled.
func (h *Hub) OpenSSHSession(human string, via confirm.Via) (token string, end func(), err error) {
	if !h.tokens.enrolled(human) {
		return "", nil, fmt.Errorf("%s: %w", human, hubapi.ErrNotEnrolled)
	}
	tok := hubapi.NewToken()
	key := hashToken(tok)
	id := hubapi.Identity{Kind: hubapi.PrincipalHuman, Principal: human, Via: &via}
	h.tokens.mu.Lock()
	h.tokens.sessions[key] = id
	h.tokens.mu.Unlock()
	return tok, func() {
		h.tokens.mu.Lock()
		delete(h.tokens.sessions, key)
		h.tokens.mu.Unlock()
		h.woken.fire(humanStreams) // the session's streams end with it
	}, nil
}

// enrolled reports whether human ("human:<name>") is an enrolled operator
// — with a token, or for SSH only: by the store's enrolment records, with
// this home's token files as they are now.
func (t *Tokens) enrolled(human string) bool {
	if err := t.refreshOperators(); err != nil {
		return false
	}
	name, ok := strings.CutPrefix(human, "human:")
	return ok && t.enrolmentOf(name).Active()
}

// sessionIdentity is a session token's identity while its human is
// enrolled; afterwards the token is refused like a deleted operator token.
func (t *Tokens) sessionIdentity(id hubapi.Identity) (hubapi.Identity, error) {
	if !t.enrolled(id.Principal) {
		return hubapi.Identity{}, fmt.Errorf("%w: %s is no longer enrolled", hubapi.ErrUnauthenticated, id.Principal)
	}
	return id, nil
}
