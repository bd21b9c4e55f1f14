// Command gen generates the Go code of the benchmark's .proto files:
// protoc-gen-go, protoc-gen-go-grpc, protoc-gen-grpc-gateway and
// protoc-gen-go-vtproto, with paths=source_relative, next to each file
// under bench/proto. It needs nothing installed by hand: the files are
// compiled in-process by protocompile (google/protobuf imports from its
// standard imports, google/api imports from the descriptors genproto
// registers), and the plugins are built at the versions the bench
// module's go.mod pins (tool directives).
//
// Run it from the bench module (scripts/genbench.sh does):
//
//	go run ./internal/gen         # regenerate
//	go run ./internal/gen -check  # list stale or missing files, exit 1 if any
package main

import "github.com/protorest/protorest/internal/tools/protogen/generate"

// module is the benchmark's .proto files, under bench/proto, and the
// plugins, run in this order. The bench module's go.mod pins their
// versions with tool directives; protoc-gen-go's version is
// google.golang.org/protobuf's, so the code always matches the runtime it
// compiles against.
var module = generate.Module{
	ProtoRoot: "proto",
	Files:     []string{"bench/library/v1/library.proto", "bench/abe/v1/abe.proto"},
	Plugins: []generate.Plugin{
		{Package: "google.golang.org/protobuf/cmd/protoc-gen-go"},
		{Package: "google.golang.org/grpc/cmd/protoc-gen-go-grpc"},
		{Package: "github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway"},
		// MarshalVT, SizeVT and MarshalToSizedBufferVT, and UnmarshalVT:
		// the methods protorest's binary codec uses when a message has
		// them, and BenchmarkCodec's vtprotobuf codec.
		{Package: "github.com/planetscale/vtprotobuf/cmd/protoc-gen-go-vtproto", Parameter: "features=marshal+unmarshal+size"},
	},
	Script: "scripts/genbench.sh",
}

func main() { module.Main() }
