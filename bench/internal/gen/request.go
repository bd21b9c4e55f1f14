package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	// Registers google/api/annotations.proto and google/api/http.proto in
	// protoregistry.GlobalFiles: imports of google/api files resolve to
	// them, so no googleapis .proto source is needed.
	_ "google.golang.org/genproto/googleapis/api/annotations"
)

// pluginParameter is passed to every plugin (plugin.parameter).
const pluginParameter = "paths=source_relative"

// request compiles files (relative to root) and builds the
// CodeGeneratorRequest protoc would send: every file and its transitive
// imports, dependencies first. Its parameter is each plugin's own.
func request(ctx context.Context, root string, files []string) (*pluginpb.CodeGeneratorRequest, error) {
	compiler := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			protocompile.ResolverFunc(fromRegistry),
			&protocompile.SourceResolver{ImportPaths: []string{root}},
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	compiled, err := compiler.Compile(ctx, files...)
	if err != nil {
		return nil, err
	}
	req := &pluginpb.CodeGeneratorRequest{FileToGenerate: files}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		req.ProtoFile = append(req.ProtoFile, fileProto(fd))
	}
	for _, f := range compiled {
		add(f)
	}
	return req, nil
}

// fromRegistry resolves google/api imports to the descriptors linked into
// this program.
func fromRegistry(path string) (protocompile.SearchResult, error) {
	if !strings.HasPrefix(path, "google/api/") {
		return protocompile.SearchResult{}, protoregistry.NotFound
	}
	fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
	if err != nil {
		return protocompile.SearchResult{}, fmt.Errorf("%s: %w (import its genproto package in request.go)", path, err)
	}
	return protocompile.SearchResult{Desc: fd}, nil
}

// fileProto returns fd as a FileDescriptorProto, with source info when fd
// was compiled from source.
func fileProto(fd protoreflect.FileDescriptor) *descriptorpb.FileDescriptorProto {
	if r, ok := fd.(linker.Result); ok {
		return r.FileDescriptorProto()
	}
	if w, ok := fd.(unwrapper); ok {
		fd = w.Unwrap() // the linker's wrapper of a registered descriptor
	}
	return protodesc.ToFileDescriptorProto(fd)
}

// unwrapper is implemented by the linker's wrappers of descriptors that
// were not compiled from source.
type unwrapper interface {
	Unwrap() protoreflect.FileDescriptor
}
