package main

import (
	"os"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	conformancev1 "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1"
)

// writeDescriptorSet writes to path the FileDescriptorSet of the suite's
// service.proto and its imports, imports first, as protoc
// --include_imports writes it: what protorest serve's --descriptor-set
// reads (the reference server has no server reflection).
func writeDescriptorSet(path string) error {
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		for i := range fd.Imports().Len() {
			add(fd.Imports().Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	add(conformancev1.File_connectrpc_conformance_v1_service_proto)
	b, err := proto.Marshal(set)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
