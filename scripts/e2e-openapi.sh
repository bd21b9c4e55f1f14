#!/usr/bin/env bash
# End to end: the OpenAPI document of the demo, as served (GET
# /openapi.json and /openapi.yaml, with its ETag and a 304), and as
# `protorest openapi` writes it from the examples' .proto files, validates
# with openapi-spec-validator from PyPI. Its paths name the segments of
# the library's resource names as the resource patterns do
# (/v1/shelves/{shelf}/books/{book}), and its watch stream lists
# text/event-stream first. (The Python peer's, as serve
# serves it, is checked by e2e-python.sh; kin-openapi checks the golden
# documents in internal/tools/openapicheck.)
#
# Then the demo's answers are held to its document, with tools from PyPI:
# every response to a set of requests that covers each unary operation,
# errors included, validates with openapi-core against the operation
# (e2e/openapi/responses.py); and a client generated from the served
# document by openapi-python-client, now (not committed: the generator's
# reading of the live document is what is tested), does a
# create/get/list/update/delete round trip (e2e/openapi/roundtrip.py),
# naming the path parameters.
# openapi-core pins openapi-spec-validator below 0.9, so they have a venv
# of their own.
#
# Needs go, python3 (with venv) and pip's access to PyPI; installs curl
# when it is missing. The venvs are kept in ~/.cache/protorest-e2e
# (cached_venv); everything else goes in a temporary directory.
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
setup_start=$SECONDS
py=$(cached_venv openapi-spec-validator "openapi-spec-validator==$OPENAPI_SPEC_VALIDATOR_VERSION")
pyc=$(openapi_clients_venv)
wait "$build_pid"
echo "     (setup: venvs and build $((SECONDS - setup_start)) s)"

validate() { # name, file
  if out=$("$py" -m openapi_spec_validator "$2" 2>&1); then
    pass "$1 validates (openapi-spec-validator $OPENAPI_SPEC_VALIDATOR_VERSION)"
  else
    fail "$1 validates (openapi-spec-validator $OPENAPI_SPEC_VALIDATOR_VERSION)"; printf '%s\n' "$out" | tail -5 | sed 's/^/  | /'
  fi
}

GRPC_PORT=${GRPC_PORT:-$(free_port)} HTTP_PORT=${HTTP_PORT:-$(free_port)}
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

# Segments named by the resource patterns (library.proto's
# "shelves/{shelf}/books/{book}"), and the watch stream's media types, Server-Sent
# Events first (Swagger UI's Try-it asks for it).
contains "demo: the book's path names its segments {shelf} and {book}" \
  "$("$py" -c 'import json,sys; print(sorted(json.load(open(sys.argv[1]))["paths"]))' "$work/demo.json")" \
  "'/v1/shelves/{shelf}/books/{book}'"
check "demo: GetBook's path parameters" \
  "$("$py" -c 'import json,sys; op=json.load(open(sys.argv[1]))["paths"]["/v1/shelves/{shelf}/books/{book}"]["get"]; print([(p["name"], p["in"]) for p in op["parameters"]])' "$work/demo.json")" \
  "[('shelf', 'path'), ('book', 'path')]"
check "demo: the watch stream's media types, text/event-stream first" \
  "$("$py" -c 'import json,sys; print(list(json.load(open(sys.argv[1]))["paths"]["/api/v1/example/watch"]["get"]["responses"]["200"]["content"]))' "$work/demo.json")" \
  "['text/event-stream', 'application/x-ndjson', 'application/json']"

# The demo's responses against its document (openapi-core).
if "$pyc" e2e/openapi/responses.py "$H" >"$work/responses.out" 2>&1; then
  pass "demo: every response validates against the document (openapi-core $OPENAPI_CORE_VERSION): $(tail -1 "$work/responses.out")"
else
  fail "demo: every response validates against the document (openapi-core $OPENAPI_CORE_VERSION)"
  grep -v '^ok ' "$work/responses.out" | sed 's/^/  | /'
fi

# A client generated from the served document (openapi-python-client).
printf 'post_hooks: []\n' >"$work/generator.yaml" # no ruff formatting: the code runs as generated
if "$(dirname "$pyc")/openapi-python-client" generate --path "$work/demo.json" --meta none \
  --config "$work/generator.yaml" --output-path "$work/client/protorest_client" >"$work/generate.log" 2>&1; then
  pass "openapi-python-client $OPENAPI_PYTHON_CLIENT_VERSION generates a client from the demo's document"
  # Its one warning: the client stream's application/x-ndjson request body,
  # which it does not support (it keeps the method, with JSON).
  grep -h '^WARNING\|^Unsupported' "$work/generate.log" | sed 's/^/     (generator: /; s/$/)/' || true
else
  fail "openapi-python-client $OPENAPI_PYTHON_CLIENT_VERSION generates a client from the demo's document"
  tail -20 "$work/generate.log" | sed 's/^/  | /'
fi
if "$pyc" e2e/openapi/roundtrip.py "$work/client" "$H" >"$work/roundtrip.out" 2>&1; then
  pass "the generated client's create/get/list/update/delete round trip: $(tail -1 "$work/roundtrip.out")"
else
  fail "the generated client's create/get/list/update/delete round trip"
  grep -v '^ok ' "$work/roundtrip.out" | sed 's/^/  | /'
fi

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
# The protovalidate rules of a .proto file, as JSON Schema keywords.
if "$work/protorest" openapi --import-path validateprotorest/example --proto accounts/v1/accounts.proto \
  --output "$work/accounts.json" 2>"$work/openapi.log"; then
  validate "protorest openapi of accounts.proto (protovalidate rules)" "$work/accounts.json"
  check "protorest openapi writes the rules as keywords" \
    "$("$py" -c 'import json,sys; u=json.load(open(sys.argv[1]))["components"]["schemas"]["accounts.v1.CreateAccountRequest"]["properties"]["username"]; print(u["pattern"], u["minLength"], u["maxLength"])' "$work/accounts.json")" \
    "^[a-z][a-z0-9_]*$ 3 20"
else
  fail "protorest openapi of accounts.proto"; cat "$work/openapi.log"
fi

for f in testdata/openapi/*.json testdata/openapi/*.yaml; do
  validate "golden $f" "$f"
done

echo "e2e-openapi: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
