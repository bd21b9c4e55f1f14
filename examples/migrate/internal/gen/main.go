// Command gen generates the Go code of examples/migrate's .proto file:
// protoc-gen-go, protoc-gen-go-grpc and protoc-gen-grpc-gateway (the
// "before" program's gateway code), paths=source_relative, beside it. It
// needs nothing installed by hand; the plugins are built at the versions
// this module's go.mod pins (see bench/internal/gen, which works alike).
//
// Run it from this module (scripts/genmigrate.sh does):
//
//	go run ./internal/gen         # regenerate
//	go run ./internal/gen -check  # list stale or missing files, exit 1 if any
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/types/pluginpb"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
)

// protoRoot is the import root of the .proto files, relative to the
// module's root; the generated files go beside them.
const protoRoot = "proto"

// protoFiles are the files generated, relative to protoRoot.
var protoFiles = []string{"notes/v1/notes.proto"}

// plugins run in this order, at the versions go.mod pins.
var plugins = []generate.Plugin{
	{Package: "google.golang.org/protobuf/cmd/protoc-gen-go"},
	{Package: "google.golang.org/grpc/cmd/protoc-gen-go-grpc"},
	{Package: "github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway"},
}

func main() {
	check := flag.Bool("check", false, "write nothing; list stale or missing files and exit 1 if there are any")
	flag.Parse()
	if err := run(context.Background(), *check); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, check bool) error {
	root, err := generate.ModuleRoot(ctx, ".")
	if err != nil {
		return err
	}
	files, err := generateFiles(ctx, root)
	if err != nil {
		return err
	}
	return generate.Update(filepath.Join(root, protoRoot), files, check, "scripts/genmigrate.sh")
}

// generateFiles compiles the .proto files under root/protoRoot and runs
// the plugins on them.
func generateFiles(ctx context.Context, root string) ([]*pluginpb.CodeGeneratorResponse_File, error) {
	bin, err := generate.BuildPlugins(ctx, root, plugins)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bin)
	return generate.Generate(ctx, filepath.Join(root, protoRoot), bin, protoFiles, plugins)
}
