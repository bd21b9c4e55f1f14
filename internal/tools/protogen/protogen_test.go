package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/protorest/protorest/internal/tools/protogen/generate"
)

const repoRoot = "../../.."

// TestGeneratedCodeIsFresh regenerates every committed .pb.go, and the
// googleapis set, into a temporary directory and fails if a committed
// file differs or is missing.
func TestGeneratedCodeIsFresh(t *testing.T) {
	files, err := generateDefault(t.Context(), repoRoot)
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

// TestGoogleAPIsPackages: googleapis.go imports every Go package of
// genproto's googleapis/api, googleapis/rpc and googleapis/type, so that
// the set internal/descsource embeds holds every file they have.
func TestGoogleAPIsPackages(t *testing.T) {
	out, err := generate.GoCommand(t.Context(), ".", "list", "-f", "{{.ImportPath}}",
		"google.golang.org/genproto/googleapis/api/...", "google.golang.org/genproto/googleapis/rpc/...",
		"google.golang.org/genproto/googleapis/type/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "googleapis.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	imported := map[string]bool{}
	for _, spec := range f.Imports {
		if spec.Name != nil && spec.Name.Name == "_" {
			imported[strings.Trim(spec.Path.Value, `"`)] = true
		}
	}
	want := strings.Fields(string(out))
	for _, pkg := range want {
		if !imported[pkg] {
			t.Errorf("googleapis.go does not import %s", pkg)
		}
	}
	if len(imported) != len(want) {
		t.Errorf("googleapis.go imports %d packages, go list lists %d", len(imported), len(want))
	}
}
