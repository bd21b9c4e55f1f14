package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/pluginpb"
)

// A plugin is a protoc plugin: the package path that builds it, and what
// its parameter has besides pluginParameter.
type plugin struct {
	pkg, param string
}

// plugins are run in this order. The bench module's go.mod pins their
// versions with tool directives; protoc-gen-go's version is
// google.golang.org/protobuf's, so the code always matches the runtime it
// compiles against.
var plugins = []plugin{
	{pkg: "google.golang.org/protobuf/cmd/protoc-gen-go"},
	{pkg: "google.golang.org/grpc/cmd/protoc-gen-go-grpc"},
	{pkg: "github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway"},
	// MarshalVT, SizeVT and MarshalToSizedBufferVT, and UnmarshalVT: the
	// methods protorest's binary codec uses when a message has them, and
	// BenchmarkCodec's vtprotobuf codec.
	{pkg: "github.com/planetscale/vtprotobuf/cmd/protoc-gen-go-vtproto", param: "features=marshal+unmarshal+size"},
}

// parameter is the plugin's CodeGeneratorRequest parameter.
func (p plugin) parameter() string {
	if p.param == "" {
		return pluginParameter
	}
	return pluginParameter + "," + p.param
}

// generate compiles protoFiles under root/protoRoot and runs every plugin
// on them. It returns the generated files, named relative to protoRoot.
func generate(ctx context.Context, root string) ([]*pluginpb.CodeGeneratorResponse_File, error) {
	req, err := request(ctx, filepath.Join(root, protoRoot), protoFiles)
	if err != nil {
		return nil, err
	}
	bin, err := buildPlugins(ctx, root)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bin)
	var out []*pluginpb.CodeGeneratorResponse_File
	for _, p := range plugins {
		req.Parameter = proto.String(p.parameter())
		files, err := runPlugin(ctx, filepath.Join(bin, filepath.Base(p.pkg)), req)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// buildPlugins builds the plugins of the module at root into a new
// temporary directory, which the caller removes.
func buildPlugins(ctx context.Context, root string) (string, error) {
	dir, err := os.MkdirTemp("", "genbench-plugins-")
	if err != nil {
		return "", err
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, p := range plugins {
		args = append(args, p.pkg)
	}
	if out, err := goCommand(ctx, root, args...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go build plugins: %v\n%s", err, out)
	}
	return dir, nil
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
	name := filepath.Base(bin)
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", name, err, stderr.Bytes())
	}
	var res pluginpb.CodeGeneratorResponse
	if err := proto.Unmarshal(stdout.Bytes(), &res); err != nil {
		return nil, fmt.Errorf("%s: bad response: %v", name, err)
	}
	if res.Error != nil {
		return nil, fmt.Errorf("%s: %s", name, res.GetError())
	}
	for _, f := range res.File {
		if f.GetInsertionPoint() != "" || f.Name == nil {
			return nil, fmt.Errorf("%s: unsupported output (insertion point or unnamed file)", name)
		}
	}
	return res.File, nil
}

// moduleRoot is the directory of the bench module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := goCommand(ctx, ".", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// goCommand is the go command in dir, outside any workspace, so that the
// versions are exactly those of the bench module's go.mod.
func goCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return cmd
}
