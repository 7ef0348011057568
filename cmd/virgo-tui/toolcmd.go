package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// toolFlags are the flags of every command that is one persona tool call:
// whose stamp applies (an operator acting for a persona; a persona acting
// with --as uses its own) and the call's correlation id for its retries.
type toolFlags struct {
	persona     string
	correlation string
	out         *outputFormat
}

func addToolFlags(cmd *cobra.Command) *toolFlags {
	f := &toolFlags{out: addOutputFlag(cmd)}
	cmd.Flags().StringVar(&f.persona, "persona", "", "the persona a human operator acts for (ADDRESS or NAME); a persona acting with --as acts as itself")
	cmd.Flags().StringVar(&f.correlation, "correlation-id", "", "names the call: retry a call waiting on a confirmation with the same id, and it is carried out once")
	return f
}

// callTool makes one tool call through the hub (usecase.CallTool decides
// it under the persona's stamp) and reports a call that did not run: a
// confirmation to wait for (exit 3) or a denial (exit 4), in text or as
// the call's JSON. done is called with the result of a call carried out.
func (a *app) callTool(cmd *cobra.Command, f *toolFlags, tool string, args map[string]any, done func(w io.Writer, result json.RawMessage) error) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
		call, err := c.CallTool(ctx, f.persona, tool, raw, f.correlation)
		if err != nil {
			return err
		}
		w := cmd.OutOrStdout()
		if *f.out == outputJSON {
			if err := writeJSON(w, call); err != nil {
				return err
			}
		}
		switch call.Status {
		case tools.ToolConfirm:
			if *f.out != outputJSON {
				fmt.Fprintf(w, "%s: waiting for confirmation %s — %s\nretry with --correlation-id %s once it is approved\n",
					tool, call.ConfirmationID, termtext.Clean(call.Decision.String()), call.CorrelationID)
			}
			return verdictExit(confirm.Confirm)
		case tools.ToolDenied:
			if *f.out != outputJSON {
				fmt.Fprintf(w, "%s: %s\n", tool, termtext.Clean(call.Decision.String()))
			}
			return verdictExit(confirm.Deny)
		}
		if *f.out == outputJSON {
			return nil
		}
		tw := termtext.NewWriter(w)
		return errors.Join(done(tw, call.Result), tw.Flush())
	})
}

// decodeResult reads a call's result into v.
func decodeResult[T any](result json.RawMessage) (T, error) {
	var v T
	if err := strictjson.DecodeOpen(result, &v); err != nil {
		return v, fmt.Errorf("the hub's answer: %w", err)
	}
	return v, nil
}
