package harness

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// ClaudeHookEvents are the Claude Code hook events a session installs, each
// running `session hook … EVENT`; what each one means for presence is the
// session package's (session.HookState).
var ClaudeHookEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "Stop", "SessionEnd"}

// The configuration of a Claude Code session, in its directory.
const (
	claudeMCPFile      = "mcp.json"
	claudeSettingsFile = "settings.json"
	// claudeConfigDir is the session's own CLAUDE_CONFIG_DIR: its first-run
	// state, its transcripts (what --resume reads), nothing of the user's.
	claudeConfigDir = "claude"
	// claudeState is Claude Code's own state file in its config dir.
	claudeState = ".claude.json"
	// apiKeyEnv is the API key Claude Code asks, at its first run, whether
	// to use; its last 20 characters are how it records the answer.
	apiKeyEnv = "ANTHROPIC_API_KEY"
)

// claudeCode is the Claude Code row (flags of 2.1.328, docs/sessions.md):
// one MCP server from a private --mcp-config and no other
// (--strict-mcp-config), every built-in tool off (--tools ""), the stamp's
// tools pre-allowed (--allowedTools) and anything else denied without a
// dialog (--permission-mode dontAsk: the default auto mode would ask a
// classifier and block on a dialog), hooks from a private --settings, and
// a private CLAUDE_CONFIG_DIR holding the first-run state (onboarding done,
// the working directory trusted, the API key accepted) and the transcripts,
// of which only its own settings are read (--setting-sources user: the
// working directory's .claude/, which the persona can write, adds nothing).
func claudeCode(s Session, l *Launch) error {
	l.Allowed = qualified(s.Tools, "mcp__", l.Server, "__")
	mcpFile, settingsFile := filepath.Join(s.Dir, claudeMCPFile), filepath.Join(s.Dir, claudeSettingsFile)
	config := filepath.Join(s.Dir, claudeConfigDir)
	server := map[string]any{"type": "stdio", "command": l.MCPCommand[0], "args": l.MCPCommand[1:]}
	if s.Fence != "" {
		// Handed to the server in its own configuration too, not only
		// through the harness's environment.
		server["env"] = map[string]string{FenceEnv: s.Fence}
	}
	servers := map[string]any{l.Server: server}
	mcp, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		return err
	}
	hooks := map[string]any{}
	hook := HookCommand(s)
	for _, ev := range ClaudeHookEvents {
		entry := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": ShellLine(append(hook, ev)), "timeout": 10}}}
		if ev == "PreToolUse" || ev == "PostToolUse" {
			entry["matcher"] = "*"
		}
		hooks[ev] = []any{entry}
	}
	settings, err := json.MarshalIndent(map[string]any{
		"hooks":       hooks,
		"permissions": map[string]any{"allow": l.Allowed, "defaultMode": "dontAsk"},
	}, "", "  ")
	if err != nil {
		return err
	}
	// The first-run state, merged into what Claude Code keeps there: the
	// same server also at user scope, so `claude mcp list` run with this
	// CLAUDE_CONFIG_DIR shows the session's server (the session itself
	// reads only --mcp-config).
	first := map[string]any{
		"hasCompletedOnboarding": true,
		"projects":               map[string]any{s.Workdir: map[string]any{"hasTrustDialogAccepted": true}},
		"mcpServers":             servers,
	}
	if key := s.Env[apiKeyEnv]; key != "" {
		first["customApiKeyResponses"] = map[string]any{"approved": []string{key[max(0, len(key)-20):]}}
	}
	state, err := json.MarshalIndent(first, "", "  ")
	if err != nil {
		return err
	}
	l.Files = []File{
		{Path: mcpFile, Content: string(mcp) + "\n"},
		{Path: settingsFile, Content: string(settings) + "\n"},
		{Path: filepath.Join(config, claudeState), Content: string(state) + "\n", Merge: true},
	}
	l.Env = []string{"CLAUDE_CONFIG_DIR=" + config}
	name := "--session-id"
	if l.Resume {
		name = "--resume"
	}
	l.Argv = []string{s.Program,
		"--mcp-config", mcpFile, "--strict-mcp-config",
		"--tools", "",
		"--allowedTools", strings.Join(l.Allowed, ","),
		"--permission-mode", "dontAsk",
		"--settings", settingsFile, "--setting-sources", "user",
		name, l.SessionID}
	return nil
}

// codex is the Codex row: its one MCP server and that server's enabled
// tools through -c overrides of its config.toml (mcp_servers.<name>), in a
// read-only sandbox. It cannot switch its own tools off (Harness.Lock).
func codex(s Session, l *Launch) error {
	l.Allowed = qualified(s.Tools, "", l.Server, ".")
	key := "mcp_servers." + l.Server
	l.Argv = []string{s.Program,
		"-c", key + ".command=" + tomlString(l.MCPCommand[0]),
		"-c", key + ".args=" + tomlStrings(l.MCPCommand[1:]),
		"-c", key + ".enabled_tools=" + tomlStrings(s.Tools),
		"--sandbox", "read-only"}
	return nil
}

// command is the row of any other program: what it needs comes in its
// environment (the *Env names), nothing in a file.
func command(s Session, l *Launch) error {
	if s.Program == "" {
		return ErrNoProgram
	}
	l.Allowed = sorted(s.Tools)
	resume := "0"
	if l.Resume {
		resume = "1"
	}
	l.Argv = []string{s.Program}
	l.Env = []string{
		MCPCommandEnv + "=" + ShellLine(l.MCPCommand),
		HookCommandEnv + "=" + ShellLine(HookCommand(s)),
		SessionIDEnv + "=" + l.SessionID,
		ResumeEnv + "=" + resume,
		AllowedEnv + "=" + strings.Join(l.Allowed, ","),
	}
	return nil
}

// tomlString is s as a TOML basic string: JSON's string escapes are all
// TOML's too.
func tomlString(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}

// tomlStrings is a TOML array of strings.
func tomlStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = tomlString(s)
	}
	return fmt.Sprintf("[%s]", strings.Join(q, ", "))
}
