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

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
)

// protoRoot is the import root of the .proto files, relative to the bench
// module's root; the generated files go beside them.
const protoRoot = "proto"

// protoFiles are the files generated, relative to protoRoot.
var protoFiles = []string{"bench/library/v1/library.proto"}

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
	return generate.Update(filepath.Join(root, protoRoot), files, check, "scripts/genbench.sh")
}
