# What scripts/bench.sh and scripts/benchcmp.sh share: which test binaries
# a tree has, building them, one -count 1 run of one of them, the run's
# description, benchstat. Sourced, not run; the functions read BENCH,
# BENCHTIME and COUNT.

BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

# bench_check_count SCRIPT: exits 2 unless COUNT is a number, at least 5.
bench_check_count() {
  if ! [[ $COUNT =~ ^[0-9]+$ ]] || ((COUNT < 5)); then
    echo "$1: COUNT must be a number, at least 5 (a median of fewer samples says little here)" >&2
    exit 2
  fi
}

# bench_targets ROOT BIN prints the test binaries of the tree at ROOT as
# "dir binary" lines, binaries named into BIN: the core module's packages
# with benchmarks (go list does not cross into bench/ or the other nested
# modules), then bench/.
bench_targets() {
  local root=$1 bin=$2 dir rel
  while read -r dir; do
    if grep -qs '^func Benchmark' "$dir"/*_test.go; then
      rel=${dir#"$root"}
      echo "$dir $bin/core$(tr / _ <<<"$rel").test"
    fi
  done < <(cd "$root" && go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.Dir}}{{end}}' ./...)
  echo "$root/bench $bin/bench.test"
}

# bench_build TARGET... builds the test binary of each "dir binary" target.
bench_build() {
  local t dir out
  for t in "$@"; do
    read -r dir out <<<"$t"
    (cd "$dir" && go test -c -o "$out" .)
  done
}

# bench_module ROOT DIR prints the module a target's DIR belongs to in the
# tree at ROOT: bench or core.
bench_module() {
  if [ "$2" = "$1/bench" ]; then echo bench; else echo core; fi
}

# bench_run WHO DIR BINARY RAW LOG runs, in DIR, every benchmark of BINARY
# that BENCH matches, once (-count 1), appending its whole output to LOG
# and its results (with the goos, goarch, pkg and cpu lines) to RAW. If the
# binary fails it says so, prefixed with WHO, shows the end of its output
# and returns 1.
bench_run() {
  local who=$1 dir=$2 out=$3 raw=$4 log=$5 pass
  pass=$(mktemp)
  if ! (cd "$dir" && "$out" -test.run '^$' -test.bench "$BENCH" -test.benchtime "$BENCHTIME" -test.count 1 -test.benchmem) >"$pass" 2>&1; then
    cat "$pass" >>"$log"
    echo "$who: $(basename "$out") failed:" >&2
    tail -n 40 "$pass" >&2
    rm -f "$pass"
    return 1
  fi
  cat "$pass" >>"$log"
  grep -E '^(Benchmark|goos:|goarch:|pkg:|cpu:)' "$pass" >>"$raw" || true
  rm -f "$pass"
}

# bench_commit DIR prints the short hash of the commit checked out in DIR,
# saying so when its tracked files have uncommitted changes.
bench_commit() {
  local commit
  commit=$(git -C "$1" rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [ -n "$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    commit="$commit with uncommitted changes"
  fi
  echo "$commit"
}

# bench_runinfo COMMIT prints the run's description as configuration lines
# (bench/cmd/benchreport reads them): machine, Go, date, COUNT, BENCHTIME
# and COMMIT.
bench_runinfo() {
  local cpu
  cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
  echo "goarch: $(go env GOARCH)"
  echo "nproc: $(nproc)"
  [ -n "$cpu" ] && echo "cpu-model: $cpu"
  echo "go: $(go env GOVERSION)"
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "count: $COUNT"
  echo "benchtime: $BENCHTIME"
  echo "commit: $1"
}

# bench_duration SECONDS prints it as 12m3s.
bench_duration() {
  echo "$(($1 / 60))m$(($1 % 60))s"
}

# bench_progress I START PASS_START says how long pass I of COUNT took and
# about how long the rest will take (SECONDS at the start of the first pass
# and of this one).
bench_progress() {
  local i=$1 start=$2 pass_start=$3
  echo "pass $i/$COUNT: $((SECONDS - pass_start))s (about $(bench_duration $(((SECONDS - start) * (COUNT - i) / i))) left)" >&2
}

# bench_stat FILE... runs the pinned benchstat on FILEs.
bench_stat() {
  go run "$BENCHSTAT" "$@"
}

# bench_report BENCHREPORT RUN RAW... writes the generated section of MD
# and the chart CHART with the benchreport binary BENCHREPORT, from the
# run's description RUN and the raw results RAW that are not empty.
bench_report() {
  local benchreport=$1 raw
  local inputs=("$2")
  shift 2
  for raw in "$@"; do
    [ -s "$raw" ] && inputs+=("$raw")
  done
  "$benchreport" -md "$MD" -chart "$CHART" "${inputs[@]}"
  echo "wrote $MD (between <!-- bench:begin --> and <!-- bench:end -->) and $CHART from ${inputs[*]}" >&2
}
