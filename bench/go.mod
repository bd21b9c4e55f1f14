// The benchmark suite is a module of its own so that grpc-gateway, which
// it compares protorest with, and the code generators never become
// dependencies of protorest's module. Every version is pinned here; the
// tool directives pin the protoc plugins internal/gen builds
// (scripts/genbench.sh).
module github.com/protorest/protorest/bench

go 1.26.0

// protorest as it is in this repository.
replace github.com/protorest/protorest => ../

// The generator library bench/internal/gen shares with the repository's
// own generator.
replace github.com/protorest/protorest/internal/tools/protogen => ../internal/tools/protogen

require (
	github.com/bufbuild/protocompile v0.14.1 // indirect
	github.com/grpc-ecosystem/grpc-gateway/v2 v2.32.0
	// v0.6.0 is vtprotobuf's latest release; grpc requires this later
	// commit, so it is the version selected either way.
	github.com/planetscale/vtprotobuf v0.6.1-0.20240319094008-0393e58bdf10
	github.com/protorest/protorest v0.0.0-00010101000000-000000000000
	github.com/protorest/protorest/internal/tools/protogen v0.0.0
	golang.org/x/image v0.47.0
	google.golang.org/genproto/googleapis/api v0.0.0-20261019180522-ce908d29299b
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require connectrpc.com/vanguard v0.4.0

require (
	connectrpc.com/connect v1.19.1 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261019180522-ce908d29299b // indirect
	google.golang.org/grpc/cmd/protoc-gen-go-grpc v1.6.2 // indirect
)

tool (
	github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway
	github.com/planetscale/vtprotobuf/cmd/protoc-gen-go-vtproto
	google.golang.org/grpc/cmd/protoc-gen-go-grpc
	google.golang.org/protobuf/cmd/protoc-gen-go
)
