// Package protorand fills protobuf messages with random values near the
// edges of what their types hold (every scalar kind, invalid UTF-8, NaN and
// infinities, well-known types past their limits), for the differential
// tests and fuzz targets that compare protorest's codecs with protojson.
// Only tests import it.
package protorand

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

var strs = []string{"", "a", "é", "\x00", "\"\\", "\u2028", "😀", "\xff", "a_b", "Foo"}

// Fill sets random fields of m, to depth levels of messages.
func Fill(rng *rand.Rand, m protoreflect.Message, depth int) {
	fds := m.Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if rng.IntN(3) == 0 {
			continue
		}
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range rng.IntN(3) {
				if v, ok := value(rng, fd, l.NewElement, depth); ok {
					l.Append(v)
				}
			}
		case fd.IsMap():
			mm := m.Mutable(fd).Map()
			for range rng.IntN(3) {
				k, _ := value(rng, fd.MapKey(), nil, depth)
				if v, ok := value(rng, fd.MapValue(), mm.NewValue, depth); ok {
					mm.Set(k.MapKey(), v)
				}
			}
		default:
			if v, ok := value(rng, fd, func() protoreflect.Value { return m.NewField(fd) }, depth); ok {
				m.Set(fd, v)
			}
		}
	}
}

func value(rng *rand.Rand, fd protoreflect.FieldDescriptor, newMsg func() protoreflect.Value, depth int) (protoreflect.Value, bool) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(rng.IntN(2) == 0), true
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(strs[rng.IntN(len(strs))] + strs[rng.IntN(len(strs))]), true
	case protoreflect.BytesKind:
		b := make([]byte, rng.IntN(5))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return protoreflect.ValueOfBytes(b), true
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(rng.Uint32())), true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(rng.Uint64())), true
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(rng.Uint32()), true
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(rng.Uint64()), true
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(floatValue(rng))), true
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(floatValue(rng)), true
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		if rng.IntN(5) == 0 {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(rng.IntN(200))), true
		}
		return protoreflect.ValueOfEnum(vals.Get(rng.IntN(vals.Len())).Number()), true
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if depth == 0 {
			return protoreflect.Value{}, false
		}
		v := newMsg()
		wellKnown(rng, v.Message())
		if v.Message().Descriptor().FullName().Parent() != "google.protobuf" {
			Fill(rng, v.Message(), depth-1)
		}
		return v, true
	}
	return protoreflect.Value{}, false
}

// wellKnown sets the well-known types to values near and past their
// limits.
func wellKnown(rng *rand.Rand, m protoreflect.Message) {
	fds := m.Descriptor().Fields()
	switch m.Descriptor().FullName() {
	case "google.protobuf.Timestamp":
		secs := []int64{0, 1, -62135596800, 253402300799, 253402300800, 1700000000}[rng.IntN(6)]
		nanos := []int32{0, 1, 1000, 1000000, 999999999, 1000000000, -1}[rng.IntN(7)]
		m.Set(fds.ByNumber(1), protoreflect.ValueOfInt64(secs))
		m.Set(fds.ByNumber(2), protoreflect.ValueOfInt32(nanos))
	case "google.protobuf.Duration":
		secs := []int64{0, 1, -1, 315576000000, 315576000001, -7}[rng.IntN(6)]
		nanos := []int32{0, 1, -1, 500000000, 999999999, -999999999}[rng.IntN(6)]
		m.Set(fds.ByNumber(1), protoreflect.ValueOfInt64(secs))
		m.Set(fds.ByNumber(2), protoreflect.ValueOfInt32(nanos))
	case "google.protobuf.Value":
		switch rng.IntN(6) {
		case 0:
			m.Set(fds.ByName("null_value"), protoreflect.ValueOfEnum(0))
		case 1:
			m.Set(fds.ByName("number_value"), protoreflect.ValueOfFloat64(floatValue(rng)))
		case 2:
			m.Set(fds.ByName("string_value"), protoreflect.ValueOfString(strs[rng.IntN(len(strs))]))
		case 3:
			m.Set(fds.ByName("bool_value"), protoreflect.ValueOfBool(true))
		case 4:
			// none set: an error for both
		case 5:
			m.Set(fds.ByName("list_value"), protoreflect.ValueOfMessage(m.NewField(fds.ByName("list_value")).Message()))
		}
	case "google.protobuf.Struct", "google.protobuf.ListValue":
		// Left empty or filled by the map/list branch above.
	default:
		if m.Descriptor().FullName().Parent() == "google.protobuf" {
			Fill(rng, m, 0)
		}
	}
}

func floatValue(rng *rand.Rand) float64 {
	return []float64{0, math.Copysign(0, -1), 1, -1.5, 1e21, 1e20, 1e-6, 1e-7, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.NaN(), math.Inf(1), math.Inf(-1), float64(math.MaxFloat32), 3.4e38}[rng.IntN(16)]
}

// editionsFile holds editions presence, closed enums, required fields,
// maps of every key kind and oneofs, for tests that go through dynamic
// messages.
const editionsFile = `
edition = "2023";
package ed.v1;
import "google/protobuf/timestamp.proto";
message Ed {
  int32 explicit = 1;
  int32 implicit = 2 [features.field_presence = IMPLICIT];
  string s = 3;
  repeated int32 packed = 4;
  Ed child = 5;
  map<int64, string> by_id = 6;
  map<bool, Ed> by_flag = 7;
  map<uint32, int32> by_u = 8;
  int32 req = 9 [features.field_presence = LEGACY_REQUIRED];
  google.protobuf.Timestamp ts = 10;
  oneof o { string a = 11; int64 b = 12; }
}
enum Closed {
  option features.enum_type = CLOSED;
  C_ZERO = 0;
  C_ONE = 1;
  C_FIVE = 5;
}
// Ed2 has no required field, so that wire transcoding takes it.
message Ed2 {
  int32 explicit = 1;
  int32 implicit = 2 [features.field_presence = IMPLICIT];
  string s = 3;
  string loose = 13 [features.utf8_validation = NONE];
  repeated int32 packed = 4;
  repeated sint64 expanded = 14 [features.repeated_field_encoding = EXPANDED];
  Ed2 child = 5;
  map<int64, string> by_id = 6;
  map<bool, Ed2> by_flag = 7;
  map<uint32, Closed> by_u = 8;
  Closed closed = 9;
  repeated Closed closeds = 10;
  google.protobuf.Timestamp ts = 15;
  oneof o { string a = 11; Ed2 b = 12; }
  repeated double ds = 16;
  fixed32 f32 = 17;
  sfixed64 sf64 = 18;
}
`

// Editions returns the compiled file of message types ed.v1.Ed (with a
// required field) and ed.v1.Ed2 (without), compiled once.
func Editions() (protoreflect.FileDescriptor, error) {
	editionsOnce.Do(func() {
		c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: protocompile.SourceAccessorFromMap(map[string]string{"ed.proto": editionsFile}),
		})}
		files, err := c.Compile(context.Background(), "ed.proto")
		if err != nil {
			editionsErr = err
			return
		}
		editions, editionsErr = protodesc.NewFile(protodesc.ToFileDescriptorProto(files[0]), protoregistry.GlobalFiles)
	})
	return editions, editionsErr
}

var (
	editionsOnce sync.Once
	editions     protoreflect.FileDescriptor
	editionsErr  error
)
