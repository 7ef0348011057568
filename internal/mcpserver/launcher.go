package mcpserver

import (
	"errors"
	"fmt"
	"strings"
)

// Harnesses are the agent harnesses Launcher renders a configuration for.
var Harnesses = []string{"claude-code"}

// ErrUnknownHarness: a harness Launcher has no form for.
var ErrUnknownHarness = errors.New("unknown agent harness")

// ServerName is the MCP server name a harness registers a persona's
// server under: "virgo-" and the address with '-' for '/'.
func ServerName(address string) string { return "virgo-" + strings.ReplaceAll(address, "/", "-") }

// Launcher is the launcher projection in the form a harness takes: how to
// start the persona's MCP server, and the allowlist of its tools as the
// harness names them.
type Launcher struct {
	Harness string `json:"harness"`
	Server  string `json:"server"`
	// Command and Args start the server on stdio.
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// Allowed are the launcher allowlist's tools as the harness names
	// them (Claude Code: mcp__<server>__<tool>).
	Allowed []string `json:"allowed_tools"`
	// Files are the harness's configuration files, by path, with their
	// content (JSON objects to write or merge).
	Files map[string]any `json:"files"`
	// AddCommand registers the server from the command line instead.
	AddCommand []string `json:"add_command"`
}

// LauncherFor renders the launcher allowlist of address (the stamp's
// launcher projection) for harness; program is how the harness runs
// virgo-tui, home the installation home when not the default.
func LauncherFor(harness, program, home, address string, allowlist []string) (Launcher, error) {
	if harness != "claude-code" {
		return Launcher{}, fmt.Errorf("--harness %q: %w; use one of %s", harness, ErrUnknownHarness, strings.Join(Harnesses, ", "))
	}
	name := ServerName(address)
	args := []string{"mcp", "--persona", address}
	if home != "" {
		args = append(args, "--home", home)
	}
	l := Launcher{Harness: harness, Server: name, Command: program, Args: args}
	for _, t := range allowlist {
		l.Allowed = append(l.Allowed, "mcp__"+name+"__"+t)
	}
	l.Files = map[string]any{
		".mcp.json": map[string]any{"mcpServers": map[string]any{
			name: map[string]any{"type": "stdio", "command": program, "args": args},
		}},
		".claude/settings.json": map[string]any{
			"enabledMcpjsonServers": []string{name},
			"permissions":           map[string]any{"allow": l.Allowed},
		},
	}
	l.AddCommand = append([]string{"claude", "mcp", "add", "--scope", "project", name, "--", program}, args...)
	return l, nil
}
