package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
)

// plugins are the protoc plugins run on every .proto file. Their versions
// are pinned by this module's go.mod (tool directives); protoc-gen-go's
// version is google.golang.org/protobuf's.
var plugins = []generate.Plugin{
	{Package: "google.golang.org/protobuf/cmd/protoc-gen-go"},
	{Package: "google.golang.org/grpc/cmd/protoc-gen-go-grpc"},
}

// checkRuntimeVersion fails unless the module at root (if root holds a
// go.mod) requires the same google.golang.org/protobuf as this module, so
// that the generated code matches the runtime it is compiled against.
func checkRuntimeVersion(ctx context.Context, root string) error {
	if _, err := os.Stat(filepath.Join(root, "go.mod")); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	version := func(dir string) (string, error) {
		out, err := generate.GoCommand(ctx, dir, "list", "-m", "-f", "{{.Version}}", "google.golang.org/protobuf").Output()
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
