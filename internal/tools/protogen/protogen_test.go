package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
	if err := write(out, files); err != nil {
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
	if bad := stale(out, files); len(bad) != 0 {
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
	if bad := stale(out, files); !slices.Equal(bad, want) {
		t.Errorf("stale(edited output) = %q, want %q", bad, want)
	}
}

// TestRequest checks the CodeGeneratorRequest built for a file that imports
// google/api, google/rpc and google/protobuf files: they resolve with no
// .proto source, and every file follows its imports.
func TestRequest(t *testing.T) {
	root := t.TempDir()
	src := `syntax = "proto3";
package t.v1;
import "google/api/annotations.proto";
import "google/api/httpbody.proto";
import "google/rpc/status.proto";
import "google/protobuf/timestamp.proto";
option go_package = "example.com/t/v1;tv1";
// M is documented.
message M {
  google.rpc.Status st = 1;
  google.api.HttpBody body = 2;
  google.protobuf.Timestamp ts = 3;
}
service S {
  rpc Get(M) returns (M) { option (google.api.http) = {get: "/v1/m"}; }
}
`
	if err := os.MkdirAll(filepath.Join(root, "t/v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "t/v1/t.proto"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	req, err := request(t.Context(), root, []string{"t/v1/t.proto"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(req.GetFileToGenerate(), []string{"t/v1/t.proto"}) || req.GetParameter() != "paths=source_relative" {
		t.Errorf("FileToGenerate %q, Parameter %q", req.GetFileToGenerate(), req.GetParameter())
	}
	pos := map[string]int{}
	for i, f := range req.GetProtoFile() {
		pos[f.GetName()] = i
		for _, dep := range f.GetDependency() {
			if _, ok := pos[dep]; !ok {
				t.Errorf("%s comes before its import %s", f.GetName(), dep)
			}
		}
	}
	for _, name := range []string{"google/api/http.proto", "google/api/annotations.proto", "google/protobuf/descriptor.proto", "google/rpc/status.proto", "google/protobuf/any.proto"} {
		if _, ok := pos[name]; !ok {
			t.Errorf("request lacks %s", name)
		}
	}
	last := req.GetProtoFile()[len(req.GetProtoFile())-1]
	if last.GetName() != "t/v1/t.proto" || len(last.GetSourceCodeInfo().GetLocation()) == 0 {
		t.Errorf("last file %s has %d source locations; want t/v1/t.proto with source info", last.GetName(), len(last.GetSourceCodeInfo().GetLocation()))
	}

	// A bad file is an error naming the file and the line.
	if err := os.WriteFile(filepath.Join(root, "bad.proto"), []byte("syntax = \"proto3\";\nmessage {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := request(t.Context(), root, []string{"bad.proto"}); err == nil || !strings.Contains(err.Error(), "bad.proto:2") {
		t.Errorf("bad.proto: error %v, want one naming bad.proto:2", err)
	}
}
