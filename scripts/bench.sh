#!/usr/bin/env bash
# Runs every benchmark of the core module (the packages that have any)
# and of the benchmark suite (bench/: protorest, grpc-gateway and the
# floor side by side, the codecs, routing, message sizes) in COUNT
# interleaved passes: each pass runs every benchmark once (-count 1), so
# that on a noisy machine a slow minute spreads over all benchmarks
# instead of spoiling one. Then it summarises each module with benchstat
# and writes the generated section of docs/benchmarks.md and its chart,
# docs/benchmarks.png (bench/cmd/benchreport).
#
#   COUNT      passes (default 10, at least 5)
#   BENCHTIME  -benchtime of every benchmark (default 0.3s: a full run of
#              10 passes takes about 12 minutes on a 2-core machine)
#   BENCH      -bench pattern, for a partial run (default: all)
#   RESULTS    where raw results go (default bench/results, ignored by git)
#   REPORT     0 to skip writing the report; MD and CHART name its files
#              (default docs/benchmarks.md and docs/benchmarks.png)
#
# The test binaries are built once, before the first pass, so that every
# pass measures the same code even while the tree is being edited.
# scripts/benchcmp.sh runs the same passes on two revisions, interleaved,
# and compares them; both use scripts/benchlib.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/benchlib.sh

COUNT=${COUNT:-10}
BENCHTIME=${BENCHTIME:-0.3s}
BENCH=${BENCH:-.}
RESULTS=${RESULTS:-bench/results}
REPORT=${REPORT:-1}
MD=${MD:-docs/benchmarks.md}
CHART=${CHART:-docs/benchmarks.png}
bench_check_count bench.sh

mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
bin=$RESULTS/bin
rm -rf "$bin"
mkdir -p "$bin"
rm -f "$RESULTS"/{core,bench,run,log}.txt "$RESULTS"/*.benchstat.txt

mapfile -t targets < <(bench_targets "$root" "$bin")
echo "building ${#targets[@]} test binaries" >&2
bench_build "${targets[@]}"
if [ "$REPORT" != 0 ]; then
  (cd bench && go build -o "$bin/benchreport" ./cmd/benchreport)
fi

bench_runinfo "$(bench_commit "$root")" >"$RESULTS/run.txt"

start=$SECONDS
for i in $(seq 1 "$COUNT"); do
  pass_start=$SECONDS
  for t in "${targets[@]}"; do
    read -r dir out <<<"$t"
    bench_run "bench.sh: pass $i" "$dir" "$out" "$RESULTS/$(bench_module "$root" "$dir").txt" "$RESULTS/log.txt" || exit 1
  done
  bench_progress "$i" "$start" "$pass_start"
done
elapsed=$(bench_duration $((SECONDS - start)))
echo "elapsed: $elapsed" >>"$RESULTS/run.txt"
echo "$COUNT passes in $elapsed" >&2

for m in core bench; do
  if [ -s "$RESULTS/$m.txt" ]; then
    bench_stat "$RESULTS/$m.txt" | tee "$RESULTS/$m.benchstat.txt"
  fi
done

if [ "$REPORT" != 0 ]; then
  bench_report "$bin/benchreport" "$RESULTS/run.txt" "$RESULTS/core.txt" "$RESULTS/bench.txt"
fi
