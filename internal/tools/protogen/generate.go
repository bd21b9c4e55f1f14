package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	// These register the descriptors of google/api/*.proto and
	// google/rpc/*.proto in protoregistry.GlobalFiles; imports of those files
	// resolve to them, so no googleapis .proto source is needed.
	_ "google.golang.org/genproto/googleapis/api/annotations"
	_ "google.golang.org/genproto/googleapis/api/httpbody"
	_ "google.golang.org/genproto/googleapis/rpc/code"
	_ "google.golang.org/genproto/googleapis/rpc/errdetails"
	_ "google.golang.org/genproto/googleapis/rpc/status"
)

// plugins are the protoc plugins run on every request, by the package path
// that builds them. Their versions are pinned by this module's go.mod (tool
// directives); protoc-gen-go's version is google.golang.org/protobuf's.
var plugins = []string{
	"google.golang.org/protobuf/cmd/protoc-gen-go",
	"google.golang.org/grpc/cmd/protoc-gen-go-grpc",
}

// pluginParameter is passed to every plugin.
const pluginParameter = "paths=source_relative"

// registryPrefixes are the import paths resolved from the descriptors that
// the genproto packages register, rather than from source under the root.
var registryPrefixes = []string{"google/api/", "google/rpc/"}

// Generate compiles files (paths relative to root) and runs the plugins on
// them. It returns the generated files by their path relative to the output
// directory, in plugin order. pluginDir holds the built plugins (see
// buildPlugins).
func Generate(ctx context.Context, root, pluginDir string, files []string) ([]*pluginpb.CodeGeneratorResponse_File, error) {
	req, err := request(ctx, root, files)
	if err != nil {
		return nil, err
	}
	var out []*pluginpb.CodeGeneratorResponse_File
	for _, pkg := range plugins {
		res, err := runPlugin(ctx, filepath.Join(pluginDir, filepath.Base(pkg)), req)
		if err != nil {
			return nil, err
		}
		out = append(out, res...)
	}
	return out, nil
}

// request compiles files and builds the CodeGeneratorRequest protoc would
// send: every file and its transitive imports, dependencies first.
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
	req := &pluginpb.CodeGeneratorRequest{
		FileToGenerate: files,
		Parameter:      proto.String(pluginParameter),
	}
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

// fromRegistry resolves google/api and google/rpc imports to the
// descriptors linked into this program.
func fromRegistry(path string) (protocompile.SearchResult, error) {
	for _, p := range registryPrefixes {
		if strings.HasPrefix(path, p) {
			fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
			if err != nil {
				return protocompile.SearchResult{}, fmt.Errorf("%s: %w (is its genproto package imported by protogen?)", path, err)
			}
			return protocompile.SearchResult{Desc: fd}, nil
		}
	}
	return protocompile.SearchResult{}, protoregistry.NotFound
}

// fileProto returns fd as a FileDescriptorProto, with source info when fd
// was compiled from source.
func fileProto(fd protoreflect.FileDescriptor) *descriptorpb.FileDescriptorProto {
	if r, ok := fd.(linker.Result); ok {
		return r.FileDescriptorProto()
	}
	if w, ok := fd.(unwrapper); ok {
		fd = w.Unwrap() // a linker wrapper of a registered descriptor
	}
	return protodesc.ToFileDescriptorProto(fd)
}

// unwrapper is implemented by the linker's wrappers of descriptors that
// were not compiled from source.
type unwrapper interface {
	Unwrap() protoreflect.FileDescriptor
}

// runPlugin runs one plugin binary on req.
func runPlugin(ctx context.Context, bin string, req *pluginpb.CodeGeneratorRequest) ([]*pluginpb.CodeGeneratorResponse_File, error) {
	in, err := proto.Marshal(req)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", filepath.Base(bin), err, stderr.Bytes())
	}
	var res pluginpb.CodeGeneratorResponse
	if err := proto.Unmarshal(stdout.Bytes(), &res); err != nil {
		return nil, fmt.Errorf("%s: bad response: %v", filepath.Base(bin), err)
	}
	if res.Error != nil {
		return nil, fmt.Errorf("%s: %s", filepath.Base(bin), res.GetError())
	}
	for _, f := range res.File {
		if f.GetInsertionPoint() != "" || f.Name == nil {
			return nil, fmt.Errorf("%s: unsupported output (insertion point or unnamed file)", filepath.Base(bin))
		}
	}
	return res.File, nil
}

// buildPlugins builds the plugins into a new temporary directory, at the
// versions this module's go.mod pins. The caller removes the directory.
func buildPlugins(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "protogen-plugins-")
	if err != nil {
		return "", err
	}
	args := append([]string{"build", "-o", dir + string(filepath.Separator)}, plugins...)
	if out, err := goCommand(ctx, ".", args...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go build plugins: %v\n%s", err, out)
	}
	return dir, nil
}

// checkRuntimeVersion fails unless the module at root (if root holds a
// go.mod) requires the same google.golang.org/protobuf as this module, so
// that the generated code matches the runtime it is compiled against.
func checkRuntimeVersion(ctx context.Context, root string) error {
	if _, err := os.Stat(filepath.Join(root, "go.mod")); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	version := func(dir string) (string, error) {
		out, err := goCommand(ctx, dir, "list", "-m", "-f", "{{.Version}}", "google.golang.org/protobuf").Output()
		if err != nil {
			return "", fmt.Errorf("go list -m google.golang.org/protobuf in %s: %v", dir, err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	want, err := version(root)
	if err != nil {
		return err
	}
	got, err := version(".")
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("protoc-gen-go would be %s but %s requires google.golang.org/protobuf %s: "+
			"run `go get -tool google.golang.org/protobuf/cmd/protoc-gen-go@%s` in internal/tools/protogen",
			got, filepath.Join(root, "go.mod"), want, want)
	}
	return nil
}

// goCommand is the go command in dir, outside any workspace, so that the
// versions are exactly those of dir's go.mod.
func goCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return cmd
}
