#!/usr/bin/env bash
# Memory under response amplification (issue 12), by hand: the
# "Response amplification" scenario of scripts/reliability.sh (its
# helper's amplify: one book with 200,000 labels, a ~3.4 MB PATCH, read
# by 20 concurrent GETs while the process's RSS is sampled), run against
# both the demo's in-process gateway and protorest serve in front of the
# demo's gRPC port.
#
#   bash scripts/amplification.sh [path/to/protorest]
#
# Without an argument the binary is built from this checkout. Extra serve
# flags go in SERVE_FLAGS (e.g. SERVE_FLAGS=--max-buffered-response-bytes=16MiB);
# LABELS and GETS change the book and the number of GETs.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

bin=${1:-}
if [ -z "$bin" ]; then
  bin="$work/protorest"
  go build -o "$bin" ./cmd/protorest
fi
go build -o "$work/reliability" ./scripts/reliability
LABELS=${LABELS:-200000}
GETS=${GETS:-20}
GRPC_PORT=${GRPC_PORT:-19390}
DEMO_PORT=${DEMO_PORT:-19391}
SERVE_PORT=${SERVE_PORT:-19392}

"$bin" demo --grpc "127.0.0.1:$GRPC_PORT" --http "127.0.0.1:$DEMO_PORT" >"$work/demo.log" 2>&1 &
demo=$!
pids+=("$demo")
# shellcheck disable=SC2086
"$bin" serve --upstream "127.0.0.1:$GRPC_PORT" --listen "127.0.0.1:$SERVE_PORT" --access-log=false ${SERVE_FLAGS:-} >"$work/serve.log" 2>&1 &
serve=$!
pids+=("$serve")
for port in "$DEMO_PORT" "$SERVE_PORT"; do
  for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:$port/v1/shelves" >/dev/null 2>&1 && break
    sleep 0.1
  done
done

# The demo's in-process gateway and its gRPC port have a library each.
book=/v1/shelves/fiction/books/dune
echo "In-process: protorest demo (its RSS includes the gRPC service)"
"$work/reliability" amplify -book "http://127.0.0.1:$DEMO_PORT$book" -pid "$demo" -labels "$LABELS" -gets "$GETS" \
  -serve-flags "(protorest demo, in-process)"
echo
echo "Through protorest serve"
"$work/reliability" amplify -book "http://127.0.0.1:$SERVE_PORT$book" -pid "$serve" -labels "$LABELS" -gets "$GETS" \
  -serve-flags "${SERVE_FLAGS:-defaults}"
