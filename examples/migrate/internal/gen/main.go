// Command gen generates the Go code of examples/migrate's .proto file:
// protoc-gen-go, protoc-gen-go-grpc and protoc-gen-grpc-gateway (the
// "before" program's gateway code), paths=source_relative, beside it,
// with nothing installed by hand, as bench/internal/gen does.
//
// Run it from this module (scripts/genmigrate.sh does):
//
//	go run ./internal/gen         # regenerate
//	go run ./internal/gen -check  # list stale or missing files, exit 1 if any
package main

import "github.com/protorest/protorest/internal/tools/protogen/generate"

// module is the example's .proto file, under examples/migrate/proto, and
// the plugins, at the versions this module's go.mod pins.
var module = generate.Module{
	ProtoRoot: "proto",
	Files:     []string{"notes/v1/notes.proto"},
	Plugins: []generate.Plugin{
		{Package: "google.golang.org/protobuf/cmd/protoc-gen-go"},
		{Package: "google.golang.org/grpc/cmd/protoc-gen-go-grpc"},
		{Package: "github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway"},
	},
	Script: "scripts/genmigrate.sh",
}

func main() { module.Main() }
