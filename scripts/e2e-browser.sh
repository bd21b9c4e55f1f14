#!/usr/bin/env bash
# End to end in a browser: headless Chromium loads the demo page at
# /ui/?watch, whose EventSource watches MySvc.Watch as Server-Sent Events,
# and the page must end with the title "done: 1,2,3,4,5" and five ticks
# with ids 1 to 5. Then, from the same page: the events arrive one by one,
# a bad request fails the EventSource for good, and MySvc.Chat runs over a
# WebSocket; a page from another origin that the demo allows calls the API
# with a PATCH, and one from an origin it does not allow is blocked
# (e2e/browser/check.py). Then the docs page, /docs/: Swagger UI draws
# every operation of the demo's document, with no console error (nor CSP
# violation) and no request to another host (DevTools' network log), and
# its Try-it on GET /v1/shelves gets a 200; a screenshot of it goes to
# $DOCS_SCREENSHOT (DOCS_SCREENSHOT=docs/docs-page.png renews the README's).
# Its Try-it on MySvc.Watch (count=3, a tick a second) asks for
# text/event-stream and shows each tick as it arrives (the first alone),
# not "can't parse JSON" at the end; with application/x-ndjson chosen,
# the ticks one per line.
# And the vendored Swagger UI is swagger-ui-dist's, downloaded again
# (scripts/swaggerui.sh --check, with npm).
#
# Then the real clients written by others (e2e/browser/clients.py):
# @connectrpc/connect-web and grpc-web, the npm packages pinned by
# e2e/browser/web/package-lock.json (npm ci), with messages that
# protoc-gen-es generates from examples/ (run by internal/tools/protogen),
# type-checked with tsc and bundled with esbuild, on a page served from
# another origin (a static server on its own port, which the demo allows
# with --cors-origin): unary and server streams, errors with their
# details, in Connect JSON and binary and gRPC-Web binary and text, each
# call preflighted, and blocked from an origin the demo does not allow.
# The README's connect-web and grpc-web snippets are bundled as printed
# (but for the port) and run on such a page too.
#
# Chromium is driven by Debian's chromedriver over W3C WebDriver, which is
# plain HTTP and JSON: the checks need only python3's standard library.
# Installs chromium and chromium-driver (and curl, python3, npm) with
# apt-get when they are missing; needs go. Everything else goes in a
# temporary directory. The ports are free ones unless HTTP_PORT,
# GRPC_PORT (the demo's), STATIC_PORT (the page's) or DRIVER_PORT
# (chromedriver's) say.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/e2e-lib.sh
source scripts/e2e-lib.sh
root=$PWD
script_start=$SECONDS

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
PYTHON=${PYTHON:-python3}

work=$(mktemp -d)
demo_pid="" driver_pid="" build_pid="" check_pid="" web_pid="" static_pid=""
group_alive() { # pgid: is a process of the group still running (not a zombie)?
  local d st state pgrp
  for d in /proc/[0-9]*; do
    st=$(cat "$d/stat" 2>/dev/null) || continue
    st=${st##*) } # after "pid (comm) "
    read -r state _ pgrp _ <<<"$st"
    [ "$pgrp" == "$1" ] && [ "$state" != Z ] && return 0
  done
  return 1
}
cleanup() {
  local p d pids
  for p in $check_pid $demo_pid $static_pid $build_pid $web_pid; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  # chromedriver runs in a process group of its own, with the Chromium it
  # started: end the group (Chromium takes a moment to go), then any
  # process still running with our temporary directory in its arguments
  # (Chromium's crash handlers leave the group, but keep their database
  # there: XDG_CONFIG_HOME below).
  if [ -n "$driver_pid" ]; then
    kill -TERM -- "-$driver_pid" 2>/dev/null || true
    for _ in $(seq 1 30); do
      group_alive "$driver_pid" || break
      sleep 0.1
    done
    kill -KILL -- "-$driver_pid" 2>/dev/null || true
    wait "$driver_pid" 2>/dev/null || true
  fi
  for _ in 1 2 3; do
    pids=""
    for d in /proc/[0-9]*; do
      p=${d#/proc/}
      if [ "$p" == $$ ] || [ "$p" == "$BASHPID" ]; then continue; fi
      if tr '\0' '\n' 2>/dev/null <"$d/cmdline" | grep -qF -- "$work/"; then pids+=" $p"; fi
    done
    [ -n "$pids" ] || break
    # shellcheck disable=SC2086 # a list of pids
    kill -KILL $pids 2>/dev/null || true
    sleep 0.2
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

summary() {
  echo "e2e-browser: setup ${setup_time:-?}s (apt-get ${apt_time:-0}s), tests $((SECONDS - ${tests_start:-$SECONDS}))s, all $((SECONDS - script_start))s"
  echo "e2e-browser: $passed passed, $failed failed"
}
started() { # pid, tries, command...: runs the command every 50 ms, at most
  # tries times, until it succeeds or pid exits; true if pid still runs
  local pid=$1 tries=$2
  shift 2
  for _ in $(seq 1 "$tries"); do
    "$@" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -0 "$pid" 2>/dev/null
}
serves_ui() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http_port/ui/")" == 200 ]; }
driver_ready() { curl -s "http://127.0.0.1:$driver_port/status" 2>/dev/null | grep -q '"ready": *true'; }
die() { # what failed, log file: the run cannot go on
  fail "$1"
  [ -z "${2:-}" ] || sed 's/^/  | /' "$2" | tail -n 40
  summary
  exit 1
}

# The binary builds while apt-get installs.
go build -o "$work/protorest" ./cmd/protorest >"$work/build.log" 2>&1 &
build_pid=$!

apt_start=$SECONDS
need=()
[ -x "$CHROMIUM" ] || need+=(chromium)
[ -x "$CHROMEDRIVER" ] || need+=(chromium-driver)
command -v curl >/dev/null || need+=(curl)
command -v "$PYTHON" >/dev/null || { need+=(python3); PYTHON=/usr/bin/python3; }
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  echo "     (apt-get install ${need[*]})"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}"; } >"$work/apt.log" 2>&1 ||
    die "apt-get install ${need[*]}" "$work/apt.log"
fi
apt_time=$((SECONDS - apt_start))

# The browser clients' bundle, in $work/web, while the binary builds: npm
# ci, then protoc-gen-es on the examples' .proto files and the
# google.rpc.Status and BadRequest the errors carry. (Once the demo's port
# is known, the README's snippets join them, and tsc and esbuild run.)
web=$work/web
mkdir -p "$web"
cp -r e2e/browser/web/package.json e2e/browser/web/package-lock.json e2e/browser/web/tsconfig.json \
  e2e/browser/web/index.html e2e/browser/web/readme.html e2e/browser/web/src "$web/"
rm -rf "$web/src/gen" "$web"/src/readme-*.ts
(
  cd "$web" && npm ci --no-audit --no-fund --prefer-offline &&
    cd "$root/internal/tools/protogen" &&
    go run . -root ../../../examples -plugin "$web/node_modules/.bin/protoc-gen-es" -opt target=ts -out "$web/src/gen" \
      example/v1/example.proto bookstore/v1/bookstore.proto google/api/annotations.proto google/api/http.proto \
      google/rpc/status.proto google/rpc/error_details.proto
) >"$work/web.log" 2>&1 &
web_pid=$!

wait "$build_pid" || { build_pid=""; die "go build ./cmd/protorest" "$work/build.log"; }
build_pid=""
wait "$web_pid" || { web_pid=""; die "npm ci and protoc-gen-es (e2e/browser/web)" "$work/web.log"; }
web_pid=""

# The page's origin: a static server of $web/dist on 127.0.0.1, on a port
# of its own (localhost on that port is another origin, not allowed).
mkdir -p "$web/dist"
for _ in 1 2 3; do
  static_port=${STATIC_PORT:-$(free_port)}
  "$PYTHON" -m http.server --bind 127.0.0.1 --directory "$web/dist" "$static_port" >"$work/static.log" 2>&1 &
  static_pid=$!
  started "$static_pid" 100 curl -s -o /dev/null "http://127.0.0.1:$static_port/" && break
  wait "$static_pid" 2>/dev/null || true
  static_pid=""
done
[ -n "$static_pid" ] || die "the static server starts" "$work/static.log"

# The demo, on free ports; another process may take a port first, so try
# three times.
for _ in 1 2 3; do
  http_port=${HTTP_PORT:-$(free_port)} grpc_port=${GRPC_PORT:-$(free_port)}
  # Pages from http://127.0.0.1:PORT may call the API at localhost:PORT
  # (another origin): check.py's CORS check; and the clients' page.
  "$work/protorest" demo -grpc "127.0.0.1:$grpc_port" -http ":$http_port" \
    -cors-origin "http://127.0.0.1:$http_port" -cors-origin "http://127.0.0.1:$static_port" >"$work/demo.log" 2>&1 &
  demo_pid=$!
  started "$demo_pid" 200 serves_ui && break
  wait "$demo_pid" 2>/dev/null || true
  demo_pid=""
  grep -q 'address already in use' "$work/demo.log" || break
done
[ -n "$demo_pid" ] || die "the demo starts" "$work/demo.log"
serves_ui || die "the demo serves /ui/" "$work/demo.log"

# chromedriver, in a session (and process group) of its own, so that the
# cleanup can end it with every Chromium it starts.
for _ in 1 2 3; do
  driver_port=${DRIVER_PORT:-$(free_port)}
  XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache" \
    setsid "$CHROMEDRIVER" --port="$driver_port" --log-path="$work/chromedriver.log" >"$work/chromedriver.out" 2>&1 &
  driver_pid=$!
  started "$driver_pid" 200 driver_ready && break
  wait "$driver_pid" 2>/dev/null || true
  driver_pid=""
done
[ -n "$driver_pid" ] || die "chromedriver starts" "$work/chromedriver.out"
driver_ready || die "chromedriver is ready" "$work/chromedriver.out"

# The bundle: the README's two snippets (the ```ts blocks of "Connect and
# gRPC-Web from a browser"), as printed but for the demo's port, each
# then logging "done"; tsc; esbuild.
readme_snippet() { # N: the Nth ```ts block of the section
  awk -v want="$1" '/^##+ / { on = ($0 == "### Connect and gRPC-Web from a browser") } on && /^```ts$/ { n++; code = (n == want); next } /^```$/ { code = 0 } code { print }' README.md |
    sed "s/localhost:9091/localhost:$http_port/g"
}
i=0
for name in connect grpcweb; do
  i=$((i + 1))
  { readme_snippet "$i"; echo 'console.log("done");'; } >"$web/src/readme-$name.ts"
  [ "$(wc -l <"$web/src/readme-$name.ts")" -gt 3 ] || die "README: snippet $i of \"Connect and gRPC-Web from a browser\""
done
(cd "$web" && npm run --silent check && npm run --silent build && cp index.html readme.html dist/) >"$work/bundle.log" 2>&1 ||
  die "tsc and esbuild (e2e/browser/web)" "$work/bundle.log"
echo "     (bundle: $(cd "$web/dist" && wc -c clients.js readme-connect.js readme-grpcweb.js | awk '$2 != "total" { printf "%s%s %d KB", sep, $2, $1 / 1024; sep = ", " }'))"
setup_time=$((SECONDS - script_start))

tests_start=$SECONDS
rc=0
"$PYTHON" "$root/e2e/browser/check.py" --webdriver "http://127.0.0.1:$driver_port" \
  --chromium "$CHROMIUM" --user-data-dir "$work/profile" --screenshot "${DOCS_SCREENSHOT:-$work/docs-page.png}" \
  --clients "http://127.0.0.1:$static_port" "http://localhost:$http_port" >"$work/check.out" 2>&1 &
check_pid=$! # waited for in the background, so that a signal ends the run at once
wait "$check_pid" || rc=$?
check_pid=""
cat "$work/check.out"
passed=$((passed + $(grep -c '^ok ' "$work/check.out" || true)))
failed=$((failed + $(grep -c '^FAIL ' "$work/check.out" || true)))
if [ "$rc" -ne 0 ] && [ "$(grep -c '^FAIL ' "$work/check.out" || true)" -eq 0 ]; then
  fail "e2e/browser/check.py exited $rc"
fi
if [ "$failed" -gt 0 ]; then
  echo "--- demo log"; tail -n 20 "$work/demo.log" | sed 's/^/  | /'
  echo "--- chromedriver log (the end)"; tail -n 30 "$work/chromedriver.log" 2>/dev/null | sed 's/^/  | /'
fi
# No protorest panics behind a green page.
if grep -q 'panic' "$work/demo.log"; then
  fail "the demo log has no panic"
  grep -A12 'panic' "$work/demo.log" | sed 's/^/  | /' | head -40
fi

if out=$(bash scripts/swaggerui.sh --check 2>&1); then
  pass "docsui/swagger-ui is swagger-ui-dist's (scripts/swaggerui.sh --check)"
else
  fail "docsui/swagger-ui is swagger-ui-dist's (scripts/swaggerui.sh --check)"; printf '%s\n' "$out" | tail -5 | sed 's/^/  | /'
fi

summary
[ "$failed" -eq 0 ]
