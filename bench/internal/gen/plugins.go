package main

import (
	"context"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/types/pluginpb"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
)

// plugins are run in this order. The bench module's go.mod pins their
// versions with tool directives; protoc-gen-go's version is
// google.golang.org/protobuf's, so the code always matches the runtime it
// compiles against.
var plugins = []generate.Plugin{
	{Package: "google.golang.org/protobuf/cmd/protoc-gen-go"},
	{Package: "google.golang.org/grpc/cmd/protoc-gen-go-grpc"},
	{Package: "github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway"},
	// MarshalVT, SizeVT and MarshalToSizedBufferVT, and UnmarshalVT: the
	// methods protorest's binary codec uses when a message has them, and
	// BenchmarkCodec's vtprotobuf codec.
	{Package: "github.com/planetscale/vtprotobuf/cmd/protoc-gen-go-vtproto", Parameter: "features=marshal+unmarshal+size"},
}

// generateFiles compiles the benchmark's .proto files under root/protoRoot and
// runs the plugins on them, built at the versions root's go.mod pins.
func generateFiles(ctx context.Context, root string) ([]*pluginpb.CodeGeneratorResponse_File, error) {
	bin, err := generate.BuildPlugins(ctx, root, plugins)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bin)
	return generate.Generate(ctx, filepath.Join(root, protoRoot), bin, protoFiles, plugins)
}
