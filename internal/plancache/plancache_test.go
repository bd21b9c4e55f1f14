package plancache

import (
	"testing"

	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// descriptors returns n distinct message descriptors, as a reloaded
// backend's would be: the same file built again.
func descriptors(t *testing.T, n int) []protoreflect.MessageDescriptor {
	t.Helper()
	fdp := protodesc.ToFileDescriptorProto(descriptorpb.File_google_protobuf_descriptor_proto)
	var mds []protoreflect.MessageDescriptor
	for len(mds) < n {
		fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < fd.Messages().Len() && len(mds) < n; i++ {
			mds = append(mds, fd.Messages().Get(i))
		}
	}
	return mds
}

func TestCache(t *testing.T) {
	t.Parallel()
	mds := descriptors(t, 40)
	var c Cache[int]
	if _, ok := c.Load(mds[0]); ok {
		t.Fatal("empty cache has a plan")
	}
	c.Add(map[protoreflect.MessageDescriptor]int{mds[0]: 1, mds[1]: 2}, 50)
	c.Add(map[protoreflect.MessageDescriptor]int{mds[0]: 3}, 50) // another goroutine's, later
	if got, ok := c.Load(mds[0]); !ok || got != 1 {
		t.Errorf("Load = %d, %v; want the first plan kept, 1", got, ok)
	}
	if got, ok := c.Load(mds[1]); !ok || got != 2 {
		t.Errorf("Load = %d, %v; want 2", got, ok)
	}
	// Past the bound the cache starts over with the plans just added.
	for i := range 9 {
		base := 4 + 4*i
		built := map[protoreflect.MessageDescriptor]int{}
		for _, md := range mds[base : base+4] {
			built[md] = i
		}
		c.Add(built, 10)
		if n := c.Len(); n > 10 {
			t.Fatalf("%d plans kept, limit 10", n)
		}
		if got := c.Count(); got > 10 || got < int64(c.Len()) {
			t.Fatalf("Count = %d, Len = %d", got, c.Len())
		}
		if got, ok := c.Load(mds[base]); !ok || got != i {
			t.Fatalf("Load = %d, %v; want the plan just added, %d", got, ok, i)
		}
	}
}
