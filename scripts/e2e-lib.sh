# shellcheck shell=bash
# Helpers shared by the end-to-end scripts (e2e.sh, e2e-python.sh,
# e2e-browser.sh), sourced from the repository root after `set -euo
# pipefail`. A check prints "ok   NAME" or "FAIL NAME" and counts into
# passed and failed; the script ends with its summary and
# `[ "$failed" -eq 0 ]`.

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }
check() { # name, got, want
  if [ "$2" == "$3" ]; then pass "$1"; else fail "$1"; echo "  got:  $2"; echo "  want: $3"; fi
}
contains() { # name, haystack, needle
  if [[ "$2" == *"$3"* ]]; then pass "$1"; else fail "$1"; echo "  got:  $2"; echo "  want a part: $3"; fi
}

# free_port: a loopback TCP port free at the time of asking (another
# process may take it before it is used; the scripts retry).
free_port() {
  "${PYTHON:-python3}" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# need_curl: install curl with apt-get when it is missing.
need_curl() {
  command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl; }
}
