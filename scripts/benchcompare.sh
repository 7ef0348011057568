#!/usr/bin/env bash
# Compares the figures of BENCHMARKS.md (the rows of scripts/benchtable, each
# figure alone where its baseline has a run of its own: -runs -figures)
# between two commits in one run: it builds each benchmark package's test
# binary at both commits (detached worktrees under /tmp, removed at the
# end), runs them alternately — every benchmark at BEFORE, then at AFTER,
# COUNT times over — so that the load of a shared machine falls on both
# sides alike, and compares the two outputs with benchstat.
#
#   scripts/benchcompare.sh BEFORE AFTER [COUNT]    (COUNT: 5)
#
# The raw outputs stay in $BENCH_COMPARE_OUT (scripts/benchcompare.out/), the
# comparison goes to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 BEFORE AFTER [COUNT]" >&2; exit 2; }
before=$(git rev-parse --short "$1") after=$(git rev-parse --short "$2") count=${3:-5}
out=${BENCH_COMPARE_OUT:-scripts/benchcompare.out}
BENCHSTAT=(go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da)
work=$(mktemp -d /tmp/virgo-benchcompare.XXXXXX)
cleanup() {
	for side in before after; do git worktree remove --force "$work/$side" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

mapfile -t runs < <(go run ./scripts/benchtable -runs -figures)
binary() { echo "$work/$1/$(echo "$2" | tr -c 'a-zA-Z0-9\n' _).test"; }
for side in before after; do
	rev=$before
	[ "$side" = after ] && rev=$after
	git worktree add --detach "$work/$side" "$rev" >/dev/null 2>&1
	for run in "${runs[@]}"; do
		read -r pkg _ _ <<<"$run"
		bin=$(binary "$side" "$pkg")
		[ -x "$bin" ] || (cd "$work/$side" && go test -c -o "$bin" "$pkg")
	done
done

mkdir -p "$out"
: >"$out/before.txt"
: >"$out/after.txt"
for i in $(seq "$count"); do
	for run in "${runs[@]}"; do
		read -r pkg pattern benchtime <<<"$run"
		for side in before after; do
			echo "pass $i/$count: $side $pkg $pattern" >&2
			(cd "$work/$side/$pkg" && "$(binary "$side" "$pkg")" -test.run '^$' -test.bench "$pattern" -test.benchmem \
				-test.benchtime "$benchtime" -test.count 1 -test.timeout 30m) >>"$out/$side.txt" ||
				echo "benchcompare: $side $pkg $pattern failed" >&2
		done
	done
done
echo "# $before → $after, $count alternations, $(go env GOVERSION), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
"${BENCHSTAT[@]}" "$before=$out/before.txt" "$after=$out/after.txt"
