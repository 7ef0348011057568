#!/usr/bin/env bash
# Renders the README screenshots from the real program: e2e's TestScreenshots
# runs the console on a demo installation inside a private tmux server at
# 120x40 with colours, walks to each view as an operator would and captures
# it (capture-pane -e); charmbracelet's freeze turns each capture into
# docs/img/<view>.png. Needs tmux and Go (freeze is fetched by go run).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "screenshots: tmux is required" >&2; exit 1; }
FREEZE=(go run github.com/charmbracelet/freeze@v0.2.2)
out=docs/img
shots=$(mktemp -d /tmp/virgo-shots.XXXXXX)
trap 'rm -rf "$shots"' EXIT
mkdir -p "$out"

VIRGO_SCREENSHOTS="$shots" go test -count=1 -run '^TestScreenshots$' ./e2e

for capture in "$shots"/*.ansi; do
  name=$(basename "$capture" .ansi)
  "${FREEZE[@]}" "$capture" --language ansi --window --width 1070 --padding 20 -o "$out/$name.png" >/dev/null
  echo "wrote $out/$name.png"
done
