package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/types/pluginpb"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
)

// suite is the conformance suite's .proto files that the harness uses
// (the service, the server-under-test's stdin/stdout messages, and the
// config they import), under the proto directory of the module
// conformanceModule, generated into Out (relative to this module's root)
// as the Go package GoPackage.
var suite = Suite{
	Module:    conformanceModule,
	Files:     []string{"connectrpc/conformance/v1/config.proto", "connectrpc/conformance/v1/service.proto", "connectrpc/conformance/v1/server_compat.proto"},
	GoPackage: "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1;conformancev1",
	Out:       "internal/proto",
	Plugins: []generate.Plugin{
		{Package: "google.golang.org/protobuf/cmd/protoc-gen-go"},
		{Package: "google.golang.org/grpc/cmd/protoc-gen-go-grpc"},
	},
	Script: "scripts/genconformance.sh",
}

// conformanceModule is the suite's module, at the version go.mod pins (its
// runner and reference server are this module's tools).
const conformanceModule = "connectrpc.com/conformance"

// A Suite is .proto files of another module, generated into this one.
type Suite struct {
	Module    string
	Files     []string
	GoPackage string
	Out       string
	Plugins   []generate.Plugin
	Script    string
}

// Generate generates the files, for the module the go command works in
// from the working directory. It returns them with the directory they
// belong under.
func (s Suite) Generate(ctx context.Context) (out string, files []*pluginpb.CodeGeneratorResponse_File, err error) {
	root, err := moduleDir(ctx, "")
	if err != nil {
		return "", nil, err
	}
	src, err := moduleDir(ctx, s.Module)
	if err != nil {
		return "", nil, err
	}
	plugins := make([]generate.Plugin, len(s.Plugins))
	for i, p := range s.Plugins {
		p.Parameter = s.goPackages(p.Parameter)
		plugins[i] = p
	}
	bin, err := generate.BuildPlugins(ctx, root, plugins)
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(bin)
	files, err = generate.Generate(ctx, filepath.Join(src, "proto"), bin, s.Files, plugins)
	return filepath.Join(root, s.Out), files, err
}

// goPackages adds to a plugin's parameter the M options that give every
// file GoPackage (the suite's files declare no go_package).
func (s Suite) goPackages(param string) string {
	for _, f := range s.Files {
		if param != "" {
			param += ","
		}
		param += "M" + f + "=" + s.GoPackage
	}
	return param
}

// moduleDir is the directory of module (downloaded into the module cache
// if need be), or of the main module when module is "".
func moduleDir(ctx context.Context, module string) (string, error) {
	args := []string{"list", "-m", "-json"}
	if module != "" {
		args = append(args, module)
	}
	out, err := generate.GoCommand(ctx, ".", args...).Output()
	if err != nil {
		return "", fmt.Errorf("go %v: %v", args, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", err
	}
	if m.Dir == "" {
		// Not downloaded yet: go mod download fills the module cache.
		out, err = generate.GoCommand(ctx, ".", "mod", "download", "-json", module).Output()
		if err != nil {
			return "", fmt.Errorf("go mod download %s: %v", module, err)
		}
		if err := json.Unmarshal(out, &m); err != nil {
			return "", err
		}
	}
	return m.Dir, nil
}
