// Package generate compiles .proto files in-process (protocompile) and runs
// protoc plugins on them, as protoc would, with nothing installed by hand:
// the plugins are Go packages built at the versions a go.mod pins. It is
// shared by the repository's generator (internal/tools/protogen) and,
// through Module, the benchmark suite's (bench/internal/gen) and
// examples/migrate's (examples/migrate/internal/gen).
package generate

import (
	"bytes"
	"context"
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

	// These register the descriptors of google/api/*.proto,
	// google/rpc/*.proto and buf/validate/validate.proto (protovalidate's
	// rules, from the Go module the Buf Schema Registry generates) in
	// protoregistry.GlobalFiles; imports of those files resolve to them, so
	// no googleapis or protovalidate .proto source is needed.
	_ "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	_ "google.golang.org/genproto/googleapis/api/annotations"
	_ "google.golang.org/genproto/googleapis/api/httpbody"
	_ "google.golang.org/genproto/googleapis/rpc/code"
	_ "google.golang.org/genproto/googleapis/rpc/errdetails"
	_ "google.golang.org/genproto/googleapis/rpc/status"
)

// A Plugin is a protoc plugin, by the package path that builds it, with
// the parameter it gets besides pluginParameter; or, with Path, a plugin
// already on disk (in any language, e.g. protoc-gen-es), which gets
// Parameter alone.
type Plugin struct {
	Package   string
	Parameter string
	Path      string
}

// pluginParameter is passed to every plugin built from a Go package.
const pluginParameter = "paths=source_relative"

func (p Plugin) parameter() string {
	if p.Path != "" {
		return p.Parameter
	}
	if p.Parameter == "" {
		return pluginParameter
	}
	return pluginParameter + "," + p.Parameter
}

// registryPrefixes are the import paths resolved from the descriptors that
// the genproto and protovalidate packages register, rather than from
// source under the root.
var registryPrefixes = []string{"google/api/", "google/rpc/", "buf/validate/"}

// Generate compiles files (paths relative to root) and runs the plugins on
// them. It returns the generated files by their path relative to the output
// directory, in plugin order. pluginDir holds the built plugins (see
// BuildPlugins).
func Generate(ctx context.Context, root, pluginDir string, files []string, plugins []Plugin) ([]*pluginpb.CodeGeneratorResponse_File, error) {
	req, err := request(ctx, root, files)
	if err != nil {
		return nil, err
	}
	var out []*pluginpb.CodeGeneratorResponse_File
	for _, p := range plugins {
		req.Parameter = proto.String(p.parameter())
		bin := p.Path
		if bin == "" {
			bin = filepath.Join(pluginDir, filepath.Base(p.Package))
		}
		res, err := runPlugin(ctx, bin, req)
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
				return protocompile.SearchResult{}, fmt.Errorf("%s: %w (is its genproto package imported by package generate?)", path, err)
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

// BuildPlugins builds the plugins into a new temporary directory, at the
// versions the go.mod of the module in moduleDir pins. The caller removes
// the directory.
func BuildPlugins(ctx context.Context, moduleDir string, plugins []Plugin) (string, error) {
	dir, err := os.MkdirTemp("", "protogen-plugins-")
	if err != nil {
		return "", err
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, p := range plugins {
		args = append(args, p.Package)
	}
	if out, err := GoCommand(ctx, moduleDir, args...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go build plugins: %v\n%s", err, out)
	}
	return dir, nil
}

// GoCommand is the go command in dir, outside any workspace, so that the
// versions are exactly those of dir's go.mod.
func GoCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return cmd
}

// Write writes the generated files under out, leaving files whose content
// is already right untouched.
func Write(out string, files []*pluginpb.CodeGeneratorResponse_File) error {
	for _, f := range files {
		path := filepath.Join(out, filepath.FromSlash(f.GetName()))
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, []byte(f.GetContent())) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(f.GetContent()), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", f.GetName())
	}
	return nil
}

// Stale lists the generated files that are missing under out or differ.
func Stale(out string, files []*pluginpb.CodeGeneratorResponse_File) []string {
	var bad []string
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(f.GetName())))
		switch {
		case err != nil:
			bad = append(bad, "missing: "+f.GetName())
		case !bytes.Equal(old, []byte(f.GetContent())):
			bad = append(bad, "stale:   "+f.GetName())
		}
	}
	return bad
}

// Update writes the generated files under out or, with check, writes
// nothing and lists the stale or missing ones, one per line, failing if
// there are any with an error that names script, the command that
// regenerates them.
func Update(out string, files []*pluginpb.CodeGeneratorResponse_File, check bool, script string) error {
	if !check {
		return Write(out, files)
	}
	bad := Stale(out, files)
	for _, line := range bad {
		fmt.Println(line)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d generated file(s) out of date: run %s", len(bad), script)
	}
	return nil
}
