#!/usr/bin/env bash
# Memory under response amplification (issue 12): one book with 200,000
# labels (a ~3 MB PATCH) read by 20 concurrent GETs, through the demo's
# in-process gateway and through protorest serve in front of the demo's
# gRPC port. Prints each process's peak RSS (VmHWM) after the GETs.
#
#   bash scripts/amplification.sh [path/to/protorest]
#
# Without an argument the binary is built from this checkout. Extra serve
# flags go in SERVE_FLAGS (e.g. SERVE_FLAGS=--max-buffered-response-bytes=16MiB).
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

book=/v1/shelves/fiction/books/dune
python3 - "$LABELS" >"$work/patch.json" <<'EOF'
import json, sys
n = int(sys.argv[1])
print(json.dumps({"labels": {"l-%06d" % i: "v" for i in range(n)}}, separators=(",", ":")))
EOF
# The demo's in-process gateway and its gRPC port have a library each.
for port in "$DEMO_PORT" "$SERVE_PORT"; do
  curl -fsS -o /dev/null -X PATCH -H 'Content-Type: application/json' --data-binary "@$work/patch.json" "http://127.0.0.1:$port$book"
done
size=$(curl -fsS "http://127.0.0.1:$DEMO_PORT$book" | wc -c)
size_serve=$(curl -fsS "http://127.0.0.1:$SERVE_PORT$book" | wc -c)
echo "book: $LABELS labels, PATCH $(wc -c <"$work/patch.json") bytes, GET $size bytes (through serve: $size_serve)"

hwm() { awk '/VmHWM/ {printf "%.0f MB", $2/1024}' "/proc/$1/status"; }
rss() { awk '/VmRSS/ {printf "%.0f MB", $2/1024}' "/proc/$1/status"; }
cpu() { awk '{printf "%.1f s", ($14+$15)/100}' "/proc/$1/stat"; }
echo "before the GETs: demo RSS $(rss "$demo") (peak $(hwm "$demo")), serve RSS $(rss "$serve") (peak $(hwm "$serve"))"

gets() {
  local port=$1
  seq "$GETS" | xargs -P "$GETS" -I{} curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$port$book" | sort | uniq -c | tr '\n' ' '
}
echo "$GETS concurrent GETs in-process (demo): $(gets "$DEMO_PORT")"
echo "  demo peak RSS $(hwm "$demo"), CPU $(cpu "$demo") (the demo also runs the gRPC service)"
echo "$GETS concurrent GETs through serve: $(gets "$SERVE_PORT")"
echo "  serve peak RSS $(hwm "$serve"), CPU $(cpu "$serve")"
