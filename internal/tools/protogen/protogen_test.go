package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
)

const repoRoot = "../../.."

// TestGeneratedCodeIsFresh regenerates every committed .pb.go into a
// temporary directory and fails if a committed file differs or is missing.
func TestGeneratedCodeIsFresh(t *testing.T) {
	files, err := generateAll(t.Context(), repoRoot, defaultFiles)
	if err != nil {
		t.Fatal(err)
	}
	// A .pb.go for every .proto, and a _grpc.pb.go for every one that
	// declares a service.
	generated := map[string]bool{}
	for _, f := range files {
		generated[f.GetName()] = true
	}
	for _, proto := range defaultFiles {
		src, err := os.ReadFile(filepath.Join(repoRoot, proto))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{strings.TrimSuffix(proto, ".proto") + ".pb.go"}
		if bytes.Contains(src, []byte("\nservice ")) {
			want = append(want, strings.TrimSuffix(proto, ".proto")+"_grpc.pb.go")
		}
		for _, name := range want {
			if !generated[name] {
				t.Errorf("%s generated no %s", proto, name)
			}
		}
	}
	out := t.TempDir()
	if err := generate.Write(out, files); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.FromSlash(f.GetName())
		fresh, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		committed, err := os.ReadFile(filepath.Join(repoRoot, name))
		switch {
		case err != nil:
			t.Errorf("%s is missing: run scripts/genproto.sh", f.GetName())
		case !bytes.Equal(committed, fresh):
			t.Errorf("%s is stale: run scripts/genproto.sh", f.GetName())
		}
	}

	// -check reports exactly the stale and the missing files.
	if bad := generate.Stale(out, files); len(bad) != 0 {
		t.Errorf("stale(fresh output) = %q, want none", bad)
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
		t.Errorf("stale(edited output) = %q, want %q", bad, want)
	}
}
