#!/usr/bin/env bash
# Regenerates the Go code of the benchmark suite's .proto files (bench/proto:
# .pb.go, _grpc.pb.go, .pb.gw.go and _vtproto.pb.go next to each .proto).
# Needs only the go command; the compiler and the plugins, grpc-gateway's
# and vtprotobuf's included, are Go modules pinned in bench/go.mod.
# `scripts/genbench.sh -check` lists stale files and fails if any.
set -euo pipefail
cd "$(dirname "$0")/../bench"
exec go run ./internal/gen "$@"
