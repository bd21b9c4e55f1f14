// Package descsourcetest writes descriptor sets for tests of the loaders'
// callers (RegisterRemote, Reload, protorest serve).
package descsourcetest

import (
	"os"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// WriteSet writes files as a serialized google.protobuf.FileDescriptorSet
// to path, without their imports (the loaders complete the google/ ones).
// It replaces the file atomically, as a deploy would, so that a reload
// running meanwhile reads the old set or the new one.
func WriteSet(t testing.TB, path string, files ...protoreflect.FileDescriptor) {
	t.Helper()
	set := &descriptorpb.FileDescriptorSet{}
	for _, fd := range files {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	b, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
