package main

import "testing"

// TestGeneratedCodeIsFresh regenerates the generated files in memory and
// fails if a committed one differs or is missing: run
// scripts/genmigrate.sh after changing the .proto file or a plugin's
// version.
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
}
