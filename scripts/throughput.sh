#!/usr/bin/env bash
# The throughput harness (issue 24): protorest serve, grpc-gateway's
# generated gateway, vanguard-go and a hand-written floor proxy, each a
# process of its own in front of one gRPC backend (bench's Library), and
# in library mode protorest, grpc-gateway's RegisterHandlerServer and
# bench's floor handler with the Library in their own process; loaded in
# a closed loop by wrk (HTTP/1.1) and h2load (HTTP/2 over h2c and over
# TLS, the certificate made at run time), in rounds that interleave the
# contenders (A B C D, A B C D, ...). Before measuring, every contender
# must answer every route with the same JSON. For each contender, route
# and protocol it records req/s, p50/p99/p999 latency, the contender
# process's CPU µs per request (utime+stime from /proc/PID/stat before
# and after each round, over the requests) and its peak RSS (VmHWM), and
# writes the medians into the generated section of docs/benchmarks.md
# (between <!-- throughput:begin --> and <!-- throughput:end -->) and
# docs/throughput.png. The driver is bench/cmd/throughput.
#
# Not part of .ci/run's pass/fail: CI runs a smoke run of it (one route
# per protocol, one round of a second, REPORT=0), which must pass.
#
#   COUNT       rounds (default 3)
#   DURATION    load per contender, route and protocol in a round, whole
#               seconds (default 5s)
#   WARMUP      load of each contender and protocol before the first
#               round, not measured (default 1s; 0s for none)
#   CONNS       connections, one request at a time on each (default 64)
#   THREADS     threads of wrk and h2load (default 2)
#   ROUTES      comma-separated: get,query,post,list,stream (default all)
#   CONTENDERS  comma-separated (default all but the last two):
#               floor-proxy, grpc-gateway, vanguard, protorest, floor,
#               grpc-gateway-inproc, protorest-inproc;
#               protorest-no-access-log (serve --access-log=false) and
#               protorest-base (serve built at BASE)
#   BASE        a git revision: builds protorest serve there too, as the
#               contender protorest-base (added to CONTENDERS), for a
#               before/after comparison within one run
#   PROTOCOLS   comma-separated: h1, h2c, h2 (default all)
#   SERVE_FLAGS more flags for protorest serve (e.g. --access-log=false)
#   PORT        the first loopback port: the backend's, then two for each
#               contender (default 19400: 19400-19414 for the default seven)
#   RESULTS     where the results and logs go (default
#               bench/results/throughput, ignored by git)
#   REPORT      0 to skip writing the report; MD and CHART name its files
#               (default docs/benchmarks.md and docs/throughput.png)
#
# Needs go; installs wrk and nghttp2-client (h2load) with apt-get when
# they are missing. A full run (the defaults) takes about 30 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

COUNT=${COUNT:-3}
DURATION=${DURATION:-5s}
WARMUP=${WARMUP:-1s}
CONNS=${CONNS:-64}
THREADS=${THREADS:-2}
ROUTES=${ROUTES:-get,query,post,list,stream}
CONTENDERS=${CONTENDERS:-floor-proxy,grpc-gateway,vanguard,protorest,floor,grpc-gateway-inproc,protorest-inproc}
PROTOCOLS=${PROTOCOLS:-h1,h2c,h2}
SERVE_FLAGS=${SERVE_FLAGS:-}
PORT=${PORT:-19400}
BASE=${BASE:-}
RESULTS=${RESULTS:-bench/results/throughput}
REPORT=${REPORT:-1}
MD=${MD:-docs/benchmarks.md}
CHART=${CHART:-docs/throughput.png}

if ! command -v wrk >/dev/null || ! command -v h2load >/dev/null; then
  apt-get update -qq && apt-get install -y -qq wrk nghttp2-client >/dev/null
fi

mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
bin=$RESULTS/bin
rm -rf "$bin"
mkdir -p "$bin"
echo "building the contenders and the driver" >&2
(cd bench && go build -o "$bin/" ./cmd/librarybackend ./cmd/floorproxy ./cmd/gatewayproxy ./cmd/vanguardproxy ./cmd/inprocess ./cmd/throughput)
(cd cmd/protorest && go build -o "$bin/protorest" .)
if [ -n "$BASE" ]; then
  src=$(mktemp -d)
  git -C "$root" archive "$BASE" | tar -x -C "$src"
  (cd "$src/cmd/protorest" && go build -o "$bin/protorest-base" .)
  rm -rf "$src"
  case ",$CONTENDERS," in *,protorest-base,*) ;; *) CONTENDERS="$CONTENDERS,protorest-base" ;; esac
fi

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ]; then
  commit="$commit+changes"
fi

"$bin/throughput" run -bin "$bin" -out "$RESULTS/results.jsonl" -dir "$RESULTS" \
  -count "$COUNT" -duration "$DURATION" -warmup "$WARMUP" -conns "$CONNS" -threads "$THREADS" \
  -routes "$ROUTES" -contenders "$CONTENDERS" -protocols "$PROTOCOLS" -port "$PORT" \
  -serve-flags "$SERVE_FLAGS" -commit "$commit"

if [ "$REPORT" != 0 ]; then
  "$bin/throughput" report -md "$MD" -chart "$CHART" "$RESULTS/results.jsonl"
  echo "wrote $MD (between <!-- throughput:begin --> and <!-- throughput:end -->) and $CHART" >&2
fi
