package hubclient

import (
	"context"
	"net/http"
	"net/url"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// Operators lists the installation's enrolled humans (no tokens).
func (c *Client) Operators(ctx context.Context) ([]hubapi.Enrolled, error) {
	var out []hubapi.Enrolled
	return out, c.do(ctx, http.MethodGet, "/v1/operators", nil, &out)
}

// EnrolOperator enrols human name, bound to Unix user uid unless uid is
// hubapi.NoUID; the caller must be an enrolled operator.
func (c *Client) EnrolOperator(ctx context.Context, name string, uid int) (hubapi.Enrolled, error) {
	return c.EnrolOperatorKeys(ctx, name, uid, "")
}

// EnrolOperatorKeys enrols human name as EnrolOperator does and lists
// sshKeys (authorized_keys lines) for them, or, when name is already
// enrolled, lists the keys for them. A key listed for another human refuses
// the whole request (operatorkeys.ErrKeyTaken).
func (c *Client) EnrolOperatorKeys(ctx context.Context, name string, uid int, sshKeys string) (hubapi.Enrolled, error) {
	req := hubapi.EnrolRequest{Name: name, SSHKeys: sshKeys}
	if uid != hubapi.NoUID {
		req.UID = &uid
	}
	var out hubapi.Enrolled
	return out, c.do(ctx, http.MethodPost, "/v1/operators", req, &out)
}

// RemoveOperator revokes human name's token.
func (c *Client) RemoveOperator(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodDelete, "/v1/operators/"+url.PathEscape(name), nil, nil)
}
