package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/mcpserver"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func init() { subcommands = append(subcommands, newMCPCmd) }

func newMCPCmd(a *app) *cobra.Command {
	var persona, httpAddr string
	var remote bool
	opts := mcpserver.Options{ConfirmWait: mcpserver.DefaultConfirmWait}
	cmd := &cobra.Command{
		Use:   "mcp --persona ADDRESS",
		Short: "Serve a persona's stamped tools to an MCP client (an agent harness), on stdio or HTTP",
		Long: `Run an MCP server that works as one persona: the client (Claude Code, Codex, any MCP
client or script) gets exactly the tools of the persona's capability stamp (its MCP
projection), each with its description and JSON Schema, and every call is decided by
the hub under the persona's own runtime token — never an operator's.

At start the server proves the stamp: loaded through the hub, hashed against the
persona's record, its three projections (MCP tools, handler table, launcher
allowlist) derived and compared, and every tool checked for an input schema and an
executor. It refuses to start, naming what is missing, otherwise.

A call that needs confirmation waits (up to --confirm-wait, with progress
notifications) for its authority, who decides in the console; on timeout it answers
status "unknown" with a correlation_id, and calling again with that id joins the
same confirmation. Workspace tools act on <home>/workspaces/<address>, the tree the
hub judges and hashes too; "workspace": "repository" names the bound repository.

With --http the streamable HTTP transport is served instead of stdio, on a loopback
address unless --allow-remote; every request must carry the persona's runtime token
as "Authorization: Bearer …" (401 for a bad, rotated or retired token).

While a client is connected the persona is present (it beats, and its activity is
the current tool call); when the client leaves it stops beating.`,
		Example: `  virgo-tui mcp --persona work/core/lead
  claude mcp add virgo-lead -- virgo-tui mcp --persona work/core/lead
  virgo-tui mcp --persona work/core/lead --http 127.0.0.1:7801`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			if httpAddr != "" {
				if err := mcpserver.CheckListen(httpAddr, remote); err != nil {
					return err
				}
			}
			home, err := a.home()
			if err != nil {
				return err
			}
			opts.Home = home.Dir
			a.as = persona
			return a.withClient(ctx, func(ctx context.Context, c *hubclient.Client) error {
				r, err := mcpserver.Boot(ctx, c, persona, opts)
				if err != nil {
					return err
				}
				defer r.Close()
				if httpAddr == "" {
					return r.ServeStdio(ctx, &mcp.StdioTransport{})
				}
				return serveMCPHTTP(ctx, cmd, home, persona, httpAddr, opts, r)
			})
		},
	}
	cmd.Flags().StringVar(&persona, "persona", "", "the persona's address (required): the server acts with its runtime token")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve the streamable HTTP transport on HOST:PORT instead of stdio (loopback)")
	cmd.Flags().BoolVar(&remote, "allow-remote", false, "let --http listen on a non-loopback address")
	cmd.Flags().DurationVar(&opts.ConfirmWait, "confirm-wait", mcpserver.DefaultConfirmWait,
		"how long a call waits for its confirmation before answering status unknown")
	_ = cmd.MarkFlagRequired("persona")
	return cmd
}

// serveMCPHTTP serves the streamable HTTP transport until ctx ends; each
// request's bearer token is checked with the hub, and a session acts with
// the token it presented. booted, the runtime the start-up proof booted,
// serves the requests that present its token.
func serveMCPHTTP(ctx context.Context, cmd *cobra.Command, home registry.Home, persona, addr string, opts mcpserver.Options, booted *mcpserver.Runtime) error {
	dial := func(ctx context.Context, token string) (*hubclient.Client, error) {
		return hubclient.Dial(ctx, home.Dir, hubclient.WithToken(token))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp --http: %w", err)
	}
	srv := &http.Server{Handler: mcpserver.HTTPHandler(persona, dial, opts, booted), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(cmd.ErrOrStderr(), "serving %s over MCP at http://%s/ (bearer: the persona's runtime token)\n", persona, ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = srv.Shutdown(sctx)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
