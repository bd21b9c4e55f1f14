// Command gen generates the Go code of the Connect conformance suite's
// .proto files (connectrpc/conformance/v1 in connectrpc.com/conformance,
// at the version this module's go.mod pins) into internal/proto:
// protoc-gen-go and protoc-gen-go-grpc, paths=source_relative, with the
// Go package this module gives them (the suite's own generated code is
// internal to its module). The .proto files are read from the module
// cache; nothing of the suite is copied into the repository but the
// generated code.
//
// Run it from this module (scripts/genconformance.sh does):
//
//	go run ./internal/gen         # regenerate
//	go run ./internal/gen -check  # list stale or missing files, exit 1 if any
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
)

func main() {
	check := flag.Bool("check", false, "write nothing; list stale or missing files and exit 1 if there are any")
	flag.Parse()
	ctx := context.Background()
	out, files, err := suite.Generate(ctx)
	if err == nil {
		err = generate.Update(out, files, *check, suite.Script)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
