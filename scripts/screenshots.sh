#!/usr/bin/env bash
# Renders the README screenshots from the real program: the console runs on a
# demo installation inside tmux, each view is captured with its colours
# (capture-pane -e), and charmbracelet's freeze turns the capture into a PNG.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "screenshots: tmux is required" >&2; exit 1; }
FREEZE=(go run github.com/charmbracelet/freeze@v0.2.2)
out=docs/img
mkdir -p "$out" bin
go build -o bin/virgo-tui ./cmd/virgo-tui
home=$(mktemp -d /tmp/virgo-shot.XXXXXX)
session=virgo-shot-$$
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$home"' EXIT

tmux new-session -d -s "$session" -x 120 -y 40 \
  "env TERM=xterm-256color COLORTERM=truecolor ./bin/virgo-tui demo --home $home"
sleep 4

shot() { # shot NAME KEYS...
  local name=$1; shift
  for k in "$@"; do tmux send-keys -t "$session" "$k"; sleep 0.4; done
  sleep 1.5
  tmux capture-pane -t "$session" -e -p > "$home/$name.ansi"
  "${FREEZE[@]}" "$home/$name.ansi" --language ansi --window --width 1300 -o "$out/$name.png" >/dev/null
  echo "wrote $out/$name.png"
}
shot presence 1
shot queue 2
shot matrix 4
