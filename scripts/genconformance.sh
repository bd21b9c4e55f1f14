#!/usr/bin/env bash
# Regenerates the Go code of the Connect conformance suite's .proto files
# (e2e/conformance/internal/proto), from connectrpc.com/conformance at the
# version e2e/conformance/go.mod pins, read from the module cache. Needs
# only the go command; the compiler and the plugins are Go modules pinned
# in e2e/conformance/go.mod. `scripts/genconformance.sh -check` lists stale
# files and fails if any.
set -euo pipefail
cd "$(dirname "$0")/../e2e/conformance"
exec go run ./internal/gen "$@"
