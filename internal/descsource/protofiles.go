package descsource

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// FromProtoFiles compiles .proto source files in-process and returns their
// services: the named ones, or with no names all of them.
//
// Files and imports resolve as protoc resolves them: relative to one of
// importPaths (the working directory when there are none). A file named
// relative to the working directory (or absolute) that lies under an
// import path is taken relative to that import path, as protoc does. The
// well-known types (google/protobuf/…) and every google/api/…, google/rpc/…
// and google/type/… file of genproto's Go packages resolve without an
// import path; a copy under an import path is used instead when present.
func FromProtoFiles(ctx context.Context, importPaths, files []string, names ...string) (*Set, error) {
	if len(files) == 0 {
		return nil, errors.New("proto files: none given")
	}
	if len(importPaths) == 0 {
		importPaths = []string{"."}
	}
	rel := make([]string, len(files))
	for i, f := range files {
		r, err := importName(importPaths, f)
		if err != nil {
			return nil, err
		}
		rel[i] = r
	}
	compiler := protocompile.Compiler{
		// Comments are kept for the OpenAPI document's descriptions.
		SourceInfoMode: protocompile.SourceInfoStandard,
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{ImportPaths: importPaths},
			protocompile.ResolverFunc(fromKnownFiles),
		}),
	}
	compiled, err := compiler.Compile(ctx, rel...)
	if err != nil {
		return nil, fmt.Errorf("proto files: %w", err)
	}
	// Go through the descriptor set path, so that options (google.api.http
	// among them) are decoded exactly as for reflection and descriptor sets.
	fds := make([]protoreflect.FileDescriptor, len(compiled))
	for i, fd := range compiled {
		fds[i] = fd
	}
	data, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: closure(fds...)})
	if err != nil {
		return nil, fmt.Errorf("proto files: %w", err)
	}
	return fromDescriptorSet(data, "proto files "+strings.Join(rel, ", "), names)
}

// importName returns the name of file relative to the import path it lies
// under, or file itself, to be searched in the import paths.
func importName(importPaths []string, file string) (string, error) {
	if _, err := os.Stat(file); err == nil {
		abs, err := filepath.Abs(file)
		if err != nil {
			return "", err
		}
		for _, p := range importPaths {
			root, err := filepath.Abs(p)
			if err != nil {
				return "", err
			}
			if r, err := filepath.Rel(root, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(r), nil
			}
		}
		return "", fmt.Errorf("proto file %s: not under any import path (%s)", file, strings.Join(importPaths, ", "))
	}
	name := filepath.ToSlash(filepath.Clean(file))
	for _, p := range importPaths {
		if _, err := os.Stat(filepath.Join(p, name)); err == nil {
			return name, nil
		}
	}
	return "", fmt.Errorf("proto file %s: not found in the import paths (%s)", file, strings.Join(importPaths, ", "))
}

// fromKnownFiles resolves the well-known and googleapis files: to the
// descriptors linked into this program, else to googleapisSet's.
func fromKnownFiles(path string) (protocompile.SearchResult, error) {
	if fd := linkedFile(path); fd != nil {
		return protocompile.SearchResult{Desc: fd}, nil
	}
	if fd := googleapisFile(path); fd != nil {
		return protocompile.SearchResult{Proto: fd}, nil
	}
	return protocompile.SearchResult{}, protoregistry.NotFound
}

// closure returns fds and their transitive imports as descriptor protos,
// each once, dependencies first.
func closure(fds ...protoreflect.FileDescriptor) []*descriptorpb.FileDescriptorProto {
	var out []*descriptorpb.FileDescriptorProto
	seen := map[string]bool{}
	var visit func(fd protoreflect.FileDescriptor)
	visit = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			visit(imports.Get(i).FileDescriptor)
		}
		out = append(out, fileProto(fd))
	}
	for _, fd := range fds {
		visit(fd)
	}
	return out
}

// fileProto returns fd as a FileDescriptorProto: a compiled file's own, or
// one built from the descriptor.
func fileProto(fd protoreflect.FileDescriptor) *descriptorpb.FileDescriptorProto {
	if r, ok := fd.(linker.Result); ok {
		return r.FileDescriptorProto()
	}
	return protodesc.ToFileDescriptorProto(fd)
}
