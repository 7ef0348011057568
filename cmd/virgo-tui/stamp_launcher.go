package main

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// stampBytes reads a stamp FILE, or the stamp of a registered
// ADDRESS|NAME through the hub as the bytes the factory wrote (its
// canonical encoding), refused unless they hash to the recorded hash.
func (a *app) stampBytes(ctx context.Context, arg string) (stamp.Stamp, []byte, error) {
	if isFile(arg) {
		return readStampFile(arg)
	}
	var v hubapi.StampView
	err := a.withClient(ctx, func(ctx context.Context, c *hubclient.Client) (err error) {
		v, err = c.Stamp(ctx, arg)
		return err
	})
	if err != nil {
		return stamp.Stamp{}, nil, err
	}
	b, err := stamp.Marshal(v.Stamp)
	if err != nil {
		return stamp.Stamp{}, nil, err
	}
	if err := stamp.VerifyHash("the stamp served of "+v.Address, b, v.Hash); err != nil {
		return stamp.Stamp{}, nil, err
	}
	return v.Stamp, b, nil
}
