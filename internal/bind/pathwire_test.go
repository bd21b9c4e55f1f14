package bind

import (
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// kindsMessage is pathwire.Kinds, a proto3 message with a field of every
// scalar kind, the same kinds with presence (proto3 optional), and a
// nested message of its own type; and pathwire.Old, a proto2 message with
// a group.
var kindsMessage = sync.OnceValues(func() (protoreflect.MessageDescriptor, protoreflect.MessageDescriptor) {
	type k = descriptorpb.FieldDescriptorProto_Type
	scalars := []struct {
		name string
		typ  k
	}{
		{"i32", descriptorpb.FieldDescriptorProto_TYPE_INT32}, {"i64", descriptorpb.FieldDescriptorProto_TYPE_INT64},
		{"u32", descriptorpb.FieldDescriptorProto_TYPE_UINT32}, {"u64", descriptorpb.FieldDescriptorProto_TYPE_UINT64},
		{"s32", descriptorpb.FieldDescriptorProto_TYPE_SINT32}, {"s64", descriptorpb.FieldDescriptorProto_TYPE_SINT64},
		{"f32", descriptorpb.FieldDescriptorProto_TYPE_FIXED32}, {"f64", descriptorpb.FieldDescriptorProto_TYPE_FIXED64},
		{"sf32", descriptorpb.FieldDescriptorProto_TYPE_SFIXED32}, {"sf64", descriptorpb.FieldDescriptorProto_TYPE_SFIXED64},
		{"flt", descriptorpb.FieldDescriptorProto_TYPE_FLOAT}, {"dbl", descriptorpb.FieldDescriptorProto_TYPE_DOUBLE},
		{"b", descriptorpb.FieldDescriptorProto_TYPE_BOOL}, {"s", descriptorpb.FieldDescriptorProto_TYPE_STRING},
		{"by", descriptorpb.FieldDescriptorProto_TYPE_BYTES},
	}
	msg := &descriptorpb.DescriptorProto{Name: proto.String("Kinds")}
	n := int32(1)
	for _, s := range scalars {
		msg.Field = append(msg.Field, scalar(s.name, n, s.typ))
		n++
	}
	for i, s := range scalars {
		f := scalar("opt_"+s.name, n, s.typ)
		f.Proto3Optional = proto.Bool(true)
		f.OneofIndex = proto.Int32(int32(i))
		msg.Field = append(msg.Field, f)
		msg.OneofDecl = append(msg.OneofDecl, &descriptorpb.OneofDescriptorProto{Name: proto.String("_opt_" + s.name)})
		n++
	}
	msg.Field = append(msg.Field, enum("color", n, ".pathwire.Color"), message("sub", n+1, ".pathwire.Kinds"))
	group := scalar("grp", 2, descriptorpb.FieldDescriptorProto_TYPE_GROUP)
	group.TypeName = proto.String(".pathwire.Old.Grp")
	old := &descriptorpb.DescriptorProto{
		Name:  proto.String("Old"),
		Field: []*descriptorpb.FieldDescriptorProto{scalar("x", 1, descriptorpb.FieldDescriptorProto_TYPE_INT32), group},
		NestedType: []*descriptorpb.DescriptorProto{{
			Name:  proto.String("Grp"),
			Field: []*descriptorpb.FieldDescriptorProto{scalar("y", 3, descriptorpb.FieldDescriptorProto_TYPE_STRING)},
		}},
	}
	files := new(protoregistry.Files)
	kf, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("pathwire/kinds.proto"), Package: proto.String("pathwire"), Syntax: proto.String("proto3"),
		EnumType: []*descriptorpb.EnumDescriptorProto{{
			Name: proto.String("Color"),
			Value: []*descriptorpb.EnumValueDescriptorProto{
				{Name: proto.String("NONE"), Number: proto.Int32(0)}, {Name: proto.String("RED"), Number: proto.Int32(1)},
				{Name: proto.String("BACK"), Number: proto.Int32(-1)},
			},
		}},
		MessageType: []*descriptorpb.DescriptorProto{msg},
	}, files)
	must(err)
	must(files.RegisterFile(kf))
	of, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("pathwire/old.proto"), Package: proto.String("pathwire"), Syntax: proto.String("proto2"),
		MessageType: []*descriptorpb.DescriptorProto{old},
	}, files)
	must(err)
	return kf.Messages().ByName("Kinds"), of.Messages().ByName("Old")
})

// pathWireCase is a field path and a value for it.
type pathWireCase struct {
	md    protoreflect.MessageDescriptor
	path  string
	value string
}

// pathWireCases are the seeds of FuzzAppendPathWire and the cases of
// TestAppendPathWire: every scalar kind, with and without presence, at
// the top and nested, zero values, extremes and bad values.
func pathWireCases() []pathWireCase {
	kinds, old := kindsMessage()
	probe, extra := fixture().probe, fixture().extra
	var cases []pathWireCase
	values := map[string][]string{
		"i32": {"7", "-1", "0", "-2147483648", "2147483648", "x"}, "i64": {"-9223372036854775808", "0", "1e3"},
		"u32": {"4294967295", "0", "-1"}, "u64": {"18446744073709551615", "0"},
		"s32": {"-7", "0", "2147483647"}, "s64": {"-1", "0"}, "f32": {"1", "0"}, "f64": {"18446744073709551615", "0"},
		"sf32": {"-5", "0"}, "sf64": {"-5", "0"}, "flt": {"1.5", "0", "-0", "NaN", "-Infinity", "1e39"},
		"dbl": {"2.5e300", "0", "-0", "Infinity", "abc"}, "b": {"true", "f", "0", "yes"},
		"s": {"shelves/1", "", "\xff"}, "by": {"aGk", "", "!"}, "color": {"RED", "-1", "BACK", "NONE", "0", "5"},
	}
	for name, vals := range values {
		for _, v := range vals {
			cases = append(cases, pathWireCase{kinds, name, v}, pathWireCase{kinds, "sub.sub." + name, v})
			if name != "color" {
				cases = append(cases, pathWireCase{kinds, "opt_" + name, v}, pathWireCase{kinds, "sub.opt_" + name, v})
			}
		}
	}
	return append(cases,
		pathWireCase{probe, "name", "shelves/1/books/2"}, pathWireCase{probe, "inner.deeper.deeper.i", "7"},
		pathWireCase{probe, "ts.seconds", "12"}, pathWireCase{probe, "ts", "2017-01-15T01:30:15.01Z"},
		pathWireCase{probe, "ts", "1970-01-01T00:00:00Z"}, pathWireCase{probe, "ts", "x"}, pathWireCase{probe, "ts", "1969-12-31T23:59:59.5Z"},
		pathWireCase{probe, "dur", "1.5s"}, pathWireCase{probe, "dur", "-90m"}, pathWireCase{probe, "dur", "0s"}, pathWireCase{probe, "dur", "-0.000000001s"},
		pathWireCase{probe, "tags", "a,b"}, pathWireCase{probe, "opt_a", "x"}, pathWireCase{probe, "wi32", "5"},
		pathWireCase{extra, "s32", "-3"}, pathWireCase{old, "x", "0"}, pathWireCase{old, "grp.y", "z"},
	)
}

// checkPathWire checks AppendPathWire against SetPathValue for c: when it
// appends, its bytes (after a prefix, which must be kept) decode to the
// message SetPathValue fills; when SetPathValue fails it must not append.
func checkPathWire(t *testing.T, c pathWireCase) (appended bool) {
	t.Helper()
	f, err := ResolveField(c.md, strings.Split(c.path, "."))
	if err != nil {
		t.Fatalf("ResolveField(%s): %v", c.path, err)
	}
	prefix := []byte{0x08, 0x01}
	b, ok := f.AppendPathWire(prefix, c.value)
	want := dynamicpb.NewMessage(c.md)
	setErr := f.SetPathValue(want, c.value)
	if !ok {
		if string(b) != string(prefix) {
			t.Errorf("%s=%q: not appended, but b changed to %x", c.path, c.value, b)
		}
		return false
	}
	if setErr != nil {
		t.Fatalf("%s=%q: appended %x, but SetPathValue fails: %v", c.path, c.value, b[len(prefix):], setErr)
	}
	got := dynamicpb.NewMessage(c.md)
	if err := proto.Unmarshal(b[len(prefix):], got); err != nil {
		t.Fatalf("%s=%q: appended %x, which does not decode: %v", c.path, c.value, b[len(prefix):], err)
	}
	if !proto.Equal(got, want) {
		t.Errorf("%s=%q: appended %x, which decodes to %v; SetPathValue sets %v", c.path, c.value, b[len(prefix):], got, want)
	}
	if len(got.GetUnknown()) > 0 {
		t.Errorf("%s=%q: appended %x, which has unknown fields", c.path, c.value, b[len(prefix):])
	}
	return true
}

func TestAppendPathWire(t *testing.T) {
	appended := map[string]bool{}
	for _, c := range pathWireCases() {
		appended[c.path+"="+c.value] = checkPathWire(t, c)
	}
	// What must not be appended, and what must.
	for key, want := range map[string]bool{
		"i32=7": true, "sub.sub.i32=-1": true, "i32=0": false, "opt_i32=0": true, "sub.opt_dbl=0": true,
		"flt=-0": true, "flt=0": false, "flt=NaN": true, "dbl=-0": true, "s=": false, "opt_s=": true, "by=": false, "b=f": false,
		"opt_b=f": true, "color=NONE": false, "color=BACK": true, "i32=x": false, "s=\xff": false,
		"name=shelves/1/books/2": true, "inner.deeper.deeper.i=7": true, "ts.seconds=12": true,
		"ts=2017-01-15T01:30:15.01Z": true, "ts=1970-01-01T00:00:00Z": true, "ts=x": false, "dur=1.5s": true, "dur=-90m": true, "dur=0s": true, "tags=a,b": false, "opt_a=x": false, "wi32=5": false,
		"s32=-3": true, "x=0": true, "grp.y=z": false,
	} {
		if got, ok := appended[key]; !ok || got != want {
			t.Errorf("%s: appended %v, want %v", key, got, want)
		}
	}
}

// FuzzAppendPathWire checks AppendPathWire against SetPathValue on any
// value for each field of pathWireCases.
func FuzzAppendPathWire(f *testing.F) {
	cases := pathWireCases()
	for i, c := range cases {
		f.Add(uint(i), c.value)
	}
	f.Fuzz(func(t *testing.T, i uint, value string) {
		c := cases[i%uint(len(cases))]
		c.value = value
		checkPathWire(t, c)
	})
}

func BenchmarkAppendPathWire(b *testing.B) {
	kinds, _ := kindsMessage()
	for _, c := range []pathWireCase{
		{fixture().probe, "name", "shelves/1/books/2"},
		{kinds, "sub.sub.i64", "-1234567890"},
	} {
		b.Run(c.path, func(b *testing.B) {
			f := resolve(b, c.md, strings.Split(c.path, ".")...)
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := f.AppendPathWire(buf[:0], c.value); !ok {
					b.Fatal("not appended")
				}
			}
		})
	}
}
