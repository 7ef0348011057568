package confirm

import (
	"context"
	"strings"
)

// Via is the transport a human decided through when it was not the local
// socket: the SSH console, with the fingerprint of the key the session
// authenticated with. The hub sets it from the session's token, never from
// a request body, and every decision and audit entry of the request
// records it.
type Via struct {
	// Transport is how the human reached the hub: TransportSSH.
	Transport string `json:"transport"`
	// Key is the SHA-256 fingerprint of the authenticating key ("SHA256:…").
	Key string `json:"key,omitempty"`
}

// TransportSSH is the SSH console's Via.Transport.
const TransportSSH = "ssh"

// String is "via ssh SHA256:…", as listings print it.
func (v Via) String() string {
	return strings.TrimSpace("via " + v.Transport + " " + v.Key)
}

type viaKey struct{}

// WithVia returns ctx carrying v, the transport of the request it serves;
// the decisions and audit entries planned under it record v.
func WithVia(ctx context.Context, v *Via) context.Context {
	if v == nil {
		return ctx
	}
	return context.WithValue(ctx, viaKey{}, v)
}

// ViaOf is the transport ctx carries (WithVia), or nil for the local socket.
func ViaOf(ctx context.Context) *Via {
	v, _ := ctx.Value(viaKey{}).(*Via)
	return v
}
