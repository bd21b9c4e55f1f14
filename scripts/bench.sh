#!/usr/bin/env bash
# Runs the stage and end-to-end benchmarks of the core module COUNT times
# (default 10), one pass over every benchmark at a time so that the
# samples of different benchmarks interleave on a noisy machine, then
# summarises the medians with benchstat. Raw results go to $OUT
# (default bench.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-10}
OUT=${OUT:-bench.txt}
BENCHTIME=${BENCHTIME:-1s}
pkgs=(. ./internal/route ./internal/bind ./internal/httprule ./internal/negotiate)

go test -run '^$' -bench . -benchtime 1x "${pkgs[@]}" >/dev/null # build once
: >"$OUT"
for i in $(seq 1 "$COUNT"); do
  echo "pass $i/$COUNT" >&2
  go test -run '^$' -bench . -benchtime "$BENCHTIME" -count 1 "${pkgs[@]}" | grep -E '^(Benchmark|goos|goarch|pkg|cpu)' >>"$OUT"
done
go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$OUT"
