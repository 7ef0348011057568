#!/usr/bin/env bash
# Writes BENCHMARKS.md: runs the benchmarks of the figures the project holds
# itself to (the rows of scripts/benchtable, one list), keeps their raw
# output in scripts/benchmarks.out, and makes the table from that output. Each
# figure's baseline runs in the same benchmark, so the ratio holds on a
# loaded machine even when the absolute figures do not.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BENCH_OUT:-scripts/benchmarks.out}
: >"$out"
go run ./scripts/benchtable -runs | while read -r pkg pattern benchtime; do
	echo "bench $pkg $pattern ($benchtime)" >&2
	go test -run '^$' -bench "$pattern" -benchmem -benchtime "$benchtime" -count 1 -timeout 30m "$pkg" | tee -a "$out" >&2 ||
		echo "benchmarks: $pkg $pattern failed; its rows say not measured" >&2
done
{
	echo "# Benchmarks"
	echo
	echo "The figures the project holds itself to, each beside its baseline from the same run where one exists,"
	echo "made by \`scripts/benchmarks.sh\` from \`go test -bench\` output ($(basename "$out")); earlier figures and"
	echo "how they were reached are in git's history of this file. Measured $(date -u '+%Y-%m-%d %H:%M UTC') at"
	echo "$(git rev-parse --short HEAD) with $(go env GOVERSION) on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
	echo
	go run ./scripts/benchtable <"$out"
} >BENCHMARKS.md.new
mv BENCHMARKS.md.new BENCHMARKS.md
