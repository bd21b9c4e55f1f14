// Command protogen generates the Go code (protoc-gen-go and
// protoc-gen-go-grpc, paths=source_relative) for the repository's .proto
// files with nothing installed by hand: the files are compiled in-process by
// protocompile, google/protobuf imports come from protocompile's standard
// imports, google/api and google/rpc imports from the descriptors the genproto
// Go packages register, and the plugins are built from the versions this
// module's go.mod pins. It also writes internal/descsource/googleapis.binpb.gz,
// the googleapis files protorest resolves .proto imports with (see
// googleapisFile).
//
// Run it from this directory (scripts/genproto.sh does):
//
//	go run .                        # regenerate the default files
//	go run . -check                 # list stale or missing files, exit 1 if any
//	go run . -root DIR -out DIR a.proto b.proto
//	go run . -plugin PATH -opt PARAM -out DIR a.proto   # another plugin, e.g. protoc-gen-es
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
	"google.golang.org/protobuf/types/pluginpb"
)

// defaultFiles are the repository's .proto files, relative to the repository
// root, generated when no file is named on the command line.
var defaultFiles = []string{
	"examples/example/v1/example.proto",
	"examples/bookstore/v1/bookstore.proto",
	"examples/library/v1/library.proto",
	"internal/testpb/conf/v1/conf.proto",
	"internal/jsonenc/internal/kindspb/kinds.proto",
	"validateprotorest/internal/rulespb/v1/rules.proto",
	"validateprotorest/example/accounts/v1/accounts.proto",
}

func main() {
	root := flag.String("root", "../../..", "import root: `dir`ectory the .proto paths are relative to")
	out := flag.String("out", "", "output `dir`ectory (default: the root)")
	check := flag.Bool("check", false, "write nothing; list stale or missing files and exit 1 if there are any")
	plugin := flag.String("plugin", "", "run the protoc plugin at `path` (any language) on the named files instead of the Go plugins")
	opt := flag.String("opt", "", "with -plugin, the `parameter` it gets (e.g. target=ts)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: go run . [-check] [-root DIR] [-out DIR] [-plugin PATH [-opt PARAM]] [file.proto ...]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" {
		*out = *root
	}
	var err error
	if *plugin != "" {
		err = runPlugin(context.Background(), *root, *out, flag.Args(), generate.Plugin{Path: *plugin, Parameter: *opt}, *check)
	} else {
		err = run(context.Background(), *root, *out, flag.Args(), *check)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
}

// run generates files or, with none named, the repository's: the default
// files and the googleapis set.
func run(ctx context.Context, root, out string, files []string, check bool) error {
	var generated []*pluginpb.CodeGeneratorResponse_File
	var err error
	if len(files) == 0 {
		generated, err = generateDefault(ctx, root)
	} else {
		generated, err = generateAll(ctx, root, files)
	}
	if err != nil {
		return err
	}
	return generate.Update(out, generated, check, "scripts/genproto.sh")
}

// runPlugin generates files with one plugin already on disk, e.g. the
// e2e browser test's protoc-gen-es (scripts/e2e-browser.sh).
func runPlugin(ctx context.Context, root, out string, files []string, p generate.Plugin, check bool) error {
	if len(files) == 0 {
		return fmt.Errorf("-plugin %s: name the .proto files to generate", p.Path)
	}
	generated, err := generate.Generate(ctx, root, "", files, []generate.Plugin{p})
	if err != nil {
		return err
	}
	return generate.Update(out, generated, check, "scripts/genproto.sh")
}

// generateDefault generates the default files and the googleapis set.
func generateDefault(ctx context.Context, root string) ([]*pluginpb.CodeGeneratorResponse_File, error) {
	generated, err := generateAll(ctx, root, defaultFiles)
	if err != nil {
		return nil, err
	}
	set, err := googleapisFile()
	if err != nil {
		return nil, err
	}
	return append(generated, set), nil
}

// generateAll checks the runtime version, builds the plugins and generates.
func generateAll(ctx context.Context, root string, files []string) ([]*pluginpb.CodeGeneratorResponse_File, error) {
	if err := checkRuntimeVersion(ctx, root); err != nil {
		return nil, err
	}
	dir, err := generate.BuildPlugins(ctx, ".", plugins)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	return generate.Generate(ctx, root, dir, files, plugins)
}
