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

# need_openssl: install the openssl CLI with apt-get when it is missing.
need_openssl() {
  command -v openssl >/dev/null || { apt-get update -qq && apt-get install -y -qq openssl; }
}

# need_zstd: install the zstd CLI with apt-get when it is missing.
need_zstd() {
  command -v zstd >/dev/null || { apt-get update -qq && apt-get install -y -qq zstd; }
}

# make_ca DIR NAME: a throwaway CA, DIR/NAME.pem and DIR/NAME.key (made at
# test time; no certificate is committed).
make_ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
    -subj "/CN=e2e $2" -keyout "$1/$2.key" -out "$1/$2.pem" 2>/dev/null
}

# issue_cert DIR CA NAME SAN: DIR/NAME.pem and DIR/NAME.key, signed by
# DIR/CA, for the subjectAltName SAN (e.g. DNS:localhost,IP:127.0.0.1), for
# servers and clients alike, with a random serial number. The key is
# written before the certificate, as a rotation would.
issue_cert() {
  local d=$1 ca=$2 name=$3 san=$4
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$name" \
    -keyout "$d/$name.key.new" -out "$d/$name.csr" 2>/dev/null
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$san" >"$d/$name.ext"
  openssl x509 -req -in "$d/$name.csr" -CA "$d/$ca.pem" -CAkey "$d/$ca.key" \
    -set_serial "0x$(openssl rand -hex 8)" -days 1 -extfile "$d/$name.ext" -out "$d/$name.pem.new" 2>/dev/null
  mv "$d/$name.key.new" "$d/$name.key"
  mv "$d/$name.pem.new" "$d/$name.pem"
}

# openapi-core validates responses against a served document and
# openapi-python-client generates a client from it (e2e-openapi.sh; also
# e2e-python.sh's recorded responses): one venv, cached_venv openapi-clients.
OPENAPI_CORE_VERSION=0.23.1
OPENAPI_PYTHON_CLIENT_VERSION=0.29.1

# openapi_clients_venv: the python of that venv.
openapi_clients_venv() {
  cached_venv openapi-clients "openapi-core==$OPENAPI_CORE_VERSION" "openapi-python-client==$OPENAPI_PYTHON_CLIENT_VERSION"
}

# cached_venv NAME PACKAGE==VERSION...: the python of a venv with exactly
# these packages, kept under ${CACHE:-~/.cache/protorest-e2e} between runs
# (one per name and package list; pip runs only the first time, under a
# lock). Creates it with $PYTHON, installing python3-venv when missing.
cached_venv() {
  local name=$1 key dir
  shift
  key=$(printf '%s\n' "$@" | sha256sum | cut -c1-12)
  dir=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/protorest-e2e}/$name-$key
  mkdir -p "$(dirname "$dir")"
  (
    flock 9
    [ -f "$dir/.complete" ] && exit 0
    rm -rf "$dir"
    if ! "${PYTHON:-python3}" -m venv "$dir" >/dev/null 2>&1; then
      apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
      rm -rf "$dir"
      "${PYTHON:-python3}" -m venv "$dir"
    fi
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$@" >&2
    touch "$dir/.complete"
  ) 9>"$dir.lock" || return 1
  echo "$dir/bin/python"
}
