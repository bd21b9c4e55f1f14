#!/usr/bin/env bash
# End to end against a Python upstream: protorest serve fronts a grpcio
# server (e2e/python/server.py, service shelf.v1.Shelves from
# e2e/python/proto) and curl checks bodies, statuses, headers and trailers,
# with descriptors from server reflection, from the .proto sources, from a
# descriptor set, and over a Unix socket.
#
# Needs go, python3 (with venv) and pip's access to PyPI; installs curl
# when it is missing. Everything else goes in a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/e2e-lib.sh
source scripts/e2e-lib.sh
root=$PWD

PYTHON=${PYTHON:-python3}
GRPCIO_VERSION=1.85.1 # grpcio, grpcio-tools, grpcio-reflection, grpcio-status
PROTOBUF_VERSION=7.36.2
GOOGLEAPIS_COMMON_PROTOS_VERSION=1.76.0
OPENAPI_SPEC_VALIDATOR_VERSION=0.9.0

work=$(mktemp -d)
pids=()
cleanup() {
  local p
  for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null || true; done
  for p in ${pids[@]+"${pids[@]}"}; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

need_curl

# The binary builds while pip installs.
start=$SECONDS
go build -o "$work/protorest" ./cmd/protorest >"$work/build.log" 2>&1 &
build_pid=$!
pids+=("$build_pid")

if ! "$PYTHON" -m venv "$work/venv" >"$work/venv.log" 2>&1; then
  # Debian's python3 keeps venv (ensurepip) in a package of its own.
  apt-get update -qq && apt-get install -y -qq python3-venv
  rm -rf "$work/venv"
  "$PYTHON" -m venv "$work/venv"
fi
py="$work/venv/bin/python"
"$py" -m pip install --quiet --disable-pip-version-check --no-input \
  "grpcio==$GRPCIO_VERSION" "grpcio-tools==$GRPCIO_VERSION" \
  "grpcio-reflection==$GRPCIO_VERSION" "grpcio-status==$GRPCIO_VERSION" \
  "protobuf==$PROTOBUF_VERSION" "googleapis-common-protos==$GOOGLEAPIS_COMMON_PROTOS_VERSION" \
  "openapi-spec-validator==$OPENAPI_SPEC_VALIDATOR_VERSION"
pyc=$(openapi_clients_venv)
pip_time=$((SECONDS - start))

# googleapis-common-protos installs google/api/*.proto and google/rpc/*.proto
# beside its modules; grpc_tools.protoc adds the well-known types itself.
googleapis=$("$py" -c 'import os, google.api.annotations_pb2 as m; print(os.path.dirname(os.path.dirname(os.path.dirname(m.__file__))))')
[ -f "$googleapis/google/api/annotations.proto" ] || { echo "no google/api/annotations.proto under $googleapis"; exit 1; }
# shelf.proto's protovalidate rules import buf/validate/validate.proto, whose
# descriptors come from the Go module protorest links (PyPI has no
# generated code of it): protoc reads them from a descriptor set, and
# generates the Python module the server imports.
protos="$root/e2e/python/proto"
mkdir "$work/gen"
go run ./validateprotorest/internal/validateproto >"$work/validate.binpb"
"$py" -m grpc_tools.protoc --descriptor_set_in="$work/validate.binpb" --python_out="$work/gen" buf/validate/validate.proto
"$py" -m grpc_tools.protoc -I "$protos" -I "$googleapis" --descriptor_set_in="$work/validate.binpb" \
  --python_out="$work/gen" --grpc_python_out="$work/gen" shelf/v1/shelf.proto
"$py" -m grpc_tools.protoc -I "$protos" -I "$googleapis" --descriptor_set_in="$work/validate.binpb" \
  --include_imports --descriptor_set_out="$work/shelf.binpb" shelf/v1/shelf.proto

wait "$build_pid" || { cat "$work/build.log"; echo "go build failed"; exit 1; }
pids=()
setup_time=$((SECONDS - start))

line() { # name, lines, a whole line that must be among them
  if [[ $'\n'"$2"$'\n' == *$'\n'"$3"$'\n'* ]]; then pass "$1"; else fail "$1"; echo "  got:"; printf '%s\n' "$2" | sed 's/^/    /'; echo "  want the line: $3"; fi
}
noline() { # name, lines, text no line may start with
  if [[ $'\n'"$2" != *$'\n'"$3"* ]]; then pass "$1"; else fail "$1"; echo "  got:"; printf '%s\n' "$2" | sed 's/^/    /'; echo "  want no line starting: $3"; fi
}
# JSON comparisons ignore spacing and key order.
jnorm() { # json -> canonical json, or the text itself when it is not JSON
  printf '%s' "$1" | "$py" -c '
import json, sys
t = sys.stdin.read()
try:
    print(json.dumps(json.loads(t), sort_keys=True, separators=(",", ":")))
except ValueError:
    print("not JSON: " + t)'
}
jcheck() { # name, got json, want json
  check "$1" "$(jnorm "$2")" "$(jnorm "$3")"
}
jget() { # json, dotted path (details.0.@type); strings print raw, else JSON
  printf '%s' "$1" | "$py" -c '
import json, sys
try:
    v = json.load(sys.stdin)
    for k in sys.argv[1].split("."):
        v = v[int(k)] if isinstance(v, list) else v[k]
except (ValueError, LookupError, TypeError) as e:
    print("<%s: %r>" % (type(e).__name__, e)); sys.exit()
print(v if isinstance(v, str) else json.dumps(v, sort_keys=True, separators=(",", ":")))' "$2"
}
jnames() { # json with shelves[] -> their names, space-separated
  printf '%s' "$1" | "$py" -c '
import json, sys
try:
    print(" ".join(s["name"] for s in json.load(sys.stdin).get("shelves", [])))
except (ValueError, LookupError, TypeError, AttributeError) as e:
    print("<%s: %r>" % (type(e).__name__, e))'
}

# req CURL-ARGS...: one request; sets code, headers (the header block),
# trailers (what came after it: HTTP/1.1 chunked trailers) and body.
req() {
  : >"$work/resp.h"; : >"$work/resp.b"
  local rc=0 out
  out=$(curl -s -D "$work/resp.h" -o "$work/resp.b" -w '%{http_code}\t%{method}\t%{url_effective}\t%{content_type}' "$@") || rc=$?
  code=${out%%$'\t'*}
  [ "$rc" -eq 0 ] || code="$code (curl exit $rc)"
  headers=$(tr -d '\r' <"$work/resp.h" | sed '/^$/q' | sed '/^$/d')
  trailers=$(tr -d '\r' <"$work/resp.h" | sed '1,/^$/d' | sed '/^$/d')
  body=$(cat "$work/resp.b")
  if [ -n "${record:-}" ] && [ "$rc" -eq 0 ]; then
    # method, URL, status, Content-Type, body: for recorded.py
    IFS=$'\t' read -r _ m u ct <<<"$out"
    printf '%s\t%s\t%s\t%s\t%s\n' "$m" "$u" "$code" "$ct" "$(base64 -w0 "$work/resp.b")" >>"$record"
  fi
}

# start_server NAME ADDRESS [SERVER-ARGS...]: a Python server; sets
# server_port.
start_server() {
  PYTHONPATH="$work/gen" "$py" -u "$root/e2e/python/server.py" "$2" --port-file "$work/$1.port" "${@:3}" >"$work/$1.py.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 1 300); do
    [ -s "$work/$1.port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  [ -s "$work/$1.port" ] || { cat "$work/$1.py.log"; echo "$1: the Python server did not start"; exit 1; }
  server_port=$(cat "$work/$1.port")
}

# start_gateway NAME SERVE-ARGS...: protorest serve on a free port; sets
# gateway_pid and gateway_url, and returns 1 when it does not answer.
start_gateway() {
  local name=$1 port attempt
  shift
  for attempt in 1 2 3; do
    port=$(free_port)
    "$work/protorest" serve --listen "127.0.0.1:$port" "$@" >"$work/$name.serve.log" 2>&1 &
    gateway_pid=$!
    pids+=("$gateway_pid")
    gateway_url="http://127.0.0.1:$port"
    for _ in $(seq 1 200); do
      [ "$(curl -s -o /dev/null -w '%{http_code}' "$gateway_url/v1/shelves")" == 200 ] && return 0
      kill -0 "$gateway_pid" 2>/dev/null || break
      sleep 0.05
    done
    # Another process may have taken the free port first: try another.
    grep -q 'address already in use' "$work/$name.serve.log" || break
  done
  fail "$name: protorest serve $* answers"
  sed 's/^/  | /' "$work/$name.serve.log"
  return 1
}

# exercise NAME BASE-URL: the same requests and checks for every
# configuration. Each configuration has a fresh Python server, so names and
# create times are the same in each.
exercise() {
  local n=$1 H=$2

  # Create: query parameter by JSON or proto name, enum by name or number,
  # a Timestamp set by the server, x-user metadata from a header.
  req -X POST -H 'Grpc-Metadata-X-User: alice' -d '{"theme":"Sci-fi","genre":"GENRE_SCIENCE"}' "$H/v1/shelves?shelfId=s1"
  check "$n: create: status" "$code" 200
  line "$n: create: content type" "$headers" "Content-Type: application/json"
  jcheck "$n: create: body" "$body" '{"name":"shelves/s1","theme":"Sci-fi","genre":"GENRE_SCIENCE","createTime":"2025-01-02T03:04:05.250Z","createdBy":"alice"}'
  req -X POST -d '{"theme":"History","genre":"GENRE_HISTORY"}' "$H/v1/shelves?shelf_id=s2"
  jcheck "$n: create with shelf_id=" "$code $body" '200 {"name":"shelves/s2","theme":"History","genre":"GENRE_HISTORY","createTime":"2025-01-02T03:04:06.250Z","createdBy":""}'
  req -X POST -d '{"theme":"Novels","genre":1}' "$H/v1/shelves?shelfId=s3"
  check "$n: create with a numeric enum" "$code $(jget "$body" genre)" "200 GENRE_FICTION"

  # Get: header metadata (text and -bin) both ways; no trailers unasked.
  req -H 'Grpc-Metadata-X-User: bob' -H 'Grpc-Metadata-X-Trace-Bin: AQID' "$H/v1/shelves/s1"
  check "$n: get: status" "$code" 200
  line "$n: get: content type" "$headers" "Content-Type: application/json"
  line "$n: get: header metadata" "$headers" "Grpc-Metadata-X-Shelf-Source: python"
  line "$n: get: Grpc-Metadata-X-User reaches Python" "$headers" "Grpc-Metadata-X-Shelf-Caller: bob"
  line "$n: get: binary metadata in" "$headers" "Grpc-Metadata-X-Shelf-Trace-Hex: 010203"
  line "$n: get: binary metadata out" "$headers" "Grpc-Metadata-X-Shelf-Etag-Bin: AAH+/w=="
  jcheck "$n: get: body" "$body" '{"name":"shelves/s1","theme":"Sci-fi","genre":"GENRE_SCIENCE","createTime":"2025-01-02T03:04:05.250Z","createdBy":"alice"}'
  noline "$n: get: no trailer metadata without TE: trailers" "$headers"$'\n'"$trailers" "Grpc-Trailer-"
  check "$n: get: no HTTP trailers without TE: trailers" "$trailers" ""

  # Metadata that cannot be spoofed: what Python received of the keys a
  # gateway owns, when the client tries to forge them.
  req -H 'Authorization: Bearer real' -H 'Grpc-Metadata-Grpcgateway-Authorization: Bearer spoof' \
    -H 'Grpc-Metadata-Grpcgateway-Cookie: session=spoof' -H 'Grpc-Metadata-Authorization: Bearer spoof' \
    -H 'Proxy-Authorization: Basic c3Bvb2Y=' -H 'Grpc-Metadata-Proxy-Authorization: Basic c3Bvb2Y=' \
    -H 'X-Forwarded-Host: evil.example' -H 'Grpc-Metadata-X-Forwarded-Host: evil.example' \
    -H 'X-Forwarded-For: 10.0.0.1' -H 'X-Forwarded-For: 10.0.0.2' -H 'User-Agent: e2e' -H 'Accept: application/json' \
    "$H/v1/shelves/s1"
  got=$(printf '%s\n' "$headers" | sed -n 's/^Grpc-Metadata-X-Shelf-Received: //p')
  check "$n: spoofed metadata: what Python received" "$got" "authorization=Bearer real;grpcgateway-accept=application/json;grpcgateway-authorization=Bearer real;grpcgateway-user-agent=e2e;x-forwarded-for=10.0.0.1, 10.0.0.2, 127.0.0.1;x-forwarded-host=${H#http*://}"

  req -H 'TE: trailers' "$H/v1/shelves/s1"
  check "$n: get, TE: trailers: status" "$code" 200
  line "$n: get, TE: trailers: declared" "$headers" "Trailer: Grpc-Trailer-X-Shelf-Trailer"
  line "$n: get, TE: trailers: trailer" "$trailers" "Grpc-Trailer-X-Shelf-Trailer: done"
  noline "$n: get, TE: trailers: not a header" "$headers" "Grpc-Trailer-X-Shelf-Trailer:"
  check "$n: get, TE: trailers: body" "$(jget "$body" name)" "shelves/s1"

  # List: page size by JSON or proto name, page token, a Timestamp and an
  # enum in the query.
  req "$H/v1/shelves?pageSize=2"
  check "$n: list pageSize=2" "$code $(jnames "$body") $(jget "$body" nextPageToken)" "200 shelves/s1 shelves/s2 2"
  req "$H/v1/shelves?page_size=2&page_token=2"
  check "$n: list page_size=2&page_token=2" "$code $(jnames "$body") [$(jget "$body" nextPageToken)]" "200 shelves/s3 []"
  req "$H/v1/shelves?createdAfter=2025-01-02T03:04:05.250Z"
  check "$n: list createdAfter (Timestamp)" "$code $(jnames "$body")" "200 shelves/s2 shelves/s3"
  req "$H/v1/shelves?genre=GENRE_FICTION"
  check "$n: list genre (enum)" "$code $(jnames "$body")" "200 shelves/s3"
  req "$H/v1/shelves?pageSize=abc"
  check "$n: list pageSize=abc: status" "$code $(jget "$body" code)" "400 3"
  contains "$n: list pageSize=abc: message" "$(jget "$body" message)" "pageSize"

  # Update: an explicit mask, a mask derived from the body, a refused path.
  req -X PATCH -d '{"theme":"Hard sci-fi","genre":"GENRE_FICTION"}' "$H/v1/shelves/s1?updateMask=theme"
  check "$n: patch updateMask=theme: status" "$code" 200
  line "$n: patch updateMask=theme: mask reaches Python" "$headers" "Grpc-Metadata-X-Shelf-Update-Mask: theme"
  check "$n: patch updateMask=theme: body" "$(jget "$body" theme) $(jget "$body" genre) $(jget "$body" createTime)" "Hard sci-fi GENRE_SCIENCE 2025-01-02T03:04:05.250Z"
  req -X PATCH -d '{"theme":"World history"}' "$H/v1/shelves/s2"
  check "$n: patch, mask from the body: status" "$code" 200
  line "$n: patch, mask from the body: mask reaches Python" "$headers" "Grpc-Metadata-X-Shelf-Update-Mask: theme"
  check "$n: patch, mask from the body: body" "$(jget "$body" theme) $(jget "$body" genre)" "World history GENRE_HISTORY"
  req -X PATCH -d '{"theme":"x"}' "$H/v1/shelves/s1?updateMask=name"
  check "$n: patch updateMask=name: status" "$code $(jget "$body" code)" "400 3"
  jcheck "$n: patch updateMask=name: BadRequest" "$(jget "$body" details.0)" '{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"update_mask","description":"\"name\" cannot be updated"}]}'

  # Delete.
  req -X DELETE "$H/v1/shelves/s3"
  check "$n: delete: status and body" "$code $body" "200 {}"
  req -X DELETE "$H/v1/shelves/s3"
  check "$n: delete again: status" "$code $(jget "$body" code)" "404 5"

  # Errors with details from grpcio-status.
  req "$H/v1/shelves/nope"
  check "$n: missing shelf: status" "$code" 404
  line "$n: missing shelf: content type" "$headers" "Content-Type: application/json"
  jcheck "$n: missing shelf: body" "$body" '{"code":5,"message":"shelf \"shelves/nope\" not found","details":[{"@type":"type.googleapis.com/google.rpc.ResourceInfo","resourceType":"shelf.v1.Shelf","resourceName":"shelves/nope","description":"no such shelf"}]}'
  check "$n: missing shelf: detail type" "$(jget "$body" details.0.@type)" "type.googleapis.com/google.rpc.ResourceInfo"
  check "$n: missing shelf: detail field" "$(jget "$body" details.0.resourceName)" "shelves/nope"
  line "$n: missing shelf: header metadata" "$headers" "Grpc-Metadata-X-Shelf-Source: python"
  req -H 'TE: trailers' "$H/v1/shelves/nope"
  check "$n: missing shelf, TE: trailers: status" "$code $(jget "$body" code)" "404 5"
  line "$n: missing shelf, TE: trailers: trailer" "$trailers" "Grpc-Trailer-X-Shelf-Trailer: missing"

  req -X POST -d '{}' "$H/v1/shelves"
  check "$n: invalid create: status" "$code $(jget "$body" code) $(jget "$body" message)" "400 3 invalid shelf"
  check "$n: invalid create: detail type" "$(jget "$body" details.0.@type)" "type.googleapis.com/google.rpc.BadRequest"
  jcheck "$n: invalid create: field violations" "$(jget "$body" details.0.fieldViolations)" '[{"field":"shelf_id","description":"required"},{"field":"shelf.theme","description":"required"}]'
  req -X POST -d '{"theme":"Again"}' "$H/v1/shelves?shelfId=s1"
  check "$n: create an existing shelf" "$code $(jget "$body" code)" "409 6"

  # shelf.proto's protovalidate rules, checked by the gateway (serve's
  # --validate is on by default): 400 with a BadRequest naming each field
  # as the client wrote it, and Python is never called.
  req -X POST -d '{"theme":"Rules"}' "$H/v1/shelves?shelfId=Bad_Id"
  check "$n: rules: a shelfId against the pattern" "$code $(jget "$body" details.0.fieldViolations)" \
    '400 [{"description":"does not match regex pattern `^[a-z0-9-]*$`","field":"shelfId","reason":"STRING_PATTERN"}]'
  check "$n: rules: buf.validate.Violations follows" "$(jget "$body" details.1.@type)" "type.googleapis.com/buf.validate.Violations"
  req "$H/v1/shelves/Bad_Id"
  check "$n: rules: the refused shelf was never created" "$code" 404
  req -X POST -d '{"theme":"A theme far too long for a shelf of this size"}' "$H/v1/shelves?shelf_id=s8"
  check "$n: rules: a theme too long, in the body" "$code $(jget "$body" details.0.fieldViolations.0.field) $(jget "$body" details.0.fieldViolations.0.reason)" \
    "400 shelf.theme STRING_MAX_LEN"
  req -X POST -d '{"theme":"Rules","genre":9}' "$H/v1/shelves?shelf_id=s8"
  check "$n: rules: an undefined genre" "$code $(jget "$body" details.0.fieldViolations.0.field) $(jget "$body" details.0.fieldViolations.0.reason)" \
    "400 shelf.genre ENUM_DEFINED_ONLY"
  req "$H/v1/shelves/s8"
  check "$n: rules: s8 was never created" "$code" 404
  req "$H/v1/shelves?page_size=500"
  check "$n: rules: page_size over 100, in the query" "$code $(jget "$body" details.0.fieldViolations.0.field) $(jget "$body" details.0.fieldViolations.0.reason)" \
    "400 page_size INT32_GTE_LTE"
  req "$H/v1/shelves?pageToken=2"
  check "$n: rules: a CEL rule of the message" "$code $(jget "$body" message)" "400 invalid request: page_token needs page_size"
  check "$n: rules: the CEL rule's id" "$(jget "$body" details.0.fieldViolations)" \
    '[{"description":"page_token needs page_size","reason":"LIST_TOKEN_NEEDS_SIZE"}]'

  # The gateway's own errors.
  req "$H/v2/nothing"
  check "$n: unknown route: status" "$code" 404
  check "$n: unknown route: Status body" "$(jget "$body" code) $(jget "$body" details)" "5 []"
  req -X PUT -d '{}' "$H/v1/shelves/s1"
  check "$n: PUT on a shelf: status" "$code $(jget "$body" code)" "405 12"
  line "$n: PUT on a shelf: Allow" "$headers" "Allow: DELETE, GET, PATCH"
  req -X DELETE "$H/v1/shelves"
  check "$n: DELETE on the collection: status" "$code" 405
  line "$n: DELETE on the collection: Allow" "$headers" "Allow: GET, POST"
  req -X POST -d '{"theme":' "$H/v1/shelves?shelfId=s9"
  check "$n: truncated JSON: status" "$code $(jget "$body" code)" "400 3"
  contains "$n: truncated JSON: message" "$(jget "$body" message)" "invalid request body"
  req -X POST -d '{"theme":42}' "$H/v1/shelves?shelfId=s9"
  check "$n: wrong JSON type: status" "$code $(jget "$body" code)" "400 3"
  contains "$n: wrong JSON type: message names the field" "$(jget "$body" message)" "theme"
  req "$H/v1/shelves/s1"
  check "$n: nothing above changed s1" "$code $(jget "$body" theme)" "200 Hard sci-fi"
}

# stop_gateway NAME: SIGTERM, and protorest should exit 0.
stop_gateway() {
  kill -TERM "$gateway_pid"
  if wait "$gateway_pid"; then pass "$1: serve exits 0 on SIGTERM"; else fail "$1: serve exit status on SIGTERM"; sed 's/^/  | /' "$work/$1.serve.log"; fi
}

# openapi NAME URL: serve's OpenAPI document of the Python peer, JSON and
# YAML, validates with openapi-spec-validator (PyPI) and has its routes.
openapi() {
  local f
  for f in json yaml; do
    req "$2/openapi.$f"
    printf '%s' "$body" >"$work/$1.openapi.$f"
    check "$1: GET /openapi.$f" "$code" "200"
    if out=$("$py" -m openapi_spec_validator "$work/$1.openapi.$f" 2>&1); then
      pass "$1: openapi.$f validates (openapi-spec-validator)"
    else
      fail "$1: openapi.$f validates (openapi-spec-validator)"; printf '%s\n' "$out" | tail -5 | sed 's/^/  | /'
    fi
  done
  req "$2/openapi.json"
  contains "$1: the document has the Shelves routes" "$body" '"x-grpc-method":"shelf.v1.Shelves/'
}

tests_start=$SECONDS

# 1. TCP upstream, descriptors from server reflection (grpcio-reflection
#    serves grpc.reflection.v1alpha only).
start_server reflection 127.0.0.1:0
if start_gateway reflection --upstream "127.0.0.1:$server_port"; then
  record="$work/reflection.responses.tsv"
  exercise reflection "$gateway_url"
  record=
  openapi reflection "$gateway_url"
  # Every JSON response the exercise received validates against serve's
  # document of the Python peer (openapi-core, in e2e-openapi.sh's venv).
  if out=$("$pyc" e2e/openapi/recorded.py "$work/reflection.openapi.json" "$work/reflection.responses.tsv" 2>&1); then
    pass "reflection: every JSON response validates against the document (openapi-core $OPENAPI_CORE_VERSION): ${out##*$'\n'}"
  else
    fail "reflection: every JSON response validates against the document (openapi-core $OPENAPI_CORE_VERSION)"
    printf '%s\n' "$out" | grep -v '^ok ' | sed 's/^/  | /'
  fi
  stop_gateway reflection
fi

# 2. TCP upstream, descriptors compiled from the .proto sources; the binary
#    brings google/api/*.proto and the well-known types itself.
start_server proto 127.0.0.1:0
if start_gateway proto --upstream "127.0.0.1:$server_port" --proto shelf/v1/shelf.proto --import-path e2e/python/proto; then
  exercise proto "$gateway_url"
  openapi proto "$gateway_url"
  stop_gateway proto
fi

# 3. TCP upstream, descriptors from protoc --include_imports.
start_server descriptor-set 127.0.0.1:0
if start_gateway descriptor-set --upstream "127.0.0.1:$server_port" --descriptor-set "$work/shelf.binpb"; then
  exercise descriptor-set "$gateway_url"
  stop_gateway descriptor-set
fi

# 3b. Telemetry: a request's traceparent reaches Python in the same trace,
#     through the gateway's spans (--otlp-endpoint turns tracing on; no
#     receiver listens: the export fails in the background, not the
#     request), and /metrics has the route template's histogram.
start_server otel 127.0.0.1:0
metrics_port=$(free_port)
if start_gateway otel --upstream "127.0.0.1:$server_port" --metrics-listen "127.0.0.1:$metrics_port" \
  --otlp-endpoint "http://127.0.0.1:$(free_port)"; then
  trace=4bf92f3577b34da6a3ce929d0e0e4736
  req -H "Traceparent: 00-$trace-00f067aa0ba902b7-01" "$gateway_url/v1/shelves/none"
  tp=$(sed -n 's/^Grpc-Metadata-X-Shelf-Traceparent: //p' <<<"$headers")
  if [[ "$tp" =~ ^00-$trace-[0-9a-f]{16}-01$ && "$tp" != *00f067aa0ba902b7* ]]; then
    pass "otel: the traceparent reaches Python in the same trace, the gateway's span as parent"
  else
    fail "otel: the traceparent reaches Python in the same trace, the gateway's span as parent"; echo "  got:  $tp"
  fi
  # TestServeTelemetry (cmd/protorest) parses /metrics with expfmt; here,
  # a bucket line of the route's series.
  bucket=$(curl -s "http://127.0.0.1:$metrics_port/metrics" | grep '^http_server_request_duration_seconds_bucket{' |
    grep -F 'http_route="/v1/{name=shelves/*}"' | grep -F 'http_response_status_code="404"' | grep -F 'le="+Inf"')
  contains "otel: /metrics: the route template's histogram, one request" "$bucket" '} 1'
  stop_gateway otel
fi

# 4. Unix socket upstream, reflection.
sock="$work/shelf.sock"
start_server unix "unix:$sock"
if start_gateway unix --upstream "unix://$sock"; then
  exercise unix "$gateway_url"
  stop_gateway unix
fi

# 5. The upstream starts after the gateway: 503 and an unhealthy /healthz
#    until it is up, then routes without a restart; and gRPC calls on the
#    gateway's HTTP port go to the upstream unchanged.
upstream_port=$(free_port)
gateway_port=$(free_port)
"$work/protorest" serve --listen "127.0.0.1:$gateway_port" --upstream "127.0.0.1:$upstream_port" >"$work/late.serve.log" 2>&1 &
gateway_pid=$!
pids+=("$gateway_pid")
H="http://127.0.0.1:$gateway_port"
for _ in $(seq 1 200); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$H/healthz")" != 000 ] && break
  sleep 0.05
done
req "$H/v1/shelves"
check "late: before the upstream: status" "$code" 503
check "late: before the upstream: code" "$(jget "$body" code)" 14
req "$H/healthz"
check "late: health before the upstream: status" "$code" 503
check "late: health before the upstream: routes" "$(jget "$body" routes)" waiting
contains "late: the log says what it waits for" "$(cat "$work/late.serve.log")" "waiting for the upstream"
start_server late "127.0.0.1:$upstream_port"
up_at=$(date +%s%N)
for _ in $(seq 1 100); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$H/v1/shelves")" == 200 ] && break
  sleep 0.05
done
req "$H/v1/shelves"
check "late: routes once the upstream is up: status" "$code" 200
echo "     (served $((($(date +%s%N) - up_at) / 1000000)) ms after the upstream started)"
req "$H/healthz"
check "late: health: status" "$code" 200
jcheck "late: health: body" "$body" '{"status":"SERVING","connectivity":"READY","health":"UNIMPLEMENTED","routes":"loaded"}'
req -X POST -d '{"theme":"Via REST"}' "$H/v1/shelves?shelfId=g1"
check "late: create over REST" "$code" 200
grpc_out=$(PYTHONPATH="$work/gen" "$py" - "127.0.0.1:$gateway_port" <<'PY' 2>&1
import sys, grpc
from shelf.v1 import shelf_pb2, shelf_pb2_grpc
with grpc.insecure_channel(sys.argv[1]) as ch:
    stub = shelf_pb2_grpc.ShelvesStub(ch)
    shelf, call = stub.GetShelf.with_call(shelf_pb2.GetShelfRequest(name="shelves/g1"), timeout=5)
    md = dict(call.initial_metadata())
    print(shelf.theme, md.get("x-shelf-source"), dict(call.trailing_metadata()).get("x-shelf-trailer"))
    try:
        stub.GetShelf(shelf_pb2.GetShelfRequest(name="shelves/nope"), timeout=5)
    except grpc.RpcError as e:
        print(e.code().name, "google.rpc.resourceinfo-bin" in dict(e.trailing_metadata()) or "grpc-status-details-bin" in dict(e.trailing_metadata()))
PY
) || true
check "late: gRPC on the HTTP port" "$grpc_out" $'Via REST python done\nNOT_FOUND True'
stop_gateway late

# 6. A TLS upstream (grpc.ssl_server_credentials), fronted with
#    --upstream-ca: reflection, REST, health and readiness over TLS.
#    Certificates are made now with openssl; none is committed.
need_openssl
certs="$work/certs"; mkdir -p "$certs"
make_ca "$certs" ca
make_ca "$certs" client-ca
issue_cert "$certs" ca server DNS:localhost,IP:127.0.0.1
issue_cert "$certs" client-ca client DNS:protorest
start_server tls 127.0.0.1:0 --tls-cert "$certs/server.pem" --tls-key "$certs/server.key"
if start_gateway tls --upstream "localhost:$server_port" --upstream-ca "$certs/ca.pem"; then
  exercise tls "$gateway_url"
  req "$gateway_url/healthz"
  check "tls: health over TLS" "$code $(jget "$body" connectivity)" "200 READY"
  req "$gateway_url/readyz"
  check "tls: ready" "$code" 200
  stop_gateway tls
fi

# 7. The upstream requires a client certificate: refused without
#    --upstream-cert, served with it.
start_server mtls 127.0.0.1:0 --tls-cert "$certs/server.pem" --tls-key "$certs/server.key" --tls-client-ca "$certs/client-ca.pem"
mtls_port=$server_port
if start_gateway mtls --upstream "localhost:$mtls_port" --upstream-ca "$certs/ca.pem" \
  --upstream-cert "$certs/client.pem" --upstream-key "$certs/client.key"; then
  req -X POST -d '{"theme":"Secure"}' "$gateway_url/v1/shelves?shelfId=m1"
  check "mtls: create over mutual TLS" "$code $(jget "$body" theme)" "200 Secure"
  stop_gateway mtls
fi
port=$(free_port)
"$work/protorest" serve --listen "127.0.0.1:$port" --upstream "localhost:$mtls_port" --upstream-ca "$certs/ca.pem" --load-timeout 2s >"$work/nocert.serve.log" 2>&1 &
gateway_pid=$!
pids+=("$gateway_pid")
for _ in $(seq 1 100); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/livez")" == 200 ] && break
  sleep 0.05
done
req "http://127.0.0.1:$port/readyz"
check "mtls: not ready without a client certificate" "$code" 503
req "http://127.0.0.1:$port/v1/shelves"
check "mtls: 503 without a client certificate" "$code $(jget "$body" code)" "503 14"
stop_gateway nocert

if [ "$failed" -gt 0 ]; then
  for f in "$work"/*.serve.log; do
    if grep -q 'panic' "$f"; then
      echo "--- $(basename "$f") (panics)"
      grep -A12 'panic serving' "$f" | sed 's/^/  | /' | head -40
    fi
  done
fi
echo "e2e-python: setup ${setup_time}s (venv and pip ${pip_time}s), tests $((SECONDS - tests_start))s"
echo "e2e-python: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
