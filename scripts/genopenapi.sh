#!/usr/bin/env bash
# Regenerates the golden OpenAPI documents under testdata/openapi: those of
# the conformance fixtures (the root package's TestOpenAPIGolden), of the
# demo (cmd/protorest's TestDemoOpenAPIGolden) and of validateprotorest's
# rules fixture (its TestOpenAPIConstraints). Those tests fail when a
# document is stale; review the diff, then run this.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -run '^TestOpenAPIGolden$' . -args -update
go test -count=1 -run '^TestDemoOpenAPIGolden$' ./cmd/protorest -args -update
(cd validateprotorest && go test -count=1 -run '^TestOpenAPIConstraints$' . -args -update)
git status --short testdata/openapi
