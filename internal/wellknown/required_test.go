package wellknown

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protoreflect"
)

const requiredProto = `
syntax = "proto2";
package req.v1;
message R { required int32 x = 1; }
message A { optional B b = 1; }
message B { optional A a = 1; optional C c = 2; }
message C { repeated R r = 1; }
message D { optional D self = 1; map<string, E> m = 2; }
message E { optional D d = 1; optional int32 y = 2; }
message F { map<string, R> m = 1; }
message G { optional group Grp = 1 { optional R r = 2; } }
message H { optional D d = 1; optional A a = 2; }
message I { optional I i = 1; oneof o { E e = 2; J j = 3; } }
message J { optional I i = 1; optional J j = 2; optional F f = 3; }
message K { optional int32 k = 1; }
`

// TestRequired compares Required with the fixpoint the codecs used to
// compute each for itself, asking in many orders (its memory must not
// depend on the order).
func TestRequired(t *testing.T) {
	t.Parallel()
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"req.proto": requiredProto}),
	}}
	files, err := c.Compile(context.Background(), "req.proto")
	if err != nil {
		t.Fatal(err)
	}
	var all []protoreflect.MessageDescriptor
	var add func(protoreflect.MessageDescriptors)
	add = func(mds protoreflect.MessageDescriptors) {
		for i := range mds.Len() {
			all = append(all, mds.Get(i))
			add(mds.Get(i).Messages()) // groups and map entries
		}
	}
	add(files[0].Messages())

	want := map[protoreflect.MessageDescriptor]bool{}
	for _, md := range all {
		want[md] = md.RequiredNumbers().Len() > 0
	}
	for changed := true; changed; {
		changed = false
		for _, md := range all {
			for i := range md.Fields().Len() {
				fd := md.Fields().Get(i)
				if fd.IsMap() {
					fd = fd.MapValue()
				}
				if m := fd.Message(); m != nil && want[m] && !want[md] {
					want[md], changed = true, true
				}
			}
		}
	}
	for name, w := range map[protoreflect.Name]bool{"A": true, "B": true, "C": true, "D": false, "E": false,
		"F": true, "G": true, "H": true, "I": true, "J": true, "K": false, "R": true} {
		if want[files[0].Messages().ByName(name)] != w {
			t.Fatalf("the oracle says %s is %v", name, !w)
		}
	}

	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var req Required
		for _, i := range rng.Perm(len(all)) {
			if got := req.CanLack(all[i]); got != want[all[i]] {
				t.Fatalf("CanLack(%s) = %v, want %v", all[i].FullName(), got, want[all[i]])
			}
		}
	}
}
