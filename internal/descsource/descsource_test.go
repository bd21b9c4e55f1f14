package descsource

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

func TestFromDescriptorSet(t *testing.T) {
	t.Parallel()
	examples := closure(exampleFiles()...)
	conf := closure(confFile())
	things := thingFiles()
	changed := proto.Clone(things[0]).(*descriptorpb.FileDescriptorProto)
	changed.MessageType[0].Name = proto.String("Other")

	tests := []struct {
		name    string
		data    []byte
		names   []string
		want    []string
		wantErr []string
	}{
		{name: "examples with imports", data: marshalSet(t, examples), want: exampleServices},
		{name: "examples named", data: marshalSet(t, examples),
			names: []string{"library.v1.LibraryService", "example.v1.MySvc", "library.v1.LibraryService"},
			want:  []string{"example.v1.MySvc", "library.v1.LibraryService"}},
		{name: "well-known imports left out", data: marshalSet(t, without(examples, isGoogle)), want: exampleServices},
		{name: "conf without google files", data: marshalSet(t, without(conf, isGoogle)), want: confServices},
		{name: "hand-made files", data: marshalSet(t, things), want: []string{"svc.v1.Things"}},
		{name: "concatenated sets", data: append(marshalSet(t, examples), marshalSet(t, closure(libraryFile()))...), want: exampleServices},
		{name: "no services", data: marshalSet(t, things[:1]), want: nil},

		{name: "missing dependency", data: marshalSet(t, things[1:]),
			wantErr: []string{"descriptor set: ", `"svc/v1/svc.proto" imports "dep/v1/dep.proto"`, "not in the set"}},
		{name: "missing example file", data: marshalSet(t, without(examples, func(n string) bool { return n == "examples/library/v1/library.proto" })),
			names: []string{"library.v1.LibraryService"}, wantErr: []string{`service "library.v1.LibraryService" not found in the descriptor set`}},
		{name: "unknown name", data: marshalSet(t, examples), names: []string{"example.v1.MySvc", "x.Y"},
			wantErr: []string{`service "x.Y" not found in the descriptor set`}},
		{name: "message name", data: marshalSet(t, examples), names: []string{"library.v1.Book"},
			wantErr: []string{`service "library.v1.Book" is not a service but a message`}},
		{name: "invalid name", data: marshalSet(t, examples), names: []string{"not a name"},
			wantErr: []string{`service "not a name" is not a valid full name`}},
		{name: "same file twice, different", data: marshalSet(t, append(slices.Clone(things), changed)),
			wantErr: []string{`file "dep/v1/dep.proto" appears twice with different contents`}},
		{name: "empty", data: nil, wantErr: []string{"descriptor set: contains no files"}},
		{name: "not a descriptor set", data: []byte("syntax = \"proto3\";\n"),
			wantErr: []string{"descriptor set: not a serialized google.protobuf.FileDescriptorSet"}},
		{name: "invalid file", data: marshalSet(t, []*descriptorpb.FileDescriptorProto{{Name: proto.String("bad.proto"), Syntax: proto.String("proto4")}}),
			wantErr: []string{"descriptor set: ", "proto4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set, err := FromDescriptorSet(tt.data, tt.names...)
			if tt.wantErr != nil {
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

func TestFromDescriptorSetFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "examples.binpb")
	if err := os.WriteFile(good, marshalSet(t, closure(exampleFiles()...)), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "things.binpb")
	if err := os.WriteFile(bad, marshalSet(t, thingFiles()[1:]), 0o644); err != nil {
		t.Fatal(err)
	}

	set, err := FromDescriptorSetFile(good, "bookstore.v1.BookService")
	if err != nil {
		t.Fatal(err)
	}
	checkSet(t, set, []string{"bookstore.v1.BookService"})

	_, err = FromDescriptorSetFile(bad)
	wantError(t, err, []string{"descriptor set " + bad + `: file "svc/v1/svc.proto" imports "dep/v1/dep.proto"`})

	_, err = FromDescriptorSetFile(filepath.Join(dir, "absent.binpb"))
	wantError(t, err, []string{"descriptor set: ", "absent.binpb"})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want fs.ErrNotExist", err)
	}

	_, err = FromDescriptorSetFile(good, "x.Y")
	wantError(t, err, []string{`service "x.Y" not found in the descriptor set ` + good})
}

func TestFromFiles(t *testing.T) {
	t.Parallel()
	things, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: append(thingFiles(), closure(libraryFile())...)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		files   *protoregistry.Files
		names   []string
		want    []string
		wantErr []string
	}{
		{name: "all", files: things, want: []string{"library.v1.LibraryService", "svc.v1.Things"}},
		{name: "named", files: things, names: []string{"svc.v1.Things"}, want: []string{"svc.v1.Things"}},
		{name: "global files named", files: protoregistry.GlobalFiles, names: []string{"library.v1.LibraryService", "bookstore.v1.BookService", "example.v1.MySvc", "conf.v1.Probes"},
			want: []string{"bookstore.v1.BookService", "conf.v1.Probes", "example.v1.MySvc", "library.v1.LibraryService"}},
		{name: "unknown", files: things, names: []string{"x.Y"}, wantErr: []string{`service "x.Y" not found in the files`}},
		{name: "method name", files: things, names: []string{"svc.v1.Things.Get"}, wantErr: []string{`service "svc.v1.Things.Get" is not a service but a method`}},
		{name: "nil", files: nil, wantErr: []string{"no files"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set, err := FromFiles(tt.files, tt.names...)
			if tt.wantErr != nil {
				wantError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if set.Files != tt.files {
				t.Error("set.Files is not the registry given")
			}
			checkSet(t, set, tt.want)
		})
	}
}
