#!/usr/bin/env bash
# Regenerates the Go code of examples/migrate's .proto file (.pb.go,
# _grpc.pb.go and .pb.gw.go beside it). Needs only the go command; the
# compiler and the plugins, grpc-gateway's included, are Go modules pinned
# in examples/migrate/go.mod.
# `scripts/genmigrate.sh -check` lists stale files and fails if any.
set -euo pipefail
cd "$(dirname "$0")/../examples/migrate"
exec go run ./internal/gen "$@"
