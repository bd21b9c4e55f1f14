package descsource

import (
	"crypto/sha256"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Fingerprint identifies the services of set and the files they come
// from: two loads with the same fingerprint serve the same routes.
func (set *Set) Fingerprint() [sha256.Size]byte {
	h := sha256.New()
	for _, sd := range set.Services {
		h.Write([]byte(sd.FullName()))
		h.Write([]byte{0})
	}
	var files []protoreflect.FileDescriptor
	set.Files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		files = append(files, fd)
		return true
	})
	slices.SortFunc(files, func(a, b protoreflect.FileDescriptor) int { return strings.Compare(a.Path(), b.Path()) })
	opts := proto.MarshalOptions{Deterministic: true}
	for _, fd := range files {
		b, _ := opts.Marshal(protodesc.ToFileDescriptorProto(fd))
		h.Write(b)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}
