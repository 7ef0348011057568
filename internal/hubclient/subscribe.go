package hubclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// maxBatch bounds how many changes Subscribe hands over at once.
const maxBatch = 512

// Subscribe streams every change after sequence after, in order, as
// batches (one per read from the socket, so a console can render once per
// batch). When the hub goes away it reconnects — through the client's one
// retry policy, starting a hub if the client has a starter — and resumes
// after the last sequence it delivered, so nothing is missed or repeated.
// When that is impossible (the hub restarted, or the changes were dropped
// from its ring) it delivers a one-change batch of kind "resync" whose Seq
// is the new head: fetch a Snapshot and carry on. The channel closes when
// ctx ends, or when no hub answered within the retry budget (a Snapshot,
// retried the same way, then tells why).
//
// after belongs to the epoch of the client's last Snapshot; without one,
// to whichever hub answers first.
func (c *Client) Subscribe(ctx context.Context, after uint64) <-chan []hubapi.Change {
	out := make(chan []hubapi.Change, 16)
	go func() {
		defer close(out)
		pos := streamPos{after: after, epoch: c.getEpoch()}
		for ctx.Err() == nil {
			err := c.follow(ctx, &pos, out)
			var ae *hubapi.APIError
			switch {
			case errors.As(err, &ae) && ae.Code == hubapi.CodeOf(hubapi.ErrResync):
				pos = streamPos{after: ae.Head, epoch: ae.Epoch}
				if !send(ctx, out, []hubapi.Change{{Kind: hubapi.KindResync, Seq: ae.Head, Epoch: ae.Epoch, Time: time.Now().UTC()}}) {
					return
				}
			case transportClass(err) != "", errors.Is(err, hubapi.ErrResync):
				// The stream broke off (the hub stopped), or a change was
				// out of sequence: open it again where it ended.
			default:
				return // refused, unreadable, or no hub within the budget
			}
		}
	}()
	return out
}

type streamPos struct {
	after uint64
	epoch string
}

func send(ctx context.Context, out chan<- []hubapi.Change, b []hubapi.Change) bool {
	select {
	case out <- b:
		return true
	case <-ctx.Done():
		return false
	}
}

// openStream opens the stream after pos, retried like every call.
func (c *Client) openStream(ctx context.Context, pos streamPos) (*http.Response, error) {
	q := url.Values{"after": {strconv.FormatUint(pos.after, 10)}}
	if pos.epoch != "" {
		q.Set("epoch", pos.epoch)
	}
	var resp *http.Response
	err := c.retry(ctx, "GET /v1/stream", func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, "GET", "http://hub/v1/stream?"+q.Encode(), nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("Accept", "application/x-ndjson")
		if resp, err = c.http.Do(req); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			defer resp.Body.Close()
			return readAPIError(resp)
		}
		return nil
	})
	return resp, err
}

// follow reads one stream connection until it ends.
func (c *Client) follow(ctx context.Context, pos *streamPos, out chan<- []hubapi.Change) error {
	resp, err := c.openStream(ctx, *pos)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	pos.epoch = resp.Header.Get(hubapi.EpochHeader)
	c.setEpoch(pos.epoch)
	rd := bufio.NewReaderSize(resp.Body, 64<<10)
	var batch []hubapi.Change
	for {
		line, err := rd.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A change larger than the buffer: gather it whole.
			rest, rerr := rd.ReadBytes('\n')
			line, err = append(append([]byte{}, line...), rest...), rerr
		}
		if err != nil {
			if len(batch) > 0 {
				send(ctx, out, batch)
			}
			return err
		}
		if len(line) > 1 {
			var ch hubapi.Change
			if err := hubapi.Decode(line, &ch); err != nil {
				return fmt.Errorf("stream: unreadable change: %w", err)
			}
			if ch.Kind == hubapi.KindResync {
				if len(batch) > 0 && !send(ctx, out, batch) {
					return ctx.Err()
				}
				return &hubapi.APIError{Code: hubapi.CodeOf(hubapi.ErrResync), Head: ch.Seq, Epoch: ch.Epoch, Msg: "resync"}
			}
			if ch.Seq != pos.after+1 {
				return fmt.Errorf("stream: sequence %d after %d: %w", ch.Seq, pos.after, hubapi.ErrResync)
			}
			pos.after = ch.Seq
			batch = append(batch, ch)
		}
		if len(batch) > 0 && (rd.Buffered() == 0 || len(batch) >= maxBatch) {
			if !send(ctx, out, batch) {
				return ctx.Err()
			}
			batch = nil
		}
	}
}
