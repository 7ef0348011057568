package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Work arrives as messages (a task assigned, a report, a decision, the
// human's answer, a confirmation routed to the persona), and a connected
// client is told when one does: the persona's inbox is an MCP resource a
// client subscribes to (resources/subscribe), and every message the hub
// admits to the seat sends notifications/resources/updated for it. A
// subscription, not a log message: it is the protocol's way to say "what
// you read changed", the TypeScript and Go SDKs' clients handle it, and
// MCP's logging is deprecated (SEP-2577). The client then reads the
// resource, or calls list_coordination_messages; both are the hub's one
// decided read of the inbox.

// InboxURI is the persona's coordination inbox as an MCP resource.
const InboxURI = "virgo://inbox"

// inboxRetry is how long the watch waits before it opens the hub's message
// stream again after the hub ended it (a restart).
const inboxRetry = time.Second

// ErrNoSuchResource: a subscription to a resource the server does not
// have.
var ErrNoSuchResource = errors.New("no such resource; this server has " + InboxURI)

// inboxWatch follows the seat's message stream for the runtime's MCP
// servers, from the first subscription until the runtime stops.
type inboxWatch struct {
	mu      sync.Mutex
	servers []*mcp.Server
	once    sync.Once
	stop    context.CancelFunc
	done    chan struct{}
}

// addInbox gives s the inbox resource, read through the hub's
// list_coordination_messages, and makes s told of every message.
func (r *Runtime) addInbox(s *mcp.Server) {
	r.inbox.mu.Lock()
	r.inbox.servers = append(r.inbox.servers, s)
	r.inbox.mu.Unlock()
	s.AddResource(&mcp.Resource{URI: InboxURI, Name: "inbox", Title: "Coordination inbox", MIMEType: "application/json",
		Description: "The messages waiting for this persona's seat, oldest first (the first page of list_coordination_messages). " +
			"Subscribe to be told when one arrives: work assigned, reported, decided or routed to this persona, and the human's answers."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			tc, err := r.c.CallTool(ctx, "", "list_coordination_messages", json.RawMessage(`{}`), "")
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: InboxURI, MIMEType: "application/json", Text: string(tc.Result)}}}, nil
		})
}

// subscribe is the servers' subscription handler: the inbox is the one
// resource, and its first subscriber starts the watch.
func (r *Runtime) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if req.Params.URI != InboxURI {
		return fmt.Errorf("%s: %w", req.Params.URI, ErrNoSuchResource)
	}
	r.inbox.once.Do(func() {
		ctx, stop := context.WithCancel(r.life)
		r.inbox.stop, r.inbox.done = stop, make(chan struct{})
		go r.watchInbox(ctx)
	})
	return nil
}

// unsubscribe is the servers' unsubscription handler; the SDK forgets the
// session's subscription, and the watch runs on for the others.
func (r *Runtime) unsubscribe(context.Context, *mcp.UnsubscribeRequest) error { return nil }

// watchInbox follows the seat's message stream until ctx ends: each
// message (those waiting when it opens, then each admitted) tells every
// subscribed session that the inbox changed. After the hub ends the
// stream it opens it again after the last message read; a runtime fenced
// out or retired has its context ended.
func (r *Runtime) watchInbox(ctx context.Context) {
	defer close(r.inbox.done)
	after := ""
	for ctx.Err() == nil {
		ms, err := r.c.OpenMessageStream(ctx, after)
		if err == nil {
			stop := context.AfterFunc(ctx, func() { ms.Close() })
			for {
				m, err := ms.Next()
				if err != nil {
					break
				}
				after = m.ID
				r.inboxUpdated(ctx)
			}
			stop()
			ms.Close()
		}
		select {
		case <-ctx.Done():
		case <-time.After(inboxRetry):
		}
	}
}

// codeServerClosing is the JSON-RPC code of the SDK's "server is closing"
// (jsonrpc2.ErrServerClosing, not exported): how a session ends when the
// client leaves while a request of its is still open, as an inbox
// subscription is for as long as it lasts (subscriptions/listen). That is
// the client leaving, not a failure of the server.
const codeServerClosing = -32004

// serverClosing reports whether err is the session's end while a request
// was open (codeServerClosing).
func serverClosing(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == codeServerClosing
}

// inboxUpdated tells the subscribers of every server of the runtime.
func (r *Runtime) inboxUpdated(ctx context.Context) {
	r.inbox.mu.Lock()
	servers := append([]*mcp.Server(nil), r.inbox.servers...)
	r.inbox.mu.Unlock()
	for _, s := range servers {
		_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: InboxURI})
	}
}

// closeInbox ends the watch, if it runs, and waits for it.
func (r *Runtime) closeInbox() {
	r.inbox.once.Do(func() {}) // no watch starts after this
	if r.inbox.stop != nil {
		r.inbox.stop()
		<-r.inbox.done
	}
}
