package hubclient

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// ClaimFence claims a new instance fence for the client's persona
// generation (POST /v1/fence) and presents it on every later request of
// this client: from now on every other instance of the generation — every
// client that claimed before — is fenced out of acks, writes and beats.
func (c *Client) ClaimFence(ctx context.Context) (coord.Fence, error) {
	var fc hubapi.FenceClaim
	if err := c.do(ctx, "POST", "/v1/fence", nil, &fc); err != nil {
		return coord.NoFence, err
	}
	c.fence.Store(uint64(fc.Fence))
	return fc.Fence, nil
}

// Fence is the instance fence the client presents (coord.NoFence when none).
func (c *Client) Fence() coord.Fence { return coord.Fence(c.fence.Load()) }

// UseFence makes the client present fence (claimed by this runtime
// instance, e.g. handed to a tool it runs) on its requests.
func (c *Client) UseFence(fence coord.Fence) { c.fence.Store(uint64(fence)) }

func (c *Client) setFenceHeader(req *http.Request) {
	if f := c.fence.Load(); f != 0 {
		req.Header.Set(hubapi.FenceHeader, strconv.FormatUint(f, 10))
	}
}

// SendMessage sends a coordination message (send_broker_message) from the
// client's persona to the seat at address to.
func (c *Client) SendMessage(ctx context.Context, d coord.Draft) (coord.Message, error) {
	var m coord.Message
	err := c.do(ctx, "POST", "/v1/messages", hubapi.SendMessageRequest{To: d.To, Subject: d.Subject, Body: d.Body, ReplyTo: d.ReplyTo}, &m)
	return m, err
}

// Messages lists one page of an inbox, oldest first, after the
// continuation token after ("" for the first page; limit 0 for the hub's
// default): the client's persona's own, or, for an operator, the seat at
// address seat.
func (c *Client) Messages(ctx context.Context, seat, after string, limit int) (coord.Page, error) {
	q := url.Values{}
	if seat != "" {
		q.Set("seat", seat)
	}
	if after != "" {
		q.Set("after", after)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var page coord.Page
	err := c.do(ctx, "GET", "/v1/messages?"+q.Encode(), nil, &page)
	return page, err
}

// AckMessage acknowledges message id of the client's persona's inbox;
// repeating it is harmless (the answer says Repeat).
func (c *Client) AckMessage(ctx context.Context, id string) (coord.Ack, error) {
	var a coord.Ack
	err := c.do(ctx, "POST", "/v1/messages/"+url.PathEscape(id)+"/ack", nil, &a)
	return a, err
}

// ErrMessageStreamEnded: the hub ended a message stream (it shut down, or
// the reader fell too far behind); open a new one after the last message read.
var ErrMessageStreamEnded = errors.New("message stream ended; open a new one after the last message read")

// MessageStream is a persona runtime's open stream of its seat's messages
// (GET /v1/messages/stream): those waiting, then each new one as it is
// admitted. Use it from one goroutine.
type MessageStream struct {
	resp *http.Response
	sc   *bufio.Scanner
}

// OpenMessageStream opens the client's persona's message stream after
// message id after ("" for every message waiting). It is not retried: a
// runtime reopens it after the last message it read.
func (c *Client) OpenMessageStream(ctx context.Context, after string) (*MessageStream, error) {
	path := "/v1/messages/stream"
	if after != "" {
		path += "?" + url.Values{"after": {after}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, "GET", "http://hub"+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	c.setFenceHeader(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("open the message stream on %s: %w", c.socket, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, readAPIError(resp)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 4096), hubapi.MaxBody)
	return &MessageStream{resp: resp, sc: sc}, nil
}

// Next waits for the next message; ErrMessageStreamEnded when the hub
// ended the stream.
func (s *MessageStream) Next() (coord.Message, error) {
	for s.sc.Scan() {
		line := bytes.TrimSpace(s.sc.Bytes())
		if len(line) == 0 {
			continue // keep-alive
		}
		var m coord.Message
		if err := hubapi.Decode(line, &m); err != nil {
			return coord.Message{}, fmt.Errorf("message stream: unreadable line: %w", err)
		}
		return m, nil
	}
	return coord.Message{}, errors.Join(ErrMessageStreamEnded, s.sc.Err())
}

// Close ends the stream.
func (s *MessageStream) Close() error { return s.resp.Body.Close() }
