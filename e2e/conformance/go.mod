// The Connect conformance suite's harness is a module of its own so that
// the suite (connectrpc.com/conformance: its runner, its reference server
// and their dependencies) never becomes a dependency of protorest's
// module. The tool directives pin the runner, the reference server and
// the protoc plugins internal/gen runs (scripts/genconformance.sh).
module github.com/protorest/protorest/e2e/conformance

go 1.26.0

// protorest as it is in this repository.
replace github.com/protorest/protorest => ../..

// The generator library internal/gen shares with the repository's own.
replace github.com/protorest/protorest/internal/tools/protogen => ../../internal/tools/protogen

tool (
	connectrpc.com/conformance/cmd/connectconformance
	connectrpc.com/conformance/cmd/referenceserver
	google.golang.org/grpc/cmd/protoc-gen-go-grpc
	google.golang.org/protobuf/cmd/protoc-gen-go
)

require (
	connectrpc.com/connect v1.21.1
	github.com/protorest/protorest v0.0.0-00010101000000-000000000000
	github.com/protorest/protorest/internal/tools/protogen v0.0.0-00010101000000-000000000000
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261019180522-ce908d29299b
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go v1.36.12-20260825204119-511051f7f437.1 // indirect
	buf.build/go/protovalidate v0.11.0 // indirect
	buf.build/go/protoyaml v0.7.0 // indirect
	cel.dev/expr v0.25.3 // indirect
	connectrpc.com/conformance v1.0.7 // indirect
	connectrpc.com/connect/v2 v2.0.2 // indirect
	github.com/andybalholm/brotli v1.2.6 // indirect
	github.com/antlr4-go/antlr/v4 v4.13.1 // indirect
	github.com/bufbuild/protocompile v0.14.1 // indirect
	github.com/cenkalti/backoff/v4 v4.1.1 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/desertbit/timer v0.0.0-20180107155436-c41aec40b27f // indirect
	github.com/golang/snappy v1.0.0 // indirect
	github.com/google/cel-go v0.29.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/improbable-eng/grpc-web v0.15.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/quic-go/qpack v0.6.0 // indirect
	github.com/quic-go/quic-go v0.64.1 // indirect
	github.com/rs/cors v1.11.1 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/exp v0.0.0-20240823005443-9b4947da3948 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20261019180522-ce908d29299b // indirect
	google.golang.org/grpc/cmd/protoc-gen-go-grpc v1.6.2 // indirect
	nhooyr.io/websocket v1.8.6 // indirect
)
