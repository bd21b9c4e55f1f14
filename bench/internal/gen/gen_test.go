package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
)

// TestGeneratedCodeIsFresh regenerates every generated file into a
// temporary directory and fails if a committed file differs or is
// missing: run scripts/genbench.sh after changing a .proto file or a
// plugin's version.
func TestGeneratedCodeIsFresh(t *testing.T) {
	files, stale, err := module.Stale(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := len(module.Plugins) * len(module.Files); len(files) != want {
		t.Errorf("generated %d files, want %d: one per plugin and .proto file", len(files), want)
	}
	for _, line := range stale {
		t.Errorf("%s: run %s", line, module.Script)
	}

	// stale reports exactly the edited and the missing files.
	out := t.TempDir()
	if err := generate.Write(out, files); err != nil {
		t.Fatal(err)
	}
	if bad := generate.Stale(out, files); len(bad) != 0 {
		t.Errorf("generate.Stale(fresh output) = %q, want none", bad)
	}
	edited, removed := files[0].GetName(), files[1].GetName()
	if err := os.WriteFile(filepath.Join(out, edited), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(out, removed)); err != nil {
		t.Fatal(err)
	}
	want := []string{"stale:   " + edited, "missing: " + removed}
	if bad := generate.Stale(out, files); !slices.Equal(bad, want) {
		t.Errorf("generate.Stale(edited output) = %q, want %q", bad, want)
	}
}
