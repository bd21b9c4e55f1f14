package jsonenc

import (
	"testing"

	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestPlanCacheBounded: plans of descriptors that keep changing do not
// pile up past maxPlans, and encoding still works after the cache starts
// over.
func TestPlanCacheBounded(t *testing.T) {
	defer func(old int64) { maxPlans = old }(maxPlans)
	maxPlans = 50
	e := New(Options{})
	md := (&confv1.Probe{}).ProtoReflect().Descriptor()
	for range 40 {
		if _, err := e.Append(nil, dynamicpb.NewMessage(md)); err != nil {
			t.Fatal(err)
		}
		// A reloaded backend: the same file, new descriptors each time.
		fd, err := protodesc.NewFile(protodesc.ToFileDescriptorProto(md.ParentFile()), protoregistry.GlobalFiles)
		if err != nil {
			t.Fatal(err)
		}
		fresh := dynamicpb.NewMessage(fd.Messages().ByName(md.Name()))
		if fresh.Descriptor() == md {
			t.Fatal("not a new descriptor")
		}
		if _, err := e.Append(nil, fresh); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.plans.Len(); n > 50 {
		t.Errorf("%d plans cached, limit 50", n)
	}
	if got := e.plans.Count(); got > 50 {
		t.Errorf("count %d", got)
	}
}
