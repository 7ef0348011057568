// Package e2e holds the end-to-end proof of the console: its tests build the
// real virgo-tui binary, run `virgo-tui demo` inside a private tmux server at
// a fixed size, drive it with key presses as an operator would, read the
// screen back with capture-pane, and afterwards check the installation's
// store and audit log through the command line. claude_test.go does the
// same with the real Claude Code (pinned by e2e/claude's lockfile) as a
// persona's resident session, its model a scripted Messages API endpoint on
// 127.0.0.1 (modelapi_test.go). Nothing here is imported by the program;
// the package exists for `go test ./e2e`.
package e2e
