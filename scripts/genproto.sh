#!/usr/bin/env bash
# Regenerates the Go code of the repository's .proto files (the examples and
# the conformance fixture): .pb.go and _grpc.pb.go next to each .proto.
# Needs only the go command; the compiler and the plugins are Go modules
# pinned in internal/tools/protogen/go.mod. Extra arguments go to the tool,
# e.g. `scripts/genproto.sh -check` lists stale files and fails if any.
set -euo pipefail
cd "$(dirname "$0")/../internal/tools/protogen"
exec go run . "$@"
