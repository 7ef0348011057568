// Package e2e holds the end-to-end proof of the console: its tests build the
// real virgo-tui binary, run `virgo-tui demo` inside a private tmux server at
// a fixed size, drive it with key presses as an operator would, read the
// screen back with capture-pane, and afterwards check the installation's
// store and audit log through the command line. Nothing here is imported by
// the program; the package exists for `go test ./e2e`.
package e2e
