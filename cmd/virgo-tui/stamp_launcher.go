package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/mcpserver"
	"github.com/virgo-hub/virgo-tui/internal/registry"
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

// writeLauncher prints the launcher allowlist as harness takes it.
func (a *app) writeLauncher(w io.Writer, out outputFormat, harness, address string, allow []string) error {
	home := a.homeFlag
	if home == "" {
		home = os.Getenv(registry.HomeEnv)
	}
	l, err := mcpserver.LauncherFor(harness, a.name, home, address, allow)
	if err != nil {
		return err
	}
	if out == outputJSON {
		return writeJSON(w, l)
	}
	for _, path := range []string{".mcp.json", ".claude/settings.json"} {
		b, err := json.MarshalIndent(l.Files[path], "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "# %s\n%s\n\n", path, b)
	}
	quoted := make([]string, len(l.AddCommand))
	for i, s := range l.AddCommand {
		quoted[i] = shellWord(s)
	}
	fmt.Fprintf(w, "# or register it from the command line:\n%s\n", strings.Join(quoted, " "))
	return nil
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
