package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// toolFlags are the flags of every command that is a persona tool call:
// whom an operator acts for, and the call's correlation id.
type toolFlags struct {
	persona string
	corr    string
	out     *outputFormat
}

func addToolFlags(cmd *cobra.Command) *toolFlags {
	f := &toolFlags{out: addOutputFlag(cmd)}
	cmd.Flags().StringVar(&f.persona, "persona", "", "the persona an operator acts for (ADDRESS or NAME); acting as a persona (--as ADDRESS), its own")
	cmd.Flags().StringVar(&f.corr, "correlation-id", "", "names the call for its retries: run again with the same id after a confirmation (default: a new one)")
	return f
}

// callTool makes one tool call through the hub (POST /v1/tools/{tool}) and
// prints its answer: with -o json the whole answer; else, for done, what
// show prints from the result; for allowed, the operation the runtime may
// carry out; for confirm, the confirmation to wait on and how to retry
// (exit 3); for denied, the boundary and the reason (exit 4).
func (f *toolFlags) callTool(cmd *cobra.Command, a *app, tool string, args any, show func(io.Writer, json.RawMessage) error) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
		call, err := c.CallTool(ctx, f.persona, tool, raw, f.corr)
		if err != nil {
			return err
		}
		w := cmd.OutOrStdout()
		if *f.out == outputJSON {
			err = writeJSON(w, call)
		} else {
			err = printCall(w, call, show)
		}
		if err != nil {
			return err
		}
		return callExit(call)
	})
}

func printCall(w io.Writer, call hubapi.ToolCall, show func(io.Writer, json.RawMessage) error) error {
	switch call.Status {
	case usecase.ToolDone:
		return show(w, call.Result)
	case usecase.ToolAllowed:
		_, err := fmt.Fprintf(w, "allowed: %s\n", call.Operation)
		return err
	case usecase.ToolConfirm:
		_, err := fmt.Fprintf(w, "waiting for confirmation %s: %s\nrun the same command again with --correlation-id %s once it is decided\n",
			call.ConfirmationID, call.Decision, call.CorrelationID)
		return err
	}
	_, err := fmt.Fprintln(w, call.Decision)
	return err
}

// callExit is nil for done and allowed, an exitError for confirm and
// denied (the exit statuses of authorize).
func callExit(call hubapi.ToolCall) error {
	switch call.Status {
	case usecase.ToolConfirm:
		return &exitError{code: exitConfirm, err: errors.New("confirmation required")}
	case usecase.ToolDenied:
		return &exitError{code: exitDeny, err: errors.New("denied")}
	}
	return nil
}
