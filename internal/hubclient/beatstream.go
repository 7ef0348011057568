package hubclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// ErrBeatStreamEnded: the hub ended the beat stream (it answered, or the
// connection broke); open a new one.
var ErrBeatStreamEnded = errors.New("beat stream ended; open a new one")

// BeatStream is a persona runtime's open keep-alive path to the hub
// (POST /v1/presence/stream): every Beat or Report is one line on one long
// request, applied by the hub as it arrives. Use it from one goroutine.
type BeatStream struct {
	pw   *io.PipeWriter
	done chan struct{}
	res  hubapi.BeatStreamResult
	err  error
}

// OpenBeatStream starts a beat stream as the client's persona.
func (c *Client) OpenBeatStream(ctx context.Context) (*BeatStream, error) {
	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(ctx, "POST", "http://hub/v1/presence/stream", pr)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	c.setFenceHeader(req)
	req.Header.Set("Content-Type", "application/x-ndjson")
	s := &BeatStream{pw: pw, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		resp, err := c.http.Do(req)
		if err != nil {
			s.err = fmt.Errorf("%w: %w", ErrBeatStreamEnded, err)
		} else {
			if resp.StatusCode != http.StatusOK {
				s.err = readAPIError(resp)
			} else if b, rerr := io.ReadAll(io.LimitReader(resp.Body, hubapi.MaxBody)); rerr != nil {
				s.err = rerr
			} else if derr := hubapi.Decode(b, &s.res); derr != nil {
				s.err = derr
			}
			resp.Body.Close()
		}
		cause := s.err
		if cause == nil {
			cause = ErrBeatStreamEnded
		}
		pr.CloseWithError(cause)
	}()
	return s, nil
}

var beatLine = []byte("\n")

// Beat sends one heartbeat.
func (s *BeatStream) Beat() error {
	_, err := s.pw.Write(beatLine)
	return err
}

// Report sends a heartbeat with an activity and/or summary.
func (s *BeatStream) Report(rep hubapi.PresenceReport) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	_, err = s.pw.Write(append(b, '\n'))
	return err
}

// Close ends the stream and returns the hub's count of applied reports.
func (s *BeatStream) Close() (hubapi.BeatStreamResult, error) {
	s.pw.Close()
	<-s.done
	return s.res, s.err
}

// Done is closed once the hub has answered the stream — it ended it (a
// fenced-out instance, a revoked token, a shutdown) — although writes may
// still succeed; Close then returns why.
func (s *BeatStream) Done() <-chan struct{} { return s.done }
