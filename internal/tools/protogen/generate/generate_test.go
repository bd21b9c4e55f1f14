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
