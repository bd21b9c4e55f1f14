#!/usr/bin/env bash
# Compares the benchmarks of two revisions in one interleaved run, so that
# a slow minute of the shared machine falls on both sides alike: it checks
# out OLD and NEW in throwaway git worktrees, builds each side's test
# binaries once (the same packages as scripts/bench.sh: the core module's
# packages with benchmarks, and bench/; a package that exists on one side
# only is benchmarked on that side only), then runs COUNT passes. A pass
# runs every binary of one side once (-count 1), then every binary of the
# other, and which side goes first alternates from pass to pass. Then it
# prints `benchstat old.txt new.txt` for the core module and for bench/.
#
#   OLD        the revision before (default 4655724, the commit before
#              issue 10's restructuring)
#   NEW        the revision after (default HEAD)
#   COUNT      passes (default 10, at least 5)
#   BENCHTIME  -benchtime of every benchmark (default 0.3s: 10 passes of
#              both sides take about 30 minutes on a 2-core machine)
#   BENCH      -bench pattern, for a partial run (default: all)
#   RESULTS    where results go (default bench/results/cmp, ignored by git):
#                core/old.txt core/new.txt    the core module's raw results
#                bench/old.txt bench/new.txt  bench/'s
#                core.benchstat.txt bench.benchstat.txt
#                old/run.txt new/run.txt      each side's description
#                old/bin new/bin              each side's binaries
#                log.txt                      every binary's whole output
#   REPORT     1 to write the generated section of docs/benchmarks.md and
#              docs/benchmarks.png from NEW's results, with NEW's
#              bench/cmd/benchreport, as scripts/bench.sh does (default 0);
#              MD and CHART name its files (default docs/benchmarks.md
#              and docs/benchmarks.png, in this checkout)
#
# The worktrees are removed on exit; the binaries stay in RESULTS.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/benchlib.sh

OLD=${OLD:-4655724}
NEW=${NEW:-HEAD}
COUNT=${COUNT:-10}
BENCHTIME=${BENCHTIME:-0.3s}
BENCH=${BENCH:-.}
RESULTS=${RESULTS:-bench/results/cmp}
REPORT=${REPORT:-0}
MD=${MD:-docs/benchmarks.md}
CHART=${CHART:-docs/benchmarks.png}
bench_check_count benchcmp.sh

declare -A rev
rev[old]=$(git rev-parse --verify "$OLD^{commit}")
rev[new]=$(git rev-parse --verify "$NEW^{commit}")

mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
rm -rf "$RESULTS"/{old,new,core,bench}
rm -f "$RESULTS"/log.txt "$RESULTS"/*.benchstat.txt
mkdir -p "$RESULTS"/{old,new}/bin "$RESULTS"/{core,bench}

trees=$(mktemp -d "${TMPDIR:-/tmp}/benchcmp.XXXXXX")
cleanup() {
  local side
  for side in old new; do
    if [ -e "$trees/$side" ]; then
      git -C "$root" worktree remove --force "$trees/$side" || true
    fi
  done
  rm -rf "$trees"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

declare -A short
old_targets=() new_targets=()
for side in old new; do
  git worktree add --quiet --detach "$trees/$side" "${rev[$side]}"
  short[$side]=$(git rev-parse --short "${rev[$side]}")
  declare -n targets=${side}_targets
  mapfile -t targets < <(bench_targets "$trees/$side" "$RESULTS/$side/bin")
  echo "building ${#targets[@]} test binaries of $side (${short[$side]})" >&2
  bench_build "${targets[@]}"
  if [ "$REPORT" != 0 ] && [ "$side" = new ]; then
    (cd "$trees/new/bench" && go build -o "$RESULTS/new/bin/benchreport" ./cmd/benchreport)
  fi
  unset -n targets
done

# The packages that only one side has.
only=$(comm -3 <(for t in "${old_targets[@]}"; do echo "${t##*/}"; done | sort) \
  <(for t in "${new_targets[@]}"; do echo "${t##*/}"; done | sort) |
  sed -e 's/^\t/  new only: /' -e '/^  new only/!s/^/  old only: /')
[ -n "$only" ] && printf 'packages on one side only:\n%s\n' "$only" >&2

for side in old new; do
  bench_runinfo "${short[$side]}" >"$RESULTS/$side/run.txt"
done

start=$SECONDS
for i in $(seq 1 "$COUNT"); do
  pass_start=$SECONDS
  sides=(old new)
  ((i % 2)) || sides=(new old)
  for side in "${sides[@]}"; do
    declare -n targets=${side}_targets
    for t in "${targets[@]}"; do
      read -r dir out <<<"$t"
      bench_run "benchcmp.sh: pass $i, $side" "$dir" "$out" \
        "$RESULTS/$(bench_module "$trees/$side" "$dir")/$side.txt" "$RESULTS/log.txt" || exit 1
    done
    unset -n targets
  done
  bench_progress "$i" "$start" "$pass_start"
done
elapsed=$(bench_duration $((SECONDS - start)))
echo "$COUNT passes of both sides in $elapsed" >&2
for side in old new; do
  other=old
  [ "$side" = old ] && other=new
  echo "elapsed: $elapsed (both sides; scripts/benchcmp.sh, interleaved with ${short[$other]})" >>"$RESULTS/$side/run.txt"
done

for m in core bench; do
  if [ -s "$RESULTS/$m/old.txt" ] || [ -s "$RESULTS/$m/new.txt" ]; then
    echo "== $m: old.txt = ${short[old]}, new.txt = ${short[new]}"
    touch "$RESULTS/$m"/{old,new}.txt
    (cd "$RESULTS/$m" && bench_stat old.txt new.txt) | tee "$RESULTS/$m.benchstat.txt"
  fi
done

if [ "$REPORT" != 0 ]; then
  bench_report "$RESULTS/new/bin/benchreport" "$RESULTS/new/run.txt" "$RESULTS/core/new.txt" "$RESULTS/bench/new.txt"
fi
