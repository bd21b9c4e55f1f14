#!/usr/bin/env bash
# The Connect conformance suite (connectrpc.com/conformance v1.0.7: its
# runner, connectconformance, in server mode, and its reference server)
# against protorest, in two modes (e2e/conformance, docs/conformance.md):
#
#   remote     protorest serve, built from this checkout, in front of the
#              suite's reference server;
#   inprocess  a protorest.Gateway with the conformance service registered
#              in-process (e2e/conformance/cmd/protorest-under-test).
#
# Both run the features of e2e/conformance/config.yaml: Connect, gRPC and
# gRPC-Web, HTTP/1.1 and HTTP/2, TLS and client certificates, proto and
# JSON, identity and gzip, every stream type. The cases that fail today are
# listed, each under the reason it fails, in
# e2e/conformance/known-failing-MODE.txt, and those that fail in some runs
# only in known-flaky-MODE.txt. The script fails when a case fails that is
# not listed, when a listed case passes (the list must shrink as protorest
# learns: delete its line, or regenerate the list), or when the runner
# could not run a case. It prints the runner's summary and a table by
# protocol for each mode.
#
# Knobs: MODES (default "remote inprocess"); CONFORMANCE_REMOTE_PORTS and
# CONFORMANCE_INPROCESS_PORTS, the loopback ports each mode's servers
# listen on (default 58450-58474 and 58475-58499); UPDATE=1 runs each mode
# RUNS times (default 3) with every case known to fail and rewrites both
# lists' patterns from what failed every time and what failed some times
# (reasons and selectors kept; a failing case no reason selects fails the
# script); KEEP=1 keeps the work directory (the runner's output, the
# servers' logs). Needs only go: the runner and the reference server are
# built at the versions e2e/conformance/go.mod pins.
set -euo pipefail
cd "$(dirname "$0")/.."

MODES=${MODES:-remote inprocess}
CONFORMANCE_REMOTE_PORTS=${CONFORMANCE_REMOTE_PORTS:-58450-58474}
CONFORMANCE_INPROCESS_PORTS=${CONFORMANCE_INPROCESS_PORTS:-58475-58499}
dir=e2e/conformance

work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT
start=$SECONDS

go build -o "$work/protorest" ./cmd/protorest
(cd "$dir" && go build -o "$work/" ./cmd/protorest-under-test ./cmd/conformance-report \
  connectrpc.com/conformance/cmd/connectconformance connectrpc.com/conformance/cmd/referenceserver)
echo "conformance: built in $((SECONDS - start))s ($("$work/connectconformance" --version))"

rc=0
for mode in $MODES; do
  case $mode in
    remote) ports=$CONFORMANCE_REMOTE_PORTS ;;
    inprocess) ports=$CONFORMANCE_INPROCESS_PORTS ;;
    *) echo "conformance: unknown mode $mode (remote or inprocess)"; exit 2 ;;
  esac
  known="$dir/known-failing-$mode.txt"
  flaky="$dir/known-flaky-$mode.txt"
  mkdir -p "$work/logs-$mode"
  mode_start=$SECONDS
  mode_rc=0
  # run OUTPUT EXPECTATIONS...: the runner on this mode's server under test.
  run() {
    local out=$1
    shift
    "$work/connectconformance" --mode server --conf "$dir/config.yaml" -v "$@" -- \
      "$work/protorest-under-test" -mode "$mode" -ports "$ports" \
      -protorest "$work/protorest" -referenceserver "$work/referenceserver" -log-dir "$work/logs-$mode" \
      >"$out" 2>"${out%.out}.err"
  }
  if [ -n "${UPDATE:-}" ]; then
    outs=()
    for i in $(seq 1 "${RUNS:-3}"); do
      run "$work/$mode-$i.out" --known-failing '**' || true
      outs+=("$work/$mode-$i.out")
    done
    "$work/conformance-report" -mode "$mode" -update "$known" -flaky "$flaky" "${outs[@]}" || rc=1
  else
    run "$work/$mode.out" --known-failing "@$known" --known-flaky "@$flaky" || mode_rc=$?
    if [ "$mode_rc" -ne 0 ]; then
      rc=1
      # What the runner did not expect: failures, and listed cases that pass.
      awk '/^FAILED: /{p=1; n++} /^(INFO: |Total cases:)/{p=0} p && n<=40' "$work/$mode.out"
      grep -v '^\s' "$work/$mode.err" | grep -v '^$' | sort | uniq -c | sort -rn | head -10 || true
    fi
    "$work/conformance-report" -mode "$mode" "$work/$mode.out" || rc=1
  fi
  echo "conformance ($mode): ${mode_rc/#0/ok}, $((SECONDS - mode_start))s"
done
echo "conformance: $((SECONDS - start))s in all"
exit "$rc"
