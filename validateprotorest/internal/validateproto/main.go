// Command validateproto writes buf/validate/validate.proto, protovalidate's
// rules, and the files it imports as a FileDescriptorSet on standard
// output, from the descriptors the Buf Schema Registry's Go module links
// in: for protoc to compile .proto files that import it when its source is
// not at hand (protoc --descriptor_set_in), as scripts/e2e-python.sh does
// for its Python peer.
//
//	go run ./validateprotorest/internal/validateproto >validate.binpb
package main

import (
	"fmt"
	"os"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

func main() {
	b, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: closure(validate.File_buf_validate_validate_proto)})
	if err == nil {
		_, err = os.Stdout.Write(b)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "validateproto:", err)
		os.Exit(1)
	}
}

// closure is fd and the files it imports, each once, a file after its
// imports.
func closure(fd protoreflect.FileDescriptor) []*descriptorpb.FileDescriptorProto {
	var out []*descriptorpb.FileDescriptorProto
	seen := map[string]bool{}
	var add func(protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		imports := f.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		out = append(out, protodesc.ToFileDescriptorProto(f))
	}
	add(fd)
	return out
}
