package main

import (
	"path/filepath"
	"testing"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
)

// TestGeneratedCodeIsFresh regenerates every generated file in memory and
// fails if a committed file differs or is missing: run
// scripts/genmigrate.sh after changing the .proto file or a plugin's
// version.
func TestGeneratedCodeIsFresh(t *testing.T) {
	root, err := generate.ModuleRoot(t.Context(), ".")
	if err != nil {
		t.Fatal(err)
	}
	files, err := generateFiles(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(plugins) * len(protoFiles); len(files) != want {
		t.Errorf("generated %d files, want %d: one per plugin and .proto file", len(files), want)
	}
	for _, line := range generate.Stale(filepath.Join(root, protoRoot), files) {
		t.Errorf("%s: run scripts/genmigrate.sh", line)
	}
}
