package hubclient

import (
	"context"
	"io"
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// StoreCheck runs the full check of the hub's database.
func (c *Client) StoreCheck(ctx context.Context) (hubapi.StoreCheck, error) {
	var out hubapi.StoreCheck
	err := c.do(ctx, "GET", "/v1/store/check", nil, &out)
	return out, err
}

// StoreBackup copies the hub's database, a consistent snapshot, into w and
// returns the bytes copied. Opening the copy is retried like every call;
// the copy itself is not (w has part of it): a copy cut short is an error.
func (c *Client) StoreBackup(ctx context.Context, w io.Writer) (int64, error) {
	var resp *http.Response
	err := c.retry(ctx, "GET /v1/store/backup", func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, "GET", "http://hub/v1/store/backup", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		if resp, err = c.http.Do(req); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			defer resp.Body.Close()
			return readAPIError(resp)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return io.Copy(w, resp.Body)
}
