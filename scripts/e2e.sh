#!/usr/bin/env bash
# End to end: build the binary, start the demo, and replay the README's
# transcripts with curl and grpcurl exactly as a newcomer types them.
set -euo pipefail
cd "$(dirname "$0")/.."

GRPCURL_VERSION=v1.9.4
GRPC_PORT=${GRPC_PORT:-9090}
HTTP_PORT=${HTTP_PORT:-9091}

work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl; }
GOBIN="$work/bin" go install "github.com/fullstorydev/grpcurl/cmd/grpcurl@$GRPCURL_VERSION"
grpcurl="$work/bin/grpcurl"
go build -o "$work/protorest" ./cmd/protorest

"$work/protorest" demo -grpc ":$GRPC_PORT" -http ":$HTTP_PORT" >"$work/demo.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://localhost:$HTTP_PORT/" && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/demo.log"; echo "demo exited"; exit 1; }
  sleep 0.1
done

passed=0 failed=0
check() { # name, got, want
  if [ "$2" == "$3" ]; then
    passed=$((passed + 1)); echo "ok   $1"
  else
    failed=$((failed + 1)); echo "FAIL $1"; echo "  got:  $2"; echo "  want: $3"
  fi
}
contains() { # name, haystack, needle
  if [[ "$2" == *"$3"* ]]; then
    passed=$((passed + 1)); echo "ok   $1"
  else
    failed=$((failed + 1)); echo "FAIL $1"; echo "  got:  $2"; echo "  want a part: $3"
  fi
}

H="http://localhost:$HTTP_PORT"

out=$(curl -s -X POST -d '{"msg":"hello"}' -i "$H/api/v1/example/upper" | tr -d '\r')
contains "upper: status" "$out" "HTTP/1.1 200 OK"
contains "upper: content type" "$out" "Content-Type: application/json"
check "upper: body" "$(printf '%s' "$out" | tail -n1)" '{"msg":"HELLO"}'

out=$("$grpcurl" -plaintext -d '{"msg": "hello"}' "localhost:$GRPC_PORT" example.v1.MySvc/Upper | tr -d ' \n')
check "grpcurl upper" "$out" '{"msg":"HELLO"}'

out=$(curl -s -X POST -d '{"msg":"hello"}' "http://127.0.0.1:$HTTP_PORT/api/v1/example/echo")
check "echo" "$out" '{"msg":"echo: hello"}'

out=$(curl -s -X POST -d '{"msg":"hello"}' -H 'Accept: application/proto' "http://127.0.0.1:$HTTP_PORT/api/v1/example/echo" | od -An -tx1 | tr -d ' \n')
check "echo, binary response" "$out" "0a0b$(printf 'echo: hello' | od -An -tx1 | tr -d ' \n')"

printf '\x0a\x05hello' >"$work/req.bin"
out=$(curl -s -X POST --data-binary @"$work/req.bin" -H 'Content-Type: application/proto' -D "$work/headers" "http://127.0.0.1:$HTTP_PORT/api/v1/example/echo" | od -An -tx1 | tr -d ' \n')
check "echo, binary request and response" "$out" "0a0b$(printf 'echo: hello' | od -An -tx1 | tr -d ' \n')"
contains "echo, binary content type" "$(tr -d '\r' <"$work/headers")" "Content-Type: application/proto"

out=$(curl -s -i "localhost:$HTTP_PORT/v1/books/" | tr -d '\r')
contains "empty book name: status" "$out" "HTTP/1.1 400 Bad Request"
contains "empty book name: body" "$(printf '%s' "$out" | tail -n1)" '{"code":3,"message":"Name argument is required","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest"'

out=$(curl -s -o /dev/null -w '%{http_code}' "$H/no/such/route")
check "unknown route is 404" "$out" "404"

out=$(curl -s -i -X DELETE "$H/api/v1/example/echo" | tr -d '\r')
contains "wrong method is 405" "$out" "HTTP/1.1 405 Method Not Allowed"
contains "wrong method has Allow" "$out" "Allow: POST"

out=$(curl -s "$H/files/readme.txt")
check "custom route" "$out" 'file "readme.txt"'

out=$(curl -s "$H/ui/")
contains "static page" "$out" "<title>protorest demo</title>"

# protorest serve in front of the demo's gRPC port, with descriptors
# from server reflection.
SERVE_PORT=${SERVE_PORT:-9092}
"$work/protorest" serve --upstream "localhost:$GRPC_PORT" --listen ":$SERVE_PORT" >"$work/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://localhost:$SERVE_PORT/" && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log"; break; }
  sleep 0.1
done
out=$(curl -s -X POST -d '{"msg":"hello"}' "http://localhost:$SERVE_PORT/api/v1/example/upper")
check "serve: upper through reflection" "$out" '{"msg":"HELLO"}'
out=$(curl -s -i "localhost:$SERVE_PORT/v1/books/" | tr -d '\r')
contains "serve: error details from the upstream" "$(printf '%s' "$out" | tail -n1)" '{"code":3,"message":"Name argument is required","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest"'
kill -TERM "$serve_pid"
if wait "$serve_pid"; then
  passed=$((passed + 1)); echo "ok   serve: exits 0 on SIGTERM"
else
  failed=$((failed + 1)); echo "FAIL serve: exit status on SIGTERM"; cat "$work/serve.log"
fi

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
