package descsource

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// googleapisSet is every .proto file of genproto's googleapis/api,
// googleapis/rpc and googleapis/type Go packages (google/api/…,
// google/rpc/…, google/type/… and google/actions/type/…), as a gzipped
// FileDescriptorSet that internal/tools/protogen writes
// (scripts/genproto.sh).
//
//go:embed googleapis.binpb.gz
var googleapisSet []byte

// googleapis returns the files of googleapisSet by path, decoded on first
// use. The set is generated: a set that does not decode is a build bug,
// and panics.
var googleapis = sync.OnceValue(func() map[string]*descriptorpb.FileDescriptorProto {
	z, err := gzip.NewReader(bytes.NewReader(googleapisSet))
	if err != nil {
		panic("descsource: the embedded googleapis set: " + err.Error())
	}
	data, err := io.ReadAll(z)
	if err != nil {
		panic("descsource: the embedded googleapis set: " + err.Error())
	}
	var set descriptorpb.FileDescriptorSet
	if err := unmarshal.Unmarshal(data, &set); err != nil {
		panic("descsource: the embedded googleapis set: " + err.Error())
	}
	files := make(map[string]*descriptorpb.FileDescriptorProto, len(set.File))
	for _, fd := range set.File {
		files[fd.GetName()] = fd
	}
	return files
})

// linkedFile returns the descriptor linked into the program of a
// well-known file (google/protobuf/…), a googleapis one (google/api/…,
// google/rpc/…, google/type/…) or protovalidate's (buf/validate/…, linked
// into a program that validates: cmd/protorest), or nil. Other files
// linked in (a program's own) are never taken for a missing import.
func linkedFile(path string) protoreflect.FileDescriptor {
	if !strings.HasPrefix(path, "google/protobuf/") && !strings.HasPrefix(path, "google/api/") &&
		!strings.HasPrefix(path, "google/rpc/") && !strings.HasPrefix(path, "google/type/") &&
		!strings.HasPrefix(path, "buf/validate/") {
		return nil
	}
	fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
	if err != nil {
		return nil
	}
	return fd
}

// knownFile returns the descriptor this package supplies for a file that
// a backend, a descriptor set or the import paths lack: the one linked
// into the program (see linkedFile), else googleapisSet's, else nil.
func knownFile(path string) *descriptorpb.FileDescriptorProto {
	if fd := linkedFile(path); fd != nil {
		return protodesc.ToFileDescriptorProto(fd)
	}
	return googleapisFile(path)
}

// googleapisFile returns a copy of googleapisSet's file path, or nil.
func googleapisFile(path string) *descriptorpb.FileDescriptorProto {
	if fd, ok := googleapis()[path]; ok {
		return proto.Clone(fd).(*descriptorpb.FileDescriptorProto)
	}
	return nil
}
