#!/usr/bin/env bash
# grpc-gateway's own integration suite against protorest: the tests of
# grpc-gateway v2.32.0's examples/internal/integration (integration_test.go
# and client_test.go, unmodified), built from the Go module cache, with only
# their harness (main_test.go) replaced by e2e/grpcgateway/main_test.go:
# :8088 is protorest serve in front of grpc-gateway's example gRPC server,
# with descriptors compiled from grpc-gateway's .proto files as shipped, and
# :8089 is protorest as a library (see the harness). The failures must be
# exactly those e2e/grpcgateway/expected-failures.txt lists, each with the
# MIGRATING.md row that explains it (e2e/grpcgateway/verdict.py).
#
# Nothing of grpc-gateway is committed here: its module is copied from the
# module cache (go mod download) into a temporary directory, with a
# requirement on this checkout of protorest for the harness (which moves
# the copy's grpc and genproto up to protorest's versions).
#
# The tests hard-code their gateways' ports (8088, 8089, 8087, 8081, 8082,
# 7079, 7080 on localhost): those must be free. Knobs: GRPC_PORT, the
# example gRPC server's (default: a free port); EXPECTED, the expectation
# file; EXCESS_BODY_TIMEOUT (see below); KEEP=1 keeps the work directory.
# Needs go and python3; installs nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/e2e-lib.sh
source scripts/e2e-lib.sh
root=$PWD

GRPC_GATEWAY=github.com/grpc-ecosystem/grpc-gateway/v2
GRPC_GATEWAY_VERSION=v2.32.0
GRPC_PORT=${GRPC_PORT:-$(free_port)}
EXPECTED=${EXPECTED:-e2e/grpcgateway/expected-failures.txt}
# TestExcessBody waits without a timeout for calls that protorest refuses
# (strict JSON): it runs alone, within this.
EXCESS_BODY_TIMEOUT=${EXCESS_BODY_TIMEOUT:-10s}

work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT
start=$SECONDS

go build -o "$work/protorest" ./cmd/protorest &
build_pid=$!

src=$(go mod download -json "$GRPC_GATEWAY@$GRPC_GATEWAY_VERSION" |
  "${PYTHON:-python3}" -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
gw="$work/grpc-gateway"
cp -r "$src" "$gw"
chmod -R u+w "$gw"
pkg="$gw/examples/internal/integration"
cp e2e/grpcgateway/main_test.go "$pkg/main_test.go"
# The harness imports protorest: this checkout, and the sums of its
# requirements (so that -mod=mod needs no checksum database).
(cd "$gw" &&
  go mod edit -require=github.com/protorest/protorest@v0.0.0-00010101000000-000000000000 \
    -replace="github.com/protorest/protorest=$root" &&
  cat "$root/go.sum" >>go.sum)
(cd "$gw" && GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=mod" \
  go test -c -tags protorest_gwsuite -o "$work/integration.test" ./examples/internal/integration) ||
  { echo "building grpc-gateway's integration tests with the harness failed"; exit 1; }
wait "$build_pid" || { echo "go build ./cmd/protorest failed"; exit 1; }
setup_time=$((SECONDS - start))

# run NAME TEST-FLAGS...: the tests, as test2json events in $work/NAME.json.
run() {
  local name=$1
  shift
  (cd "$pkg" && go tool test2json -t -p integration "$work/integration.test" -test.v=test2json -test.count=1 "$@" \
    -endpoint "127.0.0.1:$GRPC_PORT" -protorest "$work/protorest" -module_root "$gw" \
    -serve_log "$work/$name.serve.log" >"$work/$name.json") || true
}
tests_start=$SECONDS
run suite -test.skip '^TestExcessBody$' -test.timeout 120s
run excessbody -test.run '^TestExcessBody$' -test.timeout "$EXCESS_BODY_TIMEOUT"

rc=0
"${PYTHON:-python3}" e2e/grpcgateway/verdict.py "$EXPECTED" "$pkg" "$work/suite.json" "$work/excessbody.json" || rc=$?
if [ "$rc" -ne 0 ]; then
  for f in "$work"/*.serve.log; do
    grep -v 'msg=request' "$f" | tail -20 | sed "s|^|  $(basename "$f") |"
  done
fi
echo "e2e-grpcgateway: setup ${setup_time}s, tests $((SECONDS - tests_start))s"
exit "$rc"
