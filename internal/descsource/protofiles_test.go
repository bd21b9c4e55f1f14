package descsource

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestFromProtoFiles(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	examples := []string{"examples/bookstore/v1/bookstore.proto", "examples/example/v1/example.proto", "examples/library/v1/library.proto"}
	bad := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		path := filepath.Join(bad, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("syntax.proto", "syntax = \"proto3\";\npackage x.v1;\nmessage M {\n  strin name = 1;\n}\n")
	write("imports.proto", "syntax = \"proto3\";\npackage x.v1;\nimport \"other/missing.proto\";\n")
	// A local copy of a google/api file wins over the linked-in one.
	write("google/api/annotations.proto", "syntax = \"proto3\";\npackage google.api;\n")
	write("uses_local.proto", "syntax = \"proto3\";\npackage x.v1;\nimport \"google/api/annotations.proto\";\nservice S { rpc M(Req) returns (Req) { option (google.api.http) = { get: \"/x\" }; } }\nmessage Req {}\n")

	tests := []struct {
		name        string
		importPaths []string
		files       []string
		services    []string
		want        []string
		wantErr     []string
	}{
		{name: "relative to an import path", importPaths: []string{root}, files: examples, want: exampleServices},
		{name: "relative to the working directory, under an import path", importPaths: []string{"../.."},
			files: []string{"../../examples/library/v1/library.proto"}, want: []string{"library.v1.LibraryService"}},
		{name: "absolute", importPaths: []string{"../.."},
			files: []string{filepath.Join(root, "examples/example/v1/example.proto")}, want: []string{"example.v1.MySvc"}},
		{name: "named services", importPaths: []string{root}, files: examples,
			services: []string{"example.v1.MySvc"}, want: []string{"example.v1.MySvc"}},
		{name: "unknown service", importPaths: []string{root}, files: examples[:1],
			services: []string{"example.v1.Nope"}, wantErr: []string{"example.v1.Nope"}},
		{name: "no files", importPaths: []string{root}, wantErr: []string{"none given"}},
		{name: "missing file", importPaths: []string{root}, files: []string{"nope/v1/nope.proto"}, wantErr: []string{"nope/v1/nope.proto"}},
		{name: "not under an import path", importPaths: []string{bad},
			files: []string{filepath.Join(root, "examples/example/v1/example.proto")}, wantErr: []string{"example.proto", "not under any import path"}},
		{name: "syntax error", importPaths: []string{bad}, files: []string{"syntax.proto"}, wantErr: []string{"syntax.proto:4:3", "strin"}},
		{name: "missing import", importPaths: []string{bad}, files: []string{"imports.proto"}, wantErr: []string{"imports.proto", "other/missing.proto"}},
		{name: "a local google/api file shadows the linked-in one", importPaths: []string{bad}, files: []string{"uses_local.proto"},
			wantErr: []string{"uses_local.proto", "google.api.http"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := FromProtoFiles(context.Background(), tt.importPaths, tt.files, tt.services...)
			if tt.wantErr != nil {
				t.Log(err)
				wantError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkSet(t, set, tt.want)
		})
	}
}

func TestFromProtoFilesDefaultImportPath(t *testing.T) {
	t.Chdir("../../examples")
	set, err := FromProtoFiles(context.Background(), nil, []string{"example/v1/example.proto"})
	if err != nil {
		t.Fatal(err)
	}
	checkSet(t, set, []string{"example.v1.MySvc"})
}
