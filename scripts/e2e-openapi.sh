#!/usr/bin/env bash
# End to end: the OpenAPI document of the demo, as served (GET
# /openapi.json and /openapi.yaml, with its ETag and a 304), and as
# `protorest openapi` writes it from the examples' .proto files, validates
# with openapi-spec-validator from PyPI. (The Python peer's, as serve
# serves it, is checked by e2e-python.sh; kin-openapi checks the golden
# documents in internal/tools/openapicheck.)
#
# Needs go, python3 (with venv) and pip's access to PyPI; installs curl
# when it is missing. Everything else goes in a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/e2e-lib.sh
source scripts/e2e-lib.sh

PYTHON=${PYTHON:-python3}
OPENAPI_SPEC_VALIDATOR_VERSION=0.9.0

work=$(mktemp -d)
pid=
cleanup() {
  [ -z "$pid" ] || { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT
need_curl

go build -o "$work/protorest" ./cmd/protorest &
build_pid=$!
if ! "$PYTHON" -m venv "$work/venv" >"$work/venv.log" 2>&1; then
  apt-get update -qq && apt-get install -y -qq python3-venv
  rm -rf "$work/venv"
  "$PYTHON" -m venv "$work/venv"
fi
py="$work/venv/bin/python"
"$py" -m pip install --quiet --disable-pip-version-check --no-input "openapi-spec-validator==$OPENAPI_SPEC_VALIDATOR_VERSION"
wait "$build_pid"

validate() { # name, file
  if out=$("$py" -m openapi_spec_validator "$2" 2>&1); then
    pass "$1 validates (openapi-spec-validator $OPENAPI_SPEC_VALIDATOR_VERSION)"
  else
    fail "$1 validates (openapi-spec-validator $OPENAPI_SPEC_VALIDATOR_VERSION)"; printf '%s\n' "$out" | tail -5 | sed 's/^/  | /'
  fi
}

GRPC_PORT=$(free_port) HTTP_PORT=$(free_port)
"$work/protorest" demo -grpc "127.0.0.1:$GRPC_PORT" -http "127.0.0.1:$HTTP_PORT" >"$work/demo.log" 2>&1 &
pid=$!
H="http://127.0.0.1:$HTTP_PORT"
for _ in $(seq 1 100); do
  curl -s -o /dev/null "$H/" && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/demo.log"; echo "demo exited"; exit 1; }
  sleep 0.1
done
contains "demo prints the document's URL" "$(cat "$work/demo.log")" "/openapi.json"

for f in json yaml; do
  code=$(curl -s -D "$work/h.$f" -o "$work/demo.$f" -w '%{http_code}' "$H/openapi.$f")
  check "demo: GET /openapi.$f" "$code" "200"
  validate "demo: openapi.$f" "$work/demo.$f"
done
contains "demo: JSON content type" "$(tr -d '\r' <"$work/h.json")" "Content-Type: application/json"
contains "demo: YAML content type" "$(tr -d '\r' <"$work/h.yaml")" "Content-Type: application/yaml"
etag=$(tr -d '\r' <"$work/h.json" | sed -n 's/^Etag: //Ip')
check "demo: 304 for its ETag" "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$H/openapi.json")" "304"
check "demo: 200 for another" "$(curl -s -o /dev/null -w '%{http_code}' -H 'If-None-Match: "other"' "$H/openapi.json")" "200"
# The live document is the golden one (the tests keep them equal).
check "demo: the live document is testdata/openapi/demo.json" \
  "$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])))' "$work/demo.json" testdata/openapi/demo.json)" "True"

for f in json yaml; do
  if "$work/protorest" openapi --import-path examples --proto library/v1/library.proto --proto example/v1/example.proto \
    --proto bookstore/v1/bookstore.proto --format "$f" --output "$work/examples.$f" 2>"$work/openapi.log"; then
    pass "protorest openapi --format $f"
    validate "protorest openapi --format $f" "$work/examples.$f"
  else
    fail "protorest openapi --format $f"; cat "$work/openapi.log"
  fi
done
contains "protorest openapi keeps the comments" "$(cat "$work/examples.json")" '"summary": "CreateShelf creates a shelf."'

for f in testdata/openapi/*.json testdata/openapi/*.yaml; do
  validate "golden $f" "$f"
done

echo "e2e-openapi: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
