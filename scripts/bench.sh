#!/usr/bin/env bash
# Runs every benchmark of the core module (the packages that have any)
# and of the benchmark suite (bench/: protorest, grpc-gateway and the
# floor side by side, the codecs, routing, message sizes) in COUNT
# interleaved passes: each pass runs every benchmark once (-count 1), so
# that on a noisy machine a slow minute spreads over all benchmarks
# instead of spoiling one. Then it summarises each module with benchstat
# and writes the generated section of BENCHMARKS.md and bench/chart.png
# (bench/cmd/benchreport).
#
#   COUNT      passes (default 10, at least 5)
#   BENCHTIME  -benchtime of every benchmark (default 0.3s: a full run of
#              10 passes takes about 12 minutes on a 2-core machine)
#   BENCH      -bench pattern, for a partial run (default: all)
#   RESULTS    where raw results go (default bench/results, ignored by git)
#   REPORT     0 to skip writing the report; MD and CHART name its files
#              (default BENCHMARKS.md and bench/chart.png)
#
# The test binaries are built once, before the first pass, so that every
# pass measures the same code even while the tree is being edited.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

COUNT=${COUNT:-10}
BENCHTIME=${BENCHTIME:-0.3s}
BENCH=${BENCH:-.}
RESULTS=${RESULTS:-bench/results}
REPORT=${REPORT:-1}
MD=${MD:-BENCHMARKS.md}
CHART=${CHART:-bench/chart.png}
BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

if ! [[ $COUNT =~ ^[0-9]+$ ]] || ((COUNT < 5)); then
  echo "bench.sh: COUNT must be a number, at least 5 (a median of fewer samples says little here)" >&2
  exit 2
fi

mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
bin=$RESULTS/bin
rm -rf "$bin"
mkdir -p "$bin"
rm -f "$RESULTS"/{core,bench,run,log}.txt "$RESULTS"/*.benchstat.txt

# The core module's packages with benchmarks (go list does not cross into
# bench/ or the other nested modules), as "dir binary" pairs.
targets=()
while read -r dir; do
  if grep -qs '^func Benchmark' "$dir"/*_test.go; then
    rel=${dir#"$root"}
    name=core$(tr / _ <<<"$rel")
    targets+=("$dir $bin/$name.test")
  fi
done < <(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.Dir}}{{end}}' ./...)
targets+=("$root/bench $bin/bench.test")

echo "building ${#targets[@]} test binaries" >&2
for t in "${targets[@]}"; do
  read -r dir out <<<"$t"
  (cd "$dir" && go test -c -o "$out" .)
done
if [ "$REPORT" != 0 ]; then
  (cd bench && go build -o "$bin/benchreport" ./cmd/benchreport)
fi

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  commit="$commit with uncommitted changes"
fi
cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
{
  echo "goarch: $(go env GOARCH)"
  echo "nproc: $(nproc)"
  [ -n "$cpu" ] && echo "cpu-model: $cpu"
  echo "go: $(go env GOVERSION)"
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "count: $COUNT"
  echo "benchtime: $BENCHTIME"
  echo "commit: $commit"
} >"$RESULTS/run.txt"

start=$SECONDS
for i in $(seq 1 "$COUNT"); do
  pass_start=$SECONDS
  for t in "${targets[@]}"; do
    read -r dir out <<<"$t"
    raw=$RESULTS/core.txt
    [ "$dir" = "$root/bench" ] && raw=$RESULTS/bench.txt
    if ! (cd "$dir" && "$out" -test.run '^$' -test.bench "$BENCH" -test.benchtime "$BENCHTIME" -test.count 1 -test.benchmem) >"$RESULTS/pass.txt" 2>&1; then
      cat "$RESULTS/pass.txt" >>"$RESULTS/log.txt"
      echo "bench.sh: pass $i: $(basename "$out") failed:" >&2
      tail -n 40 "$RESULTS/pass.txt" >&2
      exit 1
    fi
    cat "$RESULTS/pass.txt" >>"$RESULTS/log.txt"
    grep -E '^(Benchmark|goos:|goarch:|pkg:|cpu:)' "$RESULTS/pass.txt" >>"$raw" || true
  done
  took=$((SECONDS - pass_start))
  left=$(((SECONDS - start) * (COUNT - i) / i))
  echo "pass $i/$COUNT: ${took}s (about $((left / 60))m$((left % 60))s left)" >&2
done
rm -f "$RESULTS/pass.txt"
elapsed=$((SECONDS - start))
echo "elapsed: $((elapsed / 60))m$((elapsed % 60))s" >>"$RESULTS/run.txt"
echo "$COUNT passes in $((elapsed / 60))m$((elapsed % 60))s" >&2

for m in core bench; do
  if [ -s "$RESULTS/$m.txt" ]; then
    go run "$BENCHSTAT" "$RESULTS/$m.txt" | tee "$RESULTS/$m.benchstat.txt"
  fi
done

if [ "$REPORT" != 0 ]; then
  inputs=("$RESULTS/run.txt")
  for m in core bench; do
    [ -s "$RESULTS/$m.txt" ] && inputs+=("$RESULTS/$m.txt")
  done
  "$bin/benchreport" -md "$MD" -chart "$CHART" "${inputs[@]}"
  echo "wrote $MD (between <!-- bench:begin --> and <!-- bench:end -->) and $CHART" >&2
fi
