package gostruct_test

import (
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/gostruct"
	"github.com/protorest/protorest/internal/protorand"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestSetScalar writes random values of every Scalar field of the fixture's
// Probe into its Go struct and through protoreflect: the messages must be
// equal.
func TestSetScalar(t *testing.T) {
	md := (&confv1.Probe{}).ProtoReflect().Descriptor()
	l := gostruct.Find(md)
	if l == nil {
		t.Fatal("no layout for a generated message")
	}
	kinds := map[gostruct.Kind]int{}
	for _, f := range l.Fields {
		kinds[f.Kind]++
	}
	for _, k := range []gostruct.Kind{gostruct.Scalar, gostruct.Message, gostruct.StringList, gostruct.StringMap, gostruct.MessageList} {
		if kinds[k] == 0 {
			t.Errorf("Probe has no field of kind %d", k)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		src := &confv1.Probe{}
		protorand.Fill(rng, src.ProtoReflect(), 1)
		direct, reflected := &confv1.Probe{}, &confv1.Probe{}
		sv, ok := l.Struct(direct.ProtoReflect())
		if !ok {
			t.Fatal("Struct does not take the layout's own type")
		}
		for num, f := range l.Fields {
			fd := md.Fields().ByNumber(num)
			if f.Kind != gostruct.Scalar || !src.ProtoReflect().Has(fd) {
				continue
			}
			v := src.ProtoReflect().Get(fd)
			gostruct.SetScalar(sv.Field(f.Index), fd.Kind(), v)
			reflected.ProtoReflect().Set(fd, v)
		}
		if !proto.Equal(direct, reflected) {
			t.Fatalf("direct %v\nreflect %v", direct, reflected)
		}
	}
}

// TestNoLayout checks that messages without a generated type have none.
func TestNoLayout(t *testing.T) {
	fd, err := protorand.Editions()
	if err != nil {
		t.Fatal(err)
	}
	if l := gostruct.Find(fd.Messages().ByName("Ed2")); l != nil {
		t.Errorf("a dynamic message type has a layout: %v", l)
	}
	if _, ok := (*gostruct.Layout)(nil).Struct((&confv1.Probe{}).ProtoReflect()); ok {
		t.Error("a nil layout takes a message")
	}
	l := gostruct.Find((&confv1.Probe{}).ProtoReflect().Descriptor())
	if _, ok := l.Struct((&confv1.Inner{}).ProtoReflect()); ok {
		t.Error("a layout takes a message of another type")
	}
	// A oneof member and a field with presence stay on protoreflect.
	for _, name := range []protoreflect.Name{"opt_a", "wi32"} {
		fd := (&confv1.Probe{}).ProtoReflect().Descriptor().Fields().ByName(name)
		if f, ok := l.Fields[fd.Number()]; ok && f.Kind == gostruct.Scalar {
			t.Errorf("%s is written directly", name)
		}
	}
}
