package hubclient

import (
	"context"
	"net/url"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// PersonaSnapshot returns the signed snapshot file of the generation ref names
// (an address: its current holder; a name; a generation id).
func (c *Client) PersonaSnapshot(ctx context.Context, ref string) ([]byte, error) {
	return c.get(ctx, "/v1/snapshots/"+escapeRef(ref))
}

// RestoreSnapshot sends a snapshot file to the hub, which verifies it —
// signed by its own key, a key its trusted-keys file lists, or one of
// trust (authorized_keys lines) — and restores it; a file that fails is
// refused with what is wrong, and nothing is written.
func (c *Client) RestoreSnapshot(ctx context.Context, file []byte, trust []string) (hubapi.Restored, error) {
	path := "/v1/snapshots/restore"
	if len(trust) > 0 {
		path += "?" + url.Values{"trust": trust}.Encode()
	}
	key := NewIdempotencyKey()
	var answer []byte
	err := c.retry(ctx, "POST "+path, func(ctx context.Context) error {
		var err error
		answer, err = c.exchangeAs(ctx, "POST", path, hubapi.SnapshotMediaType, file, key)
		return err
	})
	if err != nil {
		return hubapi.Restored{}, err
	}
	var out hubapi.Restored
	return out, hubapi.Decode(answer, &out)
}
