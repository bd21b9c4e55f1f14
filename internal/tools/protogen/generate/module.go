package generate

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/types/pluginpb"
)

// A Module is the generated code of one Go module's .proto files: Files,
// relative to ProtoRoot (itself relative to the module's root), generated
// beside them by Plugins, in order, built at the versions the module's
// go.mod pins. Script is the command that regenerates them, which errors
// name. The benchmark suite (bench/internal/gen) and examples/migrate
// (examples/migrate/internal/gen) are each one.
type Module struct {
	ProtoRoot string
	Files     []string
	Plugins   []Plugin
	Script    string
}

// Generate generates the module's files, for the module the go command
// works in from the working directory. It returns them with the
// directory they belong under.
func (m Module) Generate(ctx context.Context) (out string, files []*pluginpb.CodeGeneratorResponse_File, err error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", nil, err
	}
	bin, err := BuildPlugins(ctx, root, m.Plugins)
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(bin)
	out = filepath.Join(root, m.ProtoRoot)
	files, err = Generate(ctx, out, bin, m.Files, m.Plugins)
	return out, files, err
}

// Stale generates the module's files and lists those that are missing or
// differ on disk (see Stale).
func (m Module) Stale(ctx context.Context) (files []*pluginpb.CodeGeneratorResponse_File, stale []string, err error) {
	out, files, err := m.Generate(ctx)
	if err != nil {
		return nil, nil, err
	}
	return files, Stale(out, files), nil
}

// Main is a generator command's main function: it regenerates the
// module's files or, with -check, lists the stale ones and exits 1 if
// there are any.
func (m Module) Main() {
	check := flag.Bool("check", false, "write nothing; list stale or missing files and exit 1 if there are any")
	flag.Parse()
	ctx := context.Background()
	out, files, err := m.Generate(ctx)
	if err == nil {
		err = Update(out, files, *check, m.Script)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// moduleRoot is the directory of the go.mod of the module the go command
// works in from the working directory.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := GoCommand(ctx, ".", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}
