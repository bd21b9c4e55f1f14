package generate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

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

// TestPluginByPath runs a plugin given by its path (protoc-gen-go, built
// first), as protoc-gen-es is run: it gets Parameter alone, not
// paths=source_relative, so its output lands where its own default puts
// it; and a path with no plugin there is an error naming it.
func TestPluginByPath(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "t/v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "syntax = \"proto3\";\npackage t.v1;\noption go_package = \"example.com/t/v1;tv1\";\nmessage M { string s = 1; }\n"
	if err := os.WriteFile(filepath.Join(root, "t/v1/t.proto"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := BuildPlugins(t.Context(), "..", []Plugin{{Package: "google.golang.org/protobuf/cmd/protoc-gen-go"}})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "protoc-gen-go")
	for _, tc := range []struct{ parameter, want string }{
		{"", "example.com/t/v1/t.pb.go"},
		{"paths=source_relative", "t/v1/t.pb.go"},
	} {
		files, err := Generate(t.Context(), root, "", []string{"t/v1/t.proto"}, []Plugin{{Path: bin, Parameter: tc.parameter}})
		if err != nil {
			t.Fatalf("parameter %q: %v", tc.parameter, err)
		}
		if len(files) != 1 {
			t.Fatalf("parameter %q: %d files, want 1", tc.parameter, len(files))
		}
		if files[0].GetName() != tc.want || !strings.Contains(files[0].GetContent(), "type M struct") {
			t.Errorf("parameter %q: %s, want %s declaring M", tc.parameter, files[0].GetName(), tc.want)
		}
	}
	missing := filepath.Join(root, "protoc-gen-none")
	if _, err := Generate(t.Context(), root, "", []string{"t/v1/t.proto"}, []Plugin{{Path: missing}}); err == nil || !strings.Contains(err.Error(), "protoc-gen-none") {
		t.Errorf("a missing plugin: error %v, want one naming protoc-gen-none", err)
	}
}
