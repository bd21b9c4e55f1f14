#!/usr/bin/env bash
# End to end: build the binary, start the demo, and replay the README's
# transcripts with curl and grpcurl exactly as a newcomer types them.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/e2e-lib.sh
source scripts/e2e-lib.sh

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

need_curl
need_zstd
GOBIN="$work/bin" go install "github.com/fullstorydev/grpcurl/cmd/grpcurl@$GRPCURL_VERSION"
grpcurl="$work/bin/grpcurl"
go build -o "$work/protorest" ./cmd/protorest

# The README's install lines. "go install
# github.com/protorest/protorest/cmd/protorest@latest" and "go get
# github.com/protorest/protorest" cannot run here: they fetch the module as
# published, which this checkout is not. The same package is installed
# from the checkout instead, and the import line is compiled against it
# with a replace directive. (CI sets -buildvcs=false, so these binaries
# report "(devel)" and an unknown revision: only the Go version is certain.)
gover=$(go env GOVERSION)
out=$(go run ./cmd/protorest version)
contains "go run ./cmd/protorest version: the Go version" "$out" $'\ngo        '"$gover "
if [[ "${out%%$'\n'*}" =~ ^protorest\ (\(devel\)|v[0-9][^\ ]*)$ ]]; then
  pass "go run ./cmd/protorest version: protorest (devel) or vX.Y.Z"
else
  fail "go run ./cmd/protorest version: protorest (devel) or vX.Y.Z"; echo "  got:  ${out%%$'\n'*}"
fi
GOBIN="$work/gobin" go install ./cmd/protorest
out=$("$work/gobin/protorest" version)
contains "go install ./cmd/protorest; protorest version: the Go version" "$out" $'\ngo        '"$gover "
# The module version and revision are what the toolchain recorded.
bi=$(go version -m "$work/gobin/protorest")
rev=$(awk '$1 == "build" && $2 ~ /^vcs\.revision=/ { sub(/^vcs\.revision=/, "", $2); print $2 }' <<<"$bi")
dirty=$(awk '$1 == "build" && $2 == "vcs.modified=true" { print "-dirty" }' <<<"$bi")
check "go install ./cmd/protorest; protorest version: module version and revision" "$(head -n2 <<<"$out")" \
  "protorest $(awk '$1 == "mod" { print $3 }' <<<"$bi")"$'\n'"revision  ${rev:-unknown}$dirty"
check "protorest --version is protorest version" "$("$work/gobin/protorest" --version)" "$out"
mkdir "$work/app"
cat >"$work/app/main.go" <<'GO'
package main

import "github.com/protorest/protorest"

func main() { _ = protorest.NewGateway() }
GO
if (repo=$PWD && cd "$work/app" && go mod init example.com/app &&
  go mod edit -require github.com/protorest/protorest@v0.0.0 -replace "github.com/protorest/protorest=$repo" &&
  go mod tidy && go build -o /dev/null .) >"$work/app.log" 2>&1; then
  pass "import \"github.com/protorest/protorest\" builds"
else
  fail "import \"github.com/protorest/protorest\" builds"; cat "$work/app.log"
fi

"$work/protorest" demo -grpc ":$GRPC_PORT" -http ":$HTTP_PORT" >"$work/demo.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://localhost:$HTTP_PORT/" && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/demo.log"; echo "demo exited"; exit 1; }
  sleep 0.1
done

H="http://localhost:$HTTP_PORT"

# A second demo on the first one's gRPC port says which flag moves it.
code=0; "$work/protorest" demo -grpc ":$GRPC_PORT" -http "127.0.0.1:$(free_port)" >/dev/null 2>"$work/taken.err" || code=$?
check "demo: a port taken exits 1" "$code" 1
contains "demo: a port taken names the flag that moves it" "$(cat "$work/taken.err")" "bind: address already in use (another process holds it; pick another port with --grpc :"

# Every command the demo prints under "Try:" runs exactly as printed
# (localhost and the ports are the demo's), under pipefail, with curl
# failing on an HTTP error (a wrapper first in PATH adds --fail-with-body
# and --silent --show-error): each must exit 0 and print something. The
# pages it prints under "In a browser:" must answer 200 with HTML here;
# the browser end-to-end test (scripts/e2e-browser.sh) uses them.
for _ in $(seq 1 100); do grep -q '^Try:$' "$work/demo.log" && break; sleep 0.1; done
mkdir "$work/try"
printf '#!/bin/sh\nexec %q --fail-with-body --silent --show-error --max-time 20 "$@"\n' "$(command -v curl)" >"$work/try/curl"
chmod +x "$work/try/curl"
tried=0
while IFS= read -r line; do
  case $line in
  curl\ * | go\ run\ * | *\|\ curl\ *) ;;
  *) fail "demo prints a line e2e.sh does not know how to run: $line"; continue ;;
  esac
  tried=$((tried + 1))
  if out=$(PATH="$work/try:$PATH" bash -o pipefail -c "$line" 2>&1) && [ -n "$out" ]; then
    pass "demo's line: $line"
  else
    fail "demo's line: $line"; echo "  got:  $out"
  fi
done < <(awk '/^Try:$/ { on = 1; next } on && /^  / { sub(/^  /, ""); print; next } on { exit }' "$work/demo.log")
if [ "$tried" -ge 12 ]; then pass "demo: $tried printed lines run"; else fail "demo: only $tried printed lines run"; cat "$work/demo.log"; fi
pages=0
while IFS= read -r url; do
  pages=$((pages + 1))
  out=$(curl -s -o /dev/null -w '%{http_code} %{content_type}' "$url")
  contains "demo's page in a browser: $url" "$out" "200 text/html"
done < <(awk '/^In a browser:$/ { on = 1; next } on && /^  / { print $1; next } on { exit }' "$work/demo.log")
if [ "$pages" -ge 2 ]; then pass "demo: $pages pages to open"; else fail "demo: only $pages pages to open"; cat "$work/demo.log"; fi

# The requests the demo prints as refused by accounts.v1's protovalidate
# rules, run as printed: each is answered 400 with a google.rpc.BadRequest
# naming the fields. A refused account is never created: the service was
# not called.
refused=0
while IFS= read -r line; do
  case $line in
  curl\ *) ;;
  *) fail "demo prints a refusal e2e.sh does not know how to run: $line"; continue ;;
  esac
  refused=$((refused + 1))
  out=$(bash -o pipefail -c "$line" 2>&1 | tr -d '\r')
  contains "demo's refusal: $line: 400" "$out" "HTTP/1.1 400 Bad Request"
  contains "demo's refusal: $line: the field violations" "$out" '{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"username",'
done < <(awk '/^Refused by the rules/ { on = 1; next } on && /^  / { sub(/^  /, ""); print; next } on { exit }' "$work/demo.log")
if [ "$refused" -ge 2 ]; then pass "demo: $refused printed refusals run"; else fail "demo: only $refused printed refusals run"; cat "$work/demo.log"; fi
# README's transcript of a refused account.
out=$(curl -s -X POST -d '{"username":"grace","email":"nope","age":36}' "$H/v1/accounts")
check "validate: a bad email is refused" "$out" '{"code":3,"message":"invalid request: email: must be a valid email address","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"email","description":"must be a valid email address","reason":"STRING_EMAIL"}]},{"@type":"type.googleapis.com/buf.validate.Violations","violations":[{"field":{"elements":[{"fieldNumber":2,"fieldName":"email","fieldType":"TYPE_STRING"}]},"rule":{"elements":[{"fieldNumber":14,"fieldName":"string","fieldType":"TYPE_MESSAGE"},{"fieldNumber":12,"fieldName":"email","fieldType":"TYPE_BOOL"}]},"ruleId":"string.email","message":"must be a valid email address"}]}]}'
out=$(curl -s -o /dev/null -w '%{http_code}' "$H/v1/accounts/grace")
check "validate: the refused account was never created" "$out" 404

out=$(curl -s -X POST -d '{"msg":"hello"}' -i "$H/api/v1/example/upper" | tr -d '\r')
contains "upper: status" "$out" "HTTP/1.1 200 OK"
contains "upper: content type" "$out" "Content-Type: application/json"
check "upper: body" "$(printf '%s' "$out" | tail -n1)" '{"msg":"HELLO"}'

out=$("$grpcurl" -plaintext -d '{"msg": "hello"}' "localhost:$GRPC_PORT" example.v1.MySvc/Upper | tr -d ' \n')
check "grpcurl upper" "$out" '{"msg":"HELLO"}'

# grpcurl, a grpc-go client, on the demo's HTTP port: the gateway's own
# gRPC, to the in-process services, with server reflection there too.
out=$("$grpcurl" -plaintext "localhost:$HTTP_PORT" list | tr '\n' ' ')
check "grpcurl on the HTTP port: list (reflection)" "$out" \
  'accounts.v1.AccountService bookstore.v1.BookService example.v1.MySvc grpc.reflection.v1.ServerReflection grpc.reflection.v1alpha.ServerReflection library.v1.LibraryService '
out=$("$grpcurl" -plaintext -d '{"msg": "hello"}' "localhost:$HTTP_PORT" example.v1.MySvc/Upper | tr -d ' \n')
check "grpcurl on the HTTP port: upper" "$out" '{"msg":"HELLO"}'
out=$("$grpcurl" -plaintext -d '{"count": 3, "intervalMs": 50}' "localhost:$HTTP_PORT" example.v1.MySvc/Watch | tr -d ' \n' |
  sed -E 's/"time":"[^"]*"/"time":"T"/g')
check "grpcurl on the HTTP port: a server stream" "$out" '{"seq":1,"time":"T"}{"seq":2,"time":"T"}{"seq":3,"time":"T"}'
out=$("$grpcurl" -plaintext -d '{}' "localhost:$HTTP_PORT" bookstore.v1.BookService/GetBook 2>&1 | tr -d ' \n\t' || true)
contains "grpcurl on the HTTP port: an error with its details" "$out" \
  'Code:InvalidArgumentMessage:NameargumentisrequiredDetails:1){"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"name",'

# The README's "Connect, gRPC-Web and gRPC" lines, as printed but for the
# port (a command continued with "\" is one line): Connect with curl, and
# grpcurl on the HTTP port.
mapfile -t protocols < <(awk '/^## / { on = ($0 == "## Connect, gRPC-Web and gRPC") } on && /^```sh$/ { code = 1; next } /^```$/ { code = 0 } code { print }' README.md |
  sed -E ':a; /\\$/ { N; s/\\\n *//; ba }; s/[[:space:]]+#.*$//; s/localhost:9091/localhost:'"$HTTP_PORT"'/')
check "README protocols: two commands" "${#protocols[@]}" 2
out=$(bash -o pipefail -c "${protocols[0]:-false}" 2>/dev/null)
check "README protocols: ${protocols[0]:-}" "$out" '{"msg":"HELLO"}'
out=$(bash -o pipefail -c "${protocols[1]:-false}" 2>/dev/null | tr -d ' \n' | sed -E 's/"time":"[^"]*"/"time":"T"/g')
check "README protocols: ${protocols[1]:-}" "$out" '{"seq":1,"time":"T"}{"seq":2,"time":"T"}{"seq":3,"time":"T"}'

out=$(curl -s -X POST -d '{"msg":"hello"}' "http://127.0.0.1:$HTTP_PORT/api/v1/example/echo")
check "echo" "$out" '{"msg":"echo: hello"}'

out=$(curl -s -X POST -d '{"msg":"hello"}' -H 'Accept: application/proto' "http://127.0.0.1:$HTTP_PORT/api/v1/example/echo" | od -An -tx1 | tr -d ' \n')
check "echo, binary response" "$out" "0a0b$(printf 'echo: hello' | od -An -tx1 | tr -d ' \n')"

printf '\x0a\x05hello' >"$work/req.bin"
out=$(curl -s -X POST --data-binary @"$work/req.bin" -H 'Content-Type: application/proto' -D "$work/headers" "http://127.0.0.1:$HTTP_PORT/api/v1/example/echo" | od -An -tx1 | tr -d ' \n')
check "echo, binary request and response" "$out" "0a0b$(printf 'echo: hello' | od -An -tx1 | tr -d ' \n')"
contains "echo, binary content type" "$(tr -d '\r' <"$work/headers")" "Content-Type: application/proto"

# Compressed request bodies, with compression off (the demo's default,
# and serve's): gzip and zstd decode; another coding gets 415 and the
# codings that would do.
printf '{"msg":"hello"}' | gzip -c >"$work/body.gz"
printf '{"msg":"hello"}' | zstd -q -c >"$work/body.zst"
out=$(curl -s -w ' %{http_code}' --data-binary @"$work/body.gz" -H 'Content-Encoding: gzip' "$H/api/v1/example/echo")
check "echo, gzip request body" "$out" '{"msg":"echo: hello"} 200'
out=$(curl -s -w ' %{http_code}' --data-binary @"$work/body.zst" -H 'Content-Encoding: zstd' "$H/api/v1/example/echo")
check "echo, zstd request body" "$out" '{"msg":"echo: hello"} 200'
out=$(curl -s -i --data-binary '{"msg":"hello"}' -H 'Content-Encoding: br' "$H/api/v1/example/echo" | tr -d '\r')
contains "echo, br request body: status" "$out" "HTTP/1.1 415 Unsupported Media Type"
contains "echo, br request body: Accept-Encoding" "$out" "Accept-Encoding: gzip, zstd"
contains "echo, br request body: Status body" "$(printf '%s' "$out" | tail -n1)" '{"code":12,"message":"request Content-Encoding \"br\" not supported'

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
out=$(curl -s -w ' %{http_code}' --data-binary @"$work/body.gz" -H 'Content-Encoding: gzip' "http://localhost:$SERVE_PORT/api/v1/example/upper")
check "serve: gzip request body" "$out" '{"msg":"HELLO"} 200'
out=$(curl -s -w ' %{http_code}' --data-binary @"$work/body.zst" -H 'Content-Encoding: zstd' "http://localhost:$SERVE_PORT/api/v1/example/upper")
check "serve: zstd request body" "$out" '{"msg":"HELLO"} 200'
out=$(curl -s -o /dev/null -w '%{http_code}' --data-binary '{"msg":"hello"}' -H 'Content-Encoding: br' "http://localhost:$SERVE_PORT/api/v1/example/upper")
check "serve: br request body is 415" "$out" 415
out=$(curl -s -i "localhost:$SERVE_PORT/v1/books/" | tr -d '\r')
contains "serve: error details from the upstream" "$(printf '%s' "$out" | tail -n1)" '{"code":3,"message":"Name argument is required","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest"'
out=$(curl -s -w ' %{http_code}' -X POST -d '{"username":"alan","email":"not-an-email","age":7}' "http://localhost:$SERVE_PORT/v1/accounts")
contains "serve: protovalidate rules checked by default (400)" "$out" ' 400'
contains "serve: protovalidate rules checked by default (fields)" "$out" '"fieldViolations":[{"field":"email",'
out=$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$SERVE_PORT/v1/accounts/alan")
check "serve: the refused account was never created" "$out" 404
kill -TERM "$serve_pid"
if wait "$serve_pid"; then
  pass "serve: exits 0 on SIGTERM"
else
  fail "serve: exit status on SIGTERM"; cat "$work/serve.log"
fi

# The README's "Front any gRPC server" quick start, its lines as printed
# but for the ports (the demo's gRPC port for 9090, a free one for 8080):
# the build in the checkout (its binary then moved out of it), the serve
# line in the background, then curl.
README_PORT=${README_PORT:-$(free_port)}
mapfile -t quick < <(awk '/^## Front any gRPC server/ { on = 1 } on && /^```sh$/ { code = 1; next } on && /^```$/ { code = 0; n++; if (n == 2) exit; next } code { print }' README.md |
  sed -E 's/[[:space:]]+#.*$//; s/localhost:9090/localhost:'"$GRPC_PORT"'/; s/:8080/:'"$README_PORT"'/')
check "README quick start: three lines" "${#quick[@]}" 3
if bash -c "${quick[0]} && mv protorest $work/readme-protorest" >"$work/readme.log" 2>&1; then
  pass "README quick start: ${quick[0]}"
else
  fail "README quick start: ${quick[0]}"; cat "$work/readme.log"
fi
(cd "$work" && exec bash -c "${quick[1]/.\/protorest/./readme-protorest}") >"$work/readme-serve.log" 2>&1 &
readme_pid=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://localhost:$README_PORT/readyz" && break
  sleep 0.1
done
for _ in $(seq 1 50); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$README_PORT/readyz")" = 200 ] && break
  sleep 0.1
done
out=$(bash -c "${quick[2]}" 2>&1)
contains "README quick start: ${quick[2]}" "$out" '"shelves":[{"name":"shelves/'
kill -TERM "$readme_pid" 2>/dev/null; wait "$readme_pid" 2>/dev/null || true

# Streaming with curl -N: MySvc.Watch (a server stream of ticks) in each
# framing, MySvc.Chat (bidirectional), and proof that a tick arrives while
# the stream is still running. The same checks run in-process (the demo)
# and remote (protorest serve in front of the demo's gRPC port).

# ticks FILE: the body with each tick's time (RFC 3339, UTC) replaced by T;
# a time in another form stays as it is, and fails the comparison.
ticks() {
  sed -E 's/"time":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z"/"time":"T"/' "$1"
}
# hdr NAME: the value of header NAME in $work/s.h (the last response's).
hdr() {
  tr -d '\r' <"$work/s.h" | grep -i "^$1:" | head -n1 | sed 's/^[^:]*: *//'
}
# sget CURL-ARGS...: one streaming request; the headers go to $work/s.h,
# the body to $work/s.b, and code is the status.
sget() {
  : >"$work/s.h"; : >"$work/s.b"
  code=$(curl -sN --max-time 20 -D "$work/s.h" -o "$work/s.b" -w '%{http_code}' "$@") || code="$code (curl exit $?)"
}

# chat_live PORT: MySvc.Chat over a raw HTTP/1.1 connection with a chunked
# request body: {"msg":"a"} is sent, and the answer to it must arrive
# while the request is still open; then {"msg":"b"} and the end of the
# body. (curl -T - reads stdin a buffer at a time, so it cannot show this.)
# Sets live_first and live_rest.
chat_live() {
  local msg l
  live_first="" live_rest=""
  exec 3<>"/dev/tcp/127.0.0.1/$1" || { live_first="(no connection)"; return; }
  printf 'POST /api/v1/example/chat HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' >&3
  msg=$'{"msg":"a"}\n'
  printf '%x\r\n%s\r\n' "${#msg}" "$msg" >&3
  while IFS= read -r -t 10 l <&3; do
    l=${l%$'\r'}
    case $l in '{'*) live_first=$l; break ;; esac
  done
  msg=$'{"msg":"b"}\n'
  printf '%x\r\n%s\r\n0\r\n\r\n' "${#msg}" "$msg" >&3
  while IFS= read -r -t 10 l <&3; do
    l=${l%$'\r'}
    case $l in '{'*) live_rest+=${live_rest:+$'\n'}$l ;; esac
  done
  exec 3<&- 3>&-
}

stream_checks() { # name, base URL
  local n=$1 B=$2 t

  sget "$B/api/v1/example/watch?count=3&intervalMs=50"
  check "$n: watch: status" "$code" 200
  check "$n: watch: content type" "$(hdr Content-Type)" "application/json"
  check "$n: watch: a {\"result\":…} line per tick" "$(ticks "$work/s.b")" \
    $'{"result":{"seq":1,"time":"T"}}\n{"result":{"seq":2,"time":"T"}}\n{"result":{"seq":3,"time":"T"}}'
  check "$n: watch: each line ends in a newline" "$(tail -c1 "$work/s.b" | od -An -c | tr -d ' ')" '\n'

  sget -H 'Accept: text/event-stream' "$B/api/v1/example/watch?count=3&intervalMs=50"
  check "$n: watch, SSE: status" "$code" 200
  check "$n: watch, SSE: content type" "$(hdr Content-Type)" "text/event-stream"
  check "$n: watch, SSE: Cache-Control" "$(hdr Cache-Control)" "no-cache"
  check "$n: watch, SSE: events" "$(ticks "$work/s.b")" \
    $'id: 1\ndata: {"seq":1,"time":"T"}\n\nid: 2\ndata: {"seq":2,"time":"T"}\n\nid: 3\ndata: {"seq":3,"time":"T"}\n\nevent: end\ndata: {"code":0,"message":"","details":[]}'
  check "$n: watch, SSE: the last event is complete" "$(tail -c2 "$work/s.b" | od -An -c | tr -d ' ')" '\n\n'

  sget -H 'Accept: application/x-ndjson' "$B/api/v1/example/watch?count=3&intervalMs=50"
  check "$n: watch, NDJSON: status" "$code" 200
  check "$n: watch, NDJSON: content type" "$(hdr Content-Type)" "application/x-ndjson"
  check "$n: watch, NDJSON: bare messages" "$(ticks "$work/s.b")" \
    $'{"seq":1,"time":"T"}\n{"seq":2,"time":"T"}\n{"seq":3,"time":"T"}'

  sget "$B/api/v1/example/watch?count=0&intervalMs=10"
  check "$n: watch count=0: 10 ticks by default" "$code $(wc -l <"$work/s.b") $(ticks "$work/s.b" | tail -n1)" \
    '200 10 {"result":{"seq":10,"time":"T"}}'

  sget "$B/api/v1/example/watch?count=5000"
  check "$n: watch count=5000: status" "$code" 400
  check "$n: watch count=5000: content type" "$(hdr Content-Type)" "application/json"
  contains "$n: watch count=5000: Status body" "$(cat "$work/s.b")" '{"code":3,"message":"count 5000'
  # An EventSource gets the same error response, and does not reconnect.
  sget -H 'Accept: text/event-stream' "$B/api/v1/example/watch?count=5000"
  check "$n: watch count=5000, SSE: an ordinary error response" "$code $(hdr Content-Type)" "400 application/json"
  contains "$n: watch count=5000, SSE: Status body" "$(cat "$work/s.b")" '"code":3'

  # As the README shows it.
  out=$(printf '{"msg":"a"}\n{"msg":"b"}\n' | curl -sN --max-time 20 -X POST -T - "$B/api/v1/example/chat")
  check "$n: chat" "$out" $'{"result":{"msg":"A"}}\n{"result":{"msg":"B"}}'

  chat_live "${B##*:}"
  check "$n: chat: \"A\" arrives before the request body ends" "$live_first" '{"result":{"msg":"A"}}'
  check "$n: chat: then \"B\"" "$live_rest" '{"result":{"msg":"B"}}'

  # Ticks one second apart: the first must arrive long before the third
  # is sent. Times are in ms from the start of curl.
  t=$(
    t0=$(date +%s%N)
    curl -sN --max-time 20 "$B/api/v1/example/watch?count=3&intervalMs=1000" | {
      IFS= read -r first; t1=$(date +%s%N)
      n_rest=$(grep -c . || true); t2=$(date +%s%N)
      echo "$(((t1 - t0) / 1000000)) $(((t2 - t0) / 1000000)) $n_rest $first"
    })
  read -r first_ms total_ms n_rest first_line <<<"$t"
  check "$n: watch 3 × 1 s: the first tick" "$(printf '%s\n' "$first_line" | sed -E 's/"time":"[^"]*"/"time":"T"/')" '{"result":{"seq":1,"time":"T"}}'
  check "$n: watch 3 × 1 s: two more ticks" "$n_rest" 2
  if [ "$first_ms" -lt 1500 ] && [ "$total_ms" -ge 1900 ]; then
    pass "$n: watch 3 × 1 s: the first tick arrives while the stream runs"
  else
    fail "$n: watch 3 × 1 s: the first tick arrives while the stream runs"
    echo "  want: the first line in < 1500 ms, the whole stream ≥ 1900 ms"
  fi
  echo "     (first tick after $first_ms ms, the stream ended after $total_ms ms)"
}

stream_checks "stream" "http://localhost:$HTTP_PORT"

# Remote: protorest serve in front of the demo's gRPC port.
"$work/protorest" serve --upstream "localhost:$GRPC_PORT" --listen ":$SERVE_PORT" >"$work/serve2.log" 2>&1 &
serve2_pid=$!
trap 'kill "$serve2_pid" 2>/dev/null || true; wait "$serve2_pid" 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 1 100); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d '{"msg":"x"}' "http://localhost:$SERVE_PORT/api/v1/example/upper")" == 200 ] && break
  kill -0 "$serve2_pid" 2>/dev/null || { cat "$work/serve2.log"; break; }
  sleep 0.1
done
stream_checks "serve: stream" "http://localhost:$SERVE_PORT"

# protorest serve's knobs: usage errors, environment variables, probes,
# TLS on the listener (HTTP/1.1, HTTP/2, gRPC on the same port, client
# certificates, rotation).
need_openssl
serve_bg() { # LOG ARGS...: start serve in the background; sets bg_pid
  local log=$1; shift
  "$work/protorest" serve "$@" >"$log" 2>&1 &
  bg_pid=$!
  pids_knobs+=("$bg_pid")
}
# wait_http URL CURL-ARGS...: until URL answers (any status), or 10 s.
wait_http() {
  local url=$1; shift
  for _ in $(seq 1 100); do
    curl -s -o /dev/null "$@" "$url" && return 0
    sleep 0.1
  done
  return 1
}
pids_knobs=()
trap 'for p in ${pids_knobs[@]+"${pids_knobs[@]}"}; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; kill "$serve2_pid" 2>/dev/null || true; wait "$serve2_pid" 2>/dev/null || true; cleanup' EXIT

code=0; "$work/protorest" serve --bogus >/dev/null 2>"$work/usage.err" || code=$?
check "serve: a bad flag exits 2" "$code" 2
code=0; PROTOREST_UPSTREAM="localhost:$GRPC_PORT" PROTOREST_MAX_BODY_SIZE=lots "$work/protorest" serve >/dev/null 2>"$work/usage.err" || code=$?
check "serve: a bad environment variable exits 2" "$code" 2
contains "serve: the bad variable is named" "$(cat "$work/usage.err")" 'PROTOREST_MAX_BODY_SIZE="lots"'
code=0; "$work/protorest" serve --upstream "localhost:$GRPC_PORT" --listen ":$GRPC_PORT" >/dev/null 2>"$work/usage.err" || code=$?
check "serve: --listen equal to --upstream exits 2" "$code" 2
code=0; "$work/protorest" serve --upstream http://localhost:1 >/dev/null 2>"$work/usage.err" || code=$?
check "serve: --upstream http://… exits 2" "$code" 2
contains "serve: --upstream http://… says what to give" "$(cat "$work/usage.err")" 'invalid value "http://localhost:1" for flag -upstream: a URL, not a gRPC target: give --upstream localhost:1'
code=0; PROTOREST_UPSTREM="localhost:$GRPC_PORT" "$work/protorest" serve >/dev/null 2>"$work/usage.err" || code=$?
check "serve: a misspelt PROTOREST_UPSTREAM exits 2" "$code" 2
contains "serve: an unknown variable is named, with the one meant" "$(cat "$work/usage.err")" '--upstream is required (PROTOREST_UPSTREM is not a protorest variable, ignored; did you mean PROTOREST_UPSTREAM?)'
out=$("$work/protorest" serve --help)
contains "serve --help: default and variable of a flag" "$out" 'default :8080, $PROTOREST_LISTEN'

# Environment variables in place of flags.
P=$(free_port)
PROTOREST_UPSTREAM="localhost:$GRPC_PORT" PROTOREST_LISTEN="127.0.0.1:$P" PROTOREST_LOG_FORMAT=json \
  PROTOREST_SUCCESS_STATUS="example.v1.MySvc/Upper=201" serve_bg "$work/env.log"
wait_http "http://127.0.0.1:$P/livez"
out=$(curl -s -w ' %{http_code}' -X POST -d '{"msg":"env"}' "http://127.0.0.1:$P/api/v1/example/upper")
check "serve: env vars (upstream, listen, success status)" "$out" '{"msg":"ENV"} 201'
sleep 0.2
contains "serve: env PROTOREST_LOG_FORMAT=json: an access log line" "$(cat "$work/env.log")" '"msg":"request","http.request.method":"POST","http.route":"/api/v1/example/upper","url.path":"/api/v1/example/upper","http.response.status_code":201,"rpc.method":"example.v1.MySvc/Upper","rpc.response.status_code":"OK"'

# Probes while the upstream is down (routes from the .proto file), a
# misspelt variable, and what a client is told.
P=$(free_port)
DOWN=$(free_port)
PROTOREST_UPSTREAM_TSL=true serve_bg "$work/down.log" --upstream "127.0.0.1:$DOWN" --listen "127.0.0.1:$P" \
  --import-path examples --proto example/v1/example.proto
wait_http "http://127.0.0.1:$P/livez"
check "serve: /livez 200 while the upstream is down" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P/livez")" 200
out=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$P/readyz")
contains "serve: /readyz 503 while the upstream is down" "$out" '"status":"not ready"'
check "serve: /readyz status" "${out##* }" 503
out=$(curl -s -w ' %{http_code}' -X POST -d '{"msg":"x"}' "http://127.0.0.1:$P/api/v1/example/upper")
check "serve: a call with the upstream down: upstream unavailable, no address" "$out" '{"code":14,"message":"upstream unavailable","details":[]} 503'
sleep 0.2
contains "serve: the log has grpc-go's cause" "$(cat "$work/down.log")" "error.message=\"upstream unavailable: connection error: desc = \\\"transport: Error while dialing: dial tcp 127.0.0.1:$DOWN: connect: connection refused"
check "serve: probes are not access log lines at info" "$(grep -c 'url.path=/readyz' "$work/down.log" || true)" 0
contains "serve: an unknown variable is warned of, with the one meant" "$(cat "$work/down.log")" 'msg="not a protorest variable, ignored" variable=PROTOREST_UPSTREAM_TSL did_you_mean=PROTOREST_UPSTREAM_TLS'

# TLS on the listener, certificates made now with openssl.
certs="$work/certs"; mkdir -p "$certs"
make_ca "$certs" ca
make_ca "$certs" client-ca
issue_cert "$certs" ca server DNS:localhost,IP:127.0.0.1
issue_cert "$certs" client-ca client DNS:client
TLS_PORT=$(free_port)
serve_bg "$work/tls.log" --upstream "localhost:$GRPC_PORT" --listen "127.0.0.1:$TLS_PORT" \
  --tls-cert "$certs/server.pem" --tls-key "$certs/server.key"
T="https://localhost:$TLS_PORT"
wait_http "$T/livez" --cacert "$certs/ca.pem"
out=$(curl -s --cacert "$certs/ca.pem" --http1.1 -w ' %{http_version}' -X POST -d '{"msg":"tls"}' "$T/api/v1/example/upper")
check "serve TLS: curl --cacert over HTTP/1.1" "$out" '{"msg":"TLS"} 1.1'
out=$(curl -s --cacert "$certs/ca.pem" --http2 -w ' %{http_version}' -X POST -d '{"msg":"tls"}' "$T/api/v1/example/upper")
check "serve TLS: curl --cacert over HTTP/2" "$out" '{"msg":"TLS"} 2'
code=0; curl -s -o /dev/null "$T/livez" || code=$?
check "serve TLS: a client that does not trust the CA fails (curl exit 60)" "$code" 60
out=$("$grpcurl" -cacert "$certs/ca.pem" -d '{"msg": "tls"}' "localhost:$TLS_PORT" example.v1.MySvc/Upper | tr -d ' \n')
check "serve TLS: grpcurl -cacert to the same port" "$out" '{"msg":"TLS"}'
sget --cacert "$certs/ca.pem" "$T/api/v1/example/watch?count=2&intervalMs=50"
check "serve TLS: a stream" "$code $(ticks "$work/s.b" | tr '\n' ' ')" '200 {"result":{"seq":1,"time":"T"}} {"result":{"seq":2,"time":"T"}} '

# serial: the serial number of the certificate served on the TLS port now.
serial() { openssl s_client -connect "127.0.0.1:$TLS_PORT" -servername localhost </dev/null 2>/dev/null | openssl x509 -noout -serial; }
before=$(serial)
issue_cert "$certs" ca server DNS:localhost,IP:127.0.0.1
want=$(openssl x509 -in "$certs/server.pem" -noout -serial)
after=""
for _ in $(seq 1 100); do
  after=$(serial); [ "$after" == "$want" ] && break; sleep 0.1
done
if [ "$before" != "$want" ] && [ "$after" == "$want" ] && kill -0 "$bg_pid" 2>/dev/null; then
  pass "serve TLS: a rotated certificate is served without a restart"
else
  fail "serve TLS: a rotated certificate is served without a restart"; echo "  before $before, after $after, want $want"
fi
out=$(curl -s --cacert "$certs/ca.pem" -X POST -d '{"msg":"rotated"}' "$T/api/v1/example/upper")
check "serve TLS: served with the rotated certificate" "$out" '{"msg":"ROTATED"}'

# Client certificates required.
MTLS_PORT=$(free_port)
serve_bg "$work/mtls.log" --upstream "localhost:$GRPC_PORT" --listen "127.0.0.1:$MTLS_PORT" \
  --tls-cert "$certs/server.pem" --tls-key "$certs/server.key" --tls-client-ca "$certs/client-ca.pem"
M="https://localhost:$MTLS_PORT"
wait_http "$M/livez" --cacert "$certs/ca.pem" --cert "$certs/client.pem" --key "$certs/client.key"
code=0; curl -s -o /dev/null --cacert "$certs/ca.pem" "$M/livez" || code=$?
if [ "$code" -ne 0 ]; then pass "serve mTLS: a client without a certificate is refused (curl exit $code)"; else fail "serve mTLS: a client without a certificate is refused"; fi
out=$(curl -s --cacert "$certs/ca.pem" --cert "$certs/client.pem" --key "$certs/client.key" -X POST -d '{"msg":"mtls"}' "$M/api/v1/example/upper")
check "serve mTLS: a client with a certificate is served" "$out" '{"msg":"MTLS"}'
out=$("$grpcurl" -cacert "$certs/ca.pem" -cert "$certs/client.pem" -key "$certs/client.key" -d '{"msg": "m"}' "localhost:$MTLS_PORT" example.v1.MySvc/Upper | tr -d ' \n')
check "serve mTLS: grpcurl with a client certificate" "$out" '{"msg":"M"}'

# serve --compression, --cors-origin, --upstream-compression gzip.
P=$(free_port)
serve_bg "$work/web.log" --upstream "localhost:$GRPC_PORT" --listen "127.0.0.1:$P" --compression \
  --cors-origin "https://app.example" --upstream-compression gzip
W="http://127.0.0.1:$P"
wait_http "$W/livez"
long=$(printf 'abc%.0s' $(seq 1 1000)) # a 3 KB answer: over the 1 KiB threshold
plain=$(curl -s -X POST -d "{\"msg\":\"$long\"}" "$W/api/v1/example/echo")
for enc in gzip zstd; do
  hdrs=$(curl -s -D - -o /dev/null -H "Accept-Encoding: $enc" -X POST -d "{\"msg\":\"$long\"}" "$W/api/v1/example/echo" | tr -d '\r')
  contains "serve --compression: a $enc response" "$hdrs" "Content-Encoding: $enc"
  out=$(curl -s --compressed -H "Accept-Encoding: $enc" -X POST -d "{\"msg\":\"$long\"}" "$W/api/v1/example/echo")
  if [ "$out" == "$plain" ] && [ ${#plain} -gt 3000 ]; then pass "serve --compression: $enc decodes to the same JSON"; else fail "serve --compression: $enc decodes to the same JSON"; fi
done
printf '{"msg":"zipped"}' | gzip -c >"$work/body.gz"
out=$(curl -s -X POST -H 'Content-Encoding: gzip' --data-binary @"$work/body.gz" "$W/api/v1/example/upper")
check "serve --compression: a gzip request body" "$out" '{"msg":"ZIPPED"}'
{ printf '{"msg":"'; head -c 67108864 /dev/zero | tr '\0' a; printf '"}'; } | gzip -c >"$work/bomb.gz"
out=$(curl -s -w ' %{http_code}' -X POST -H 'Content-Encoding: gzip' --data-binary @"$work/bomb.gz" "$W/api/v1/example/upper")
check "serve --compression: a zip bomb ($(wc -c <"$work/bomb.gz") bytes, 64 MiB decoded) gets 413" "$out" '{"code":8,"message":"request body larger than the limit of 4 MiB","details":[]} 413'
out=$(curl -s -w ' %{http_code}' -X POST -H 'Content-Encoding: br' -d '{"msg":"x"}' "$W/api/v1/example/upper")
check "serve --compression: an encoding it cannot decode gets 415" "${out##* }" 415
hdrs=$(curl -s -D - -o /dev/null -X OPTIONS -H 'Origin: https://app.example' -H 'Access-Control-Request-Method: POST' \
  -H 'Access-Control-Request-Headers: content-type' "$W/api/v1/example/upper" | tr -d '\r')
contains "serve --cors-origin: a preflight answered with the path's methods" "$hdrs" 'Access-Control-Allow-Methods: POST'
contains "serve --cors-origin: the origin allowed" "$hdrs" 'Access-Control-Allow-Origin: https://app.example'
code=$(curl -s -o /dev/null -w '%{http_code}' -X OPTIONS -H 'Origin: https://evil.example' -H 'Access-Control-Request-Method: POST' "$W/api/v1/example/upper")
check "serve --cors-origin: a preflight from another origin gets 403" "$code" 403
# Limits on by default: the request target, the forwarded metadata.
code=$(curl -s -o /dev/null -w '%{http_code}' "$W/api/v1/example/$(head -c 17000 /dev/zero | tr '\0' a)")
check "serve: a 17 KB URL gets 414" "$code" 414
out=$(curl -s -w ' %{http_code}' -X POST -H "Grpc-Metadata-Big: $(head -c 9000 /dev/zero | tr '\0' b)" -d '{"msg":"m"}' "$W/api/v1/example/upper")
check "serve: 9 KB of metadata gets 431" "$out" '{"code":8,"message":"request metadata larger than the limit of 8 KiB","details":[]} 431'

# serve's connection limits: a flood of idle keep-alive connections four
# times --max-connections (the idle timeout left at its 120 s default)
# leaves a new client served within a second; an oversized header is 431.
P=$(free_port)
serve_bg "$work/limits.log" --upstream "localhost:$GRPC_PORT" --listen "127.0.0.1:$P" --max-connections 50
L="http://127.0.0.1:$P"
wait_http "$L/livez"
python3 - "$P" "$work/flood.ready" >"$work/flood.out" 2>&1 <<'PY' &
import socket, sys, time
port, ready = int(sys.argv[1]), sys.argv[2]
socks, served = [], 0
for _ in range(200):  # each: one request, then idle on a kept-alive connection
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /livez HTTP/1.1\r\nHost: flood\r\n\r\n")
    socks.append(s)
for s in socks:
    try:
        if s.recv(4096).startswith(b"HTTP/1.1 200"):
            served += 1
    except OSError:
        pass
print("flood: 200 connections, %d served first" % served, flush=True)
open(ready, "w").close()
time.sleep(10)  # hold them (idle) until killed
PY
flood_pid=$!
pids_knobs+=("$flood_pid")
for _ in $(seq 1 100); do [ -e "$work/flood.ready" ] && break; sleep 0.1; done
out=$(curl -s -m 5 -w ' %{http_code} %{time_total}' -X POST -d '{"msg":"flood"}' "$L/api/v1/example/upper")
took=${out##* }
echo "  $(cat "$work/flood.out"); legitimate client served in ${took}s"
if [ "${out% *}" == '{"msg":"FLOOD"} 200' ] && awk -v t="$took" 'BEGIN { exit !(t < 1) }'; then
  pass "serve --max-connections 50: 200 idle keep-alive connections, a new client served within 1 s"
else
  fail "serve --max-connections 50: 200 idle keep-alive connections, a new client served within 1 s"; echo "  got:  $out"
fi
kill "$flood_pid" 2>/dev/null || true; wait "$flood_pid" 2>/dev/null || true
# (curl then exits 56: the server closes the connection with the header
# unread, which resets it after the 431 is received.)
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $(head -c 71680 /dev/zero | tr '\0' a)" "$L/livez" || true)
check "serve: a 70 KiB header gets 431 (--max-header-bytes 64KiB)" "$code" 431
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $(head -c 61440 /dev/zero | tr '\0' a)" "$L/livez")
check "serve: a 60 KiB header is served" "$code" 200
contains "serve --help: the limits" "$("$work/protorest" serve --help)" 'default 2m0s, $PROTOREST_IDLE_TIMEOUT'

# serve's idle timeouts, made short: a body that stops coming (Content-Length
# 10, 4 bytes sent, over a raw connection) gets 408 and the connection is
# closed; a stream with no message either way is ended with DEADLINE_EXCEEDED.
P=$(free_port)
serve_bg "$work/idle.log" --upstream "localhost:$GRPC_PORT" --listen "127.0.0.1:$P" \
  --read-idle-timeout 300ms --stream-idle-timeout 500ms
wait_http "http://127.0.0.1:$P/livez"
stalled=""
t0=$(date +%s%N)
if exec 3<>"/dev/tcp/127.0.0.1/$P"; then
  printf 'POST /api/v1/example/upper HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"ms' >&3
  stalled=$(timeout 5 cat <&3 | tr -d '\r') # cat ends when the server closes the connection
  exec 3<&- 3>&-
fi
took=$((($(date +%s%N) - t0) / 1000000))
contains "serve --read-idle-timeout 300ms: a stalled body gets 408" "$stalled" "HTTP/1.1 408 Request Timeout"
contains "serve --read-idle-timeout 300ms: a Status body" "$stalled" '{"code":4,"message":"no request body bytes for 300ms","details":[]}'
if [ "$took" -ge 300 ] && [ "$took" -lt 3000 ]; then
  pass "serve --read-idle-timeout 300ms: answered, and the connection closed, after ${took} ms"
else
  fail "serve --read-idle-timeout 300ms: answered, and the connection closed, after ${took} ms"
fi
# (The first tick comes at once, then none for 2 s: the error is in-band.)
sget "http://127.0.0.1:$P/api/v1/example/watch?count=3&intervalMs=2000"
check "serve --stream-idle-timeout 500ms: a stream quiet for 2 s ends with an in-band DEADLINE_EXCEEDED" "$code $(ticks "$work/s.b")" \
  '200 {"result":{"seq":1,"time":"T"}}
{"error":{"code":4,"message":"stream idle: no message either way for 500ms","details":[]}}'

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
