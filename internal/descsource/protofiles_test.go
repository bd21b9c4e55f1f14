package descsource

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protorest/protorest/internal/descsource/descsourcetest"
)

func TestFromProtoFiles(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	examples := []string{"examples/bookstore/v1/bookstore.proto", "examples/example/v1/example.proto", "examples/library/v1/library.proto"}
	bad, apis := t.TempDir(), t.TempDir()
	descsourcetest.WriteGoogleAPIsProto(t, apis)
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
		{name: "google/api, google/rpc and google/type imports", importPaths: []string{apis}, files: []string{descsourcetest.GoogleAPIsFile},
			want: []string{"gapis.v1.Events"}},
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

// TestFromProtoFilesGoogleAPIs: the imported googleapis files are in the
// Set's Files, with their messages and the method's rule.
func TestFromProtoFilesGoogleAPIs(t *testing.T) {
	dir := t.TempDir()
	descsourcetest.WriteGoogleAPIsProto(t, dir)
	set, err := FromProtoFiles(t.Context(), []string{dir}, []string{descsourcetest.GoogleAPIsFile})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"google/api/visibility.proto", "google/api/field_behavior.proto", "google/api/resource.proto",
		"google/api/client.proto", "google/rpc/status.proto", "google/type/date.proto"} {
		if _, err := set.Files.FindFileByPath(name); err != nil {
			t.Errorf("Files lacks %s: %v", name, err)
		}
	}
	md := set.Services[0].Methods().Get(0)
	if day := md.Input().Fields().ByName("day"); day == nil || day.Message().FullName() != "google.type.Date" {
		t.Errorf("field day: %v", day)
	}
	rule, ok := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
	if !ok || rule.GetGet() != "/v1/{name=events/*}" {
		t.Errorf("the method's rule: %v", rule)
	}
}

// TestFromDescriptorSetGoogleAPIs: a descriptor set that leaves out the
// googleapis files its file imports gets them from the embedded set, as
// a server's reflection would.
func TestFromDescriptorSetGoogleAPIs(t *testing.T) {
	dir := t.TempDir()
	descsourcetest.WriteGoogleAPIsProto(t, dir)
	compiled, err := FromProtoFiles(t.Context(), []string{dir}, []string{descsourcetest.GoogleAPIsFile})
	if err != nil {
		t.Fatal(err)
	}
	alone := marshalSet(t, []*descriptorpb.FileDescriptorProto{protodesc.ToFileDescriptorProto(compiled.Services[0].ParentFile())})
	set, err := FromDescriptorSet(alone)
	if err != nil {
		t.Fatal(err)
	}
	checkSet(t, set, []string{"gapis.v1.Events"})
	if _, err := set.Files.FindFileByPath("google/type/date.proto"); err != nil {
		t.Error(err)
	}
}

// TestGoogleAPIsSet: the embedded set holds the googleapis files, each
// of its imports is in it or a well-known file, and its files that this
// program also links in are the same descriptors (the set is as fresh as
// the genproto versions go.mod pins).
func TestGoogleAPIsSet(t *testing.T) {
	set := googleapis()
	for _, name := range []string{
		"google/api/annotations.proto", "google/api/client.proto", "google/api/field_behavior.proto", "google/api/resource.proto",
		"google/api/visibility.proto", "google/api/service.proto", "google/api/expr/v1alpha1/syntax.proto", "google/rpc/status.proto",
		"google/rpc/context/attribute_context.proto", "google/type/date.proto", "google/type/money.proto",
	} {
		if set[name] == nil {
			t.Errorf("the set lacks %s", name)
		}
	}
	linked := 0
	for name, fd := range set {
		if !strings.HasPrefix(name, "google/api/") && !strings.HasPrefix(name, "google/rpc/") &&
			!strings.HasPrefix(name, "google/type/") && !strings.HasPrefix(name, "google/actions/type/") {
			t.Errorf("the set holds %s", name)
		}
		for _, dep := range fd.GetDependency() {
			if set[dep] == nil && !strings.HasPrefix(dep, "google/protobuf/") {
				t.Errorf("%s imports %s, which is not in the set", name, dep)
			}
		}
		if l, err := protoregistry.GlobalFiles.FindFileByPath(name); err == nil {
			linked++
			if !proto.Equal(protodesc.ToFileDescriptorProto(l), fd) {
				t.Errorf("%s differs from the linked file: run scripts/genproto.sh", name)
			}
		}
	}
	if linked == 0 {
		t.Error("no file of the set is linked in to compare it with")
	}
	t.Logf("%d files, %d of them linked in", len(set), linked)
}

func TestFromProtoFilesDefaultImportPath(t *testing.T) {
	t.Chdir("../../examples")
	set, err := FromProtoFiles(context.Background(), nil, []string{"example/v1/example.proto"})
	if err != nil {
		t.Fatal(err)
	}
	checkSet(t, set, []string{"example.v1.MySvc"})
}
