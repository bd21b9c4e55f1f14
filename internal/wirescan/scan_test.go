package wirescan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/protorand"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// testFiles are the types the scan is compared on besides conf.v1.Probe
// and protorand's editions types: proto2 groups, required fields reached
// every way a message can be held (singular, repeated, map values, oneof
// members, groups), extension ranges, a sparse field number, and editions
// delimited fields.
var testFiles = map[string]string{
	"p2.proto": `
syntax = "proto2";
package scan.v1;
message Req {
  required int32 id = 1;
  optional string name = 2;
  optional Req next = 3;
}
enum Kind { K0 = 0; K1 = 1; }
message P2 {
  optional int32 a = 1;
  optional string s = 2;
  optional Req req = 3;
  repeated Req reqs = 4;
  map<string, Req> by_name = 5;
  map<sint32, Req> by_s32 = 6;
  map<bool, Req> by_flag = 7;
  map<fixed64, string> f64s = 8;
  optional group G = 9 {
    optional int32 x = 10;
    optional Req gr = 11;
    optional group H = 12 { optional int32 y = 13; optional G g = 14; }
  }
  repeated group RG = 15 { required int32 z = 16; }
  oneof o {
    Req o_req = 17;
    int32 o_int = 18;
    P2 o_self = 19;
  }
  optional P2 child = 20;
  repeated sint64 packed = 21 [packed = true];
  repeated fixed32 unpacked = 22;
  optional bytes blob = 23;
  optional double d = 24;
  optional Kind kind = 25;
  map<int32, Kind> kinds = 26;
  optional Req big = 100000;
  extensions 1000 to 2000;
}
extend P2 { optional int32 ext_int = 1000; }
`,
	"ed3.proto": `
edition = "2023";
package scan.v2;
message Leaf { int32 x = 1 [features.field_presence = LEGACY_REQUIRED]; string v = 2; }
message D {
  D child = 1 [features.message_encoding = DELIMITED];
  repeated D kids = 2 [features.message_encoding = DELIMITED];
  Leaf leaf = 3 [features.message_encoding = DELIMITED];
  string loose = 4 [features.utf8_validation = NONE];
  string strict = 5;
  map<string, Leaf> leaves = 6;
  repeated string names = 7;
}
`,
}

var (
	typesOnce sync.Once
	testTypes map[string]protoreflect.MessageDescriptor
	testExts  *protoregistry.Types
	typesErr  error
)

// messageTypes returns the message types the tests scan, by name.
func messageTypes(t testing.TB) map[string]protoreflect.MessageDescriptor {
	t.Helper()
	typesOnce.Do(func() {
		testTypes = map[string]protoreflect.MessageDescriptor{
			"probe": (&confv1.Probe{}).ProtoReflect().Descriptor(),
		}
		ed, err := protorand.Editions()
		if err != nil {
			typesErr = err
			return
		}
		testTypes["ed"] = ed.Messages().ByName("Ed")
		testTypes["ed2"] = ed.Messages().ByName("Ed2")
		c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: protocompile.SourceAccessorFromMap(testFiles),
		})}
		files, err := c.Compile(context.Background(), "p2.proto", "ed3.proto")
		if err != nil {
			typesErr = err
			return
		}
		testExts = new(protoregistry.Types)
		for _, f := range files {
			fd, err := protodesc.NewFile(protodesc.ToFileDescriptorProto(f), protoregistry.GlobalFiles)
			if err != nil {
				typesErr = err
				return
			}
			for i := range fd.Messages().Len() {
				md := fd.Messages().Get(i)
				testTypes[string(md.Name())] = md
			}
			for i := range fd.Extensions().Len() {
				testExts.RegisterExtension(dynamicpb.NewExtensionType(fd.Extensions().Get(i)))
			}
		}
	})
	if typesErr != nil {
		t.Fatal(typesErr)
	}
	return testTypes
}

// typeNames orders messageTypes' keys, for the fuzz target's selector.
var typeNames = []string{"probe", "ed", "ed2", "Req", "P2", "D", "Leaf"}

var errPanic = errors.New("proto.Unmarshal panicked")

// reference is what the scan must agree with: the gateway's binary codec
// (proto.UnmarshalOptions{Merge: true}) reading into a new dynamic
// message. A panic (dynamicpb has some on map entries) counts as a
// rejection.
func reference(md protoreflect.MessageDescriptor, data []byte, resolver Resolver) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", errPanic, v)
		}
	}()
	o := proto.UnmarshalOptions{Merge: true}
	if resolver != nil {
		o.Resolver = resolver.(*protoregistry.Types)
	}
	return o.Unmarshal(data, dynamicpb.NewMessage(md))
}

// agree fails t unless the scan and the reference both accept data or
// both reject it.
func agree(t testing.TB, types *Types, md protoreflect.MessageDescriptor, data []byte) {
	t.Helper()
	got := types.Message(md).Scan(data)
	want := reference(md, data, nil)
	if errors.Is(got, ErrUnsupported) {
		return
	}
	if (got == nil) != (want == nil) {
		t.Fatalf("%s: %x\nscan: %v\nproto.Unmarshal: %v", md.FullName(), data, got, want)
	}
}

// Wire-format builders for the hand-written cases.
func tag(num protowire.Number, typ protowire.Type) []byte {
	return protowire.AppendTag(nil, num, typ)
}

func varint(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(tag(num, protowire.VarintType), v)
}

func lenField(num protowire.Number, parts ...[]byte) []byte {
	v := bytes.Join(parts, nil)
	return protowire.AppendBytes(tag(num, protowire.BytesType), v)
}

func group(num protowire.Number, parts ...[]byte) []byte {
	b := tag(num, protowire.StartGroupType)
	b = append(b, bytes.Join(parts, nil)...)
	return append(b, tag(num, protowire.EndGroupType)...)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// nest wraps inner in n levels of the message field num.
func nest(n int, num protowire.Number, inner []byte) []byte {
	// sizes[i] is the length of the value i levels out from inner.
	sizes := make([]int, n+1)
	sizes[0] = len(inner)
	t := tag(num, protowire.BytesType)
	for i := 1; i <= n; i++ {
		sizes[i] = len(t) + protowire.SizeVarint(uint64(sizes[i-1])) + sizes[i-1]
	}
	b := make([]byte, 0, sizes[n])
	for i := n; i >= 1; i-- {
		b = append(b, t...)
		b = protowire.AppendVarint(b, uint64(sizes[i-1]))
	}
	return append(b, inner...)
}

// nestGroups wraps inner in n levels of the group field num.
func nestGroups(n int, num protowire.Number, inner []byte) []byte {
	// Built inside out, as one allocation: n start tags, inner, n end tags.
	start, stop := tag(num, protowire.StartGroupType), tag(num, protowire.EndGroupType)
	return cat(bytes.Repeat(start, n), inner, bytes.Repeat(stop, n))
}

func TestScan(t *testing.T) {
	t.Parallel()
	ts := messageTypes(t)
	req := func(id uint64) []byte { return varint(1, id) }
	tests := []struct {
		name string
		typ  string
		data []byte
		want error // nil, ErrInvalid, ErrRequired, ErrUnsupported
	}{
		{"empty", "probe", nil, nil},
		{"scalars", "probe", cat(lenField(1, []byte("n")), varint(2, 7), varint(5, 1)), nil},
		{"unknown fields", "probe", cat(varint(999, 1), lenField(1000, []byte("\xff")), group(1001, varint(1, 1))), nil},
		{"truncated varint", "probe", []byte{0x10, 0x80}, ErrInvalid},
		{"11-byte varint", "probe", append([]byte{0x10}, bytes.Repeat([]byte{0x80}, 10)...), ErrInvalid},
		{"10-byte varint", "probe", append(append([]byte{0x10}, bytes.Repeat([]byte{0xff}, 9)...), 0x01), nil},
		{"10-byte varint overflow", "probe", append(append([]byte{0x10}, bytes.Repeat([]byte{0xff}, 9)...), 0x02), ErrInvalid},
		{"length past the end", "probe", []byte{0x0a, 0x05, 'a'}, ErrInvalid},
		{"field number 0", "probe", []byte{0x00, 0x01}, ErrInvalid},
		{"field number 2^29-1", "probe", varint(protowire.MaxValidNumber, 1), nil},
		{"field number 2^29", "probe", varint(protowire.MaxValidNumber+1, 1), ErrInvalid},
		{"reserved field numbers", "probe", varint(19000, 1), nil},
		{"wire type 6", "probe", []byte{0x0e}, ErrInvalid},
		{"wrong wire type is unknown", "probe", protowire.AppendFixed32(tag(1, protowire.Fixed32Type), 7), nil},
		{"wrong wire type, bad value", "probe", tag(1, protowire.Fixed32Type), ErrInvalid},
		{"stray end group", "probe", tag(1, protowire.EndGroupType), ErrInvalid},
		{"invalid UTF-8 proto3", "probe", lenField(1, []byte("\xff")), ErrInvalid},
		{"invalid UTF-8 repeated", "probe", lenField(10, []byte("a\xc3")), ErrInvalid},
		{"invalid UTF-8 map key", "probe", lenField(14, lenField(1, []byte("\xff")), lenField(2, []byte("v"))), ErrInvalid},
		{"invalid UTF-8 nested", "probe", lenField(12, lenField(1, []byte("\xed\xa0\x80"))), ErrInvalid},
		{"invalid UTF-8 in bytes", "probe", lenField(8, []byte("\xff")), nil},
		{"invalid UTF-8 proto2", "P2", lenField(2, []byte("\xff")), nil},
		{"invalid UTF-8 editions NONE", "D", lenField(4, []byte("\xff")), nil},
		{"invalid UTF-8 editions VERIFY", "D", lenField(5, []byte("\xff")), ErrInvalid},
		{"invalid UTF-8 repeated editions", "D", lenField(7, []byte("\xff")), ErrInvalid},
		{"packed", "probe", lenField(11, []byte{1, 0x80, 1, 3}), nil},
		{"packed truncated", "probe", lenField(11, []byte{1, 0x80}), ErrInvalid},
		{"packed fixed32 short", "P2", lenField(22, []byte{1, 2, 3}), ErrInvalid},
		{"packed fixed32", "P2", lenField(22, []byte{1, 2, 3, 4}), nil},
		{"unpacked into packed", "P2", cat(varint(21, 3), varint(21, 4)), nil},
		{"closed enum unknown value", "P2", varint(25, 77), nil},
		{"depth 10000", "ed2", nest(9999, 5, nil), nil},
		{"depth 10001", "ed2", nest(10000, 5, nil), ErrInvalid},
		{"map entry depth", "ed2", nest(9998, 5, lenField(6)), nil},
		{"map entry depth + 1", "ed2", nest(9999, 5, lenField(6)), ErrInvalid},
		{"map entry depth + 1, wrong wire type", "ed2", nest(9999, 5, varint(6, 1)), ErrInvalid},
		{"map entry depth, wrong wire type", "ed2", nest(9998, 5, varint(6, 1)), nil},
		{"message depth + 1, wrong wire type", "ed2", nest(9999, 5, varint(5, 1)), nil},
		{"map entry wrong wire type", "probe", varint(14, 1), nil},
		{"map value message depth", "ed2", nest(9997, 5, lenField(7, lenField(2))), nil},
		{"map value message depth + 1", "ed2", nest(9998, 5, lenField(7, lenField(2))), ErrInvalid},
		{"map key repeated", "probe", lenField(14, lenField(1, []byte("a")), lenField(1, []byte("b"))), nil},
		{"map key wrong wire type alone", "probe", lenField(14, varint(1, 1)), nil},
		{"map key wrong wire type after a key", "probe", lenField(14, lenField(1, []byte("a")), varint(1, 1)), ErrInvalid},
		{"map key valid again", "probe", lenField(14, lenField(1, []byte("a")), varint(1, 1), lenField(1, []byte("b"))), nil},
		{"map value wrong wire type", "probe", lenField(14, lenField(1, []byte("a")), varint(2, 1)), nil},
		{"map entry unknown field", "probe", lenField(14, varint(3, 1), group(4)), nil},
		{"map entry field 2^29", "probe", lenField(14, varint(protowire.MaxValidNumber+1, 1)), ErrInvalid},
		{"group", "P2", group(9, varint(10, 1), group(12, varint(13, 2))), nil},
		{"group unterminated", "P2", cat(tag(9, protowire.StartGroupType), varint(10, 1)), ErrInvalid},
		{"group wrong end", "P2", cat(tag(9, protowire.StartGroupType), tag(10, protowire.EndGroupType)), ErrInvalid},
		{"group non-minimal end tag", "P2", cat(tag(9, protowire.StartGroupType), []byte{0x4c | 0x80, 0x80, 0x00}), nil},
		{"group as bytes is unknown", "P2", lenField(9, []byte{1, 2}), nil},
		{"unknown group with big numbers", "P2", group(500, varint(protowire.MaxValidNumber+1, 1)), nil},
		{"known group with big numbers", "P2", group(9, varint(protowire.MaxValidNumber+1, 1)), ErrInvalid},
		{"known group holding unknown group with big numbers", "P2", group(9, group(500, varint(protowire.MaxValidNumber+1, 1))), nil},
		{"unknown groups 10001 deep", "probe", nestGroups(10001, 500, nil), nil},
		{"unknown groups 10002 deep", "probe", nestGroups(10002, 500, nil), ErrInvalid},
		{"required missing", "Req", nil, ErrRequired},
		{"required set", "Req", req(0), nil},
		{"required set by a wrong wire type", "Req", protowire.AppendFixed32(tag(1, protowire.Fixed32Type), 0), ErrRequired},
		{"required in a nested message", "P2", lenField(3), ErrRequired},
		{"required in a nested message, merged", "P2", cat(lenField(3, lenField(2, []byte("x"))), lenField(3, req(1))), nil},
		{"required deeper, merged", "P2", cat(lenField(3, lenField(3)), lenField(3, req(1), lenField(3, req(2)))), nil},
		{"required deeper, not merged", "P2", cat(lenField(3, lenField(3)), lenField(3, req(1))), ErrRequired},
		{"required in a list element", "P2", cat(lenField(4, req(1)), lenField(4)), ErrRequired},
		{"required in list elements", "P2", cat(lenField(4, req(1)), lenField(4, req(2))), nil},
		{"required in a map value", "P2", lenField(5, lenField(1, []byte("k")), lenField(2)), ErrRequired},
		{"required in a missing map value", "P2", lenField(5, lenField(1, []byte("k"))), ErrRequired},
		{"required in a map value, merged in the entry", "P2", lenField(5, lenField(2), lenField(2, req(1))), nil},
		{"required in a map value, replaced", "P2", cat(lenField(5, lenField(1, []byte("k")), lenField(2)), lenField(5, lenField(2, req(1)), lenField(1, []byte("k")))), nil},
		{"required in a map value, replacing", "P2", cat(lenField(5, lenField(2, req(1))), lenField(5, lenField(2))), ErrRequired},
		{"required in a map value, other key", "P2", cat(lenField(5, lenField(1, []byte("k")), lenField(2)), lenField(5, lenField(1, []byte("j")), lenField(2, req(1)))), ErrRequired},
		{"sint32 keys compare by value", "P2", cat(lenField(6, varint(1, 2), lenField(2)), lenField(6, varint(1, 2|1<<32), lenField(2, req(1)))), nil},
		{"bool keys compare by truth", "P2", cat(lenField(7, varint(1, 5), lenField(2)), lenField(7, varint(1, 1), lenField(2, req(1)))), nil},
		{"required in a oneof member, replaced", "P2", cat(lenField(17), varint(18, 1)), nil},
		{"required in a oneof member, replacing", "P2", cat(varint(18, 1), lenField(17)), ErrRequired},
		{"required in a oneof member, merged", "P2", cat(lenField(17), lenField(17, req(1))), nil},
		{"required in a oneof member, dropped then set", "P2", cat(lenField(17, req(1)), varint(18, 1), lenField(17)), ErrRequired},
		{"oneof member with the wrong wire type", "P2", cat(lenField(17), protowire.AppendFixed32(tag(18, protowire.Fixed32Type), 1)), ErrRequired},
		{"required in a group", "P2", group(9, lenField(11)), ErrRequired},
		{"required in a repeated group", "P2", cat(group(15, varint(16, 1)), group(15)), ErrRequired},
		{"required under a sparse number", "P2", lenField(100000), ErrRequired},
		{"required in a recursive oneof", "P2", lenField(19, lenField(19, lenField(3))), ErrRequired},
		{"unknown extension", "P2", varint(1001, 1), nil},
		{"editions required", "D", lenField(6, lenField(1, []byte("k")), lenField(2, varint(1, 0))), nil},
		{"editions required missing", "D", lenField(6, lenField(2)), ErrRequired},
		{"delimited", "D", group(1, group(1), group(3, varint(1, 1))), nil},
		{"delimited required missing", "D", group(1, group(3)), ErrRequired},
		{"delimited as bytes is unknown", "D", lenField(3, []byte{}), nil},
		{"ed required", "ed", varint(9, 0), nil},
		{"ed required missing", "ed", varint(1, 0), ErrRequired},
		{"ed map value required", "ed", cat(varint(9, 0), lenField(7, varint(1, 1), lenField(2))), ErrRequired},
	}
	types := NewTypes(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			md := ts[tt.typ]
			got := types.Message(md).Scan(tt.data)
			if !errors.Is(got, tt.want) || (tt.want == nil) != (got == nil) {
				t.Errorf("Scan = %v, want %v", got, tt.want)
			}
			want := reference(md, tt.data, nil)
			if (got == nil) != (want == nil) {
				t.Errorf("Scan = %v, proto.Unmarshal = %v", got, want)
			}
		})
	}
}

// TestScanExtension: a field number in an extension range is unknown
// unless the resolver knows the extension; then Scan declines.
func TestScanExtension(t *testing.T) {
	t.Parallel()
	md := messageTypes(t)["P2"]
	data := varint(1000, 5)
	if err := New(md, nil).Scan(data); err != nil {
		t.Errorf("global types: %v", err)
	}
	if err := New(md, testExts).Scan(data); !errors.Is(err, ErrUnsupported) {
		t.Errorf("with the extension: %v, want ErrUnsupported", err)
	}
	if err := New(md, testExts).Scan(varint(1001, 5)); err != nil {
		t.Errorf("another number: %v", err)
	}
}

// TestScanGroupLimits pins the group-nesting limits at their edges:
// protowire.ConsumeGroup measures a known group first, so the groups in
// it nest one level less than on their own.
func TestScanGroupLimits(t *testing.T) {
	t.Parallel()
	md := messageTypes(t)["P2"]
	types := NewTypes(nil)
	for _, known := range []int{1, 2, 3, 100, 2000} {
		// A group known levels deep (G, H, G, H… as P2.G holds H and H
		// holds a G), then unknown nested groups, around the limit.
		for unknown := max(0, 10002-known-3); unknown <= 10002-known+3; unknown++ {
			var start, end []byte
			for i := range known {
				num := protowire.Number(9)
				switch {
				case i == 0:
				case i%2 == 1:
					num = 12
				default:
					num = 14
				}
				start = append(start, tag(num, protowire.StartGroupType)...)
				end = append(tag(num, protowire.EndGroupType), end...)
			}
			inner := cat(start, nestGroups(unknown, 500, nil), end)
			agree(t, types, md, inner)
		}
	}
}

// TestScanDifferential compares the scan with proto.Unmarshal on random
// valid messages of every test type and on mutations of them.
func TestScanDifferential(t *testing.T) {
	t.Parallel()
	ts := messageTypes(t)
	types := NewTypes(nil)
	rng := rand.New(rand.NewPCG(1, 2))
	n := 400
	if testing.Short() {
		n = 50
	}
	for _, name := range typeNames {
		md := ts[name]
		for range n {
			data := randomMessage(rng, md)
			agree(t, types, md, data)
			for range 4 {
				agree(t, types, md, mutate(rng, data))
			}
		}
	}
}

// randomMessage returns a random message of type md, marshaled: one
// proto.Marshal accepts (valid UTF-8), missing required fields half the
// time; nil when none comes up.
func randomMessage(rng *rand.Rand, md protoreflect.MessageDescriptor) []byte {
	partial := rng.IntN(2) == 0
	for range 50 {
		m := dynamicpb.NewMessage(md)
		protorand.Fill(rng, m, 3)
		if b, err := (proto.MarshalOptions{AllowPartial: partial}).Marshal(m); err == nil {
			return b
		}
	}
	return nil
}

// mutate returns a changed copy of data: bytes flipped, cut, duplicated,
// inserted or spliced, as a fuzzer would.
func mutate(rng *rand.Rand, data []byte) []byte {
	b := bytes.Clone(data)
	for range 1 + rng.IntN(3) {
		switch op := rng.IntN(7); {
		case op == 0 && len(b) > 0:
			b[rng.IntN(len(b))] ^= byte(1 << rng.IntN(8))
		case op == 1 && len(b) > 0:
			b = b[:rng.IntN(len(b))]
		case op == 2 && len(b) > 0:
			i := rng.IntN(len(b))
			j := i + rng.IntN(len(b)-i+1)
			b = append(b[:j:j], append(bytes.Clone(b[i:j]), b[j:]...)...)
		case op == 3:
			i := rng.IntN(len(b) + 1)
			ins := []byte{byte(rng.Uint32()), byte(rng.Uint32())}[:1+rng.IntN(2)]
			b = append(b[:i:i], append(ins, b[i:]...)...)
		case op == 4:
			// A random tag with a small value, of a plausible field.
			num := protowire.Number(1 + rng.IntN(30))
			typ := protowire.Type(rng.IntN(6))
			field := protowire.AppendTag(nil, num, typ)
			switch typ {
			case protowire.VarintType:
				field = protowire.AppendVarint(field, rng.Uint64()>>rng.IntN(64))
			case protowire.Fixed32Type:
				field = protowire.AppendFixed32(field, rng.Uint32())
			case protowire.Fixed64Type:
				field = protowire.AppendFixed64(field, rng.Uint64())
			case protowire.BytesType:
				field = protowire.AppendBytes(field, []byte("\x08\x01\xff"[:rng.IntN(4)]))
			}
			i := rng.IntN(len(b) + 1)
			b = append(b[:i:i], append(field, b[i:]...)...)
		case op == 5:
			b = append(b, b...)
		case op == 6 && len(b) > 0:
			b = b[rng.IntN(len(b)):]
		}
	}
	return b
}

func FuzzScan(f *testing.F) {
	ts := messageTypes(f)
	rng := rand.New(rand.NewPCG(3, 4))
	for i, name := range typeNames {
		for range 4 {
			f.Add(randomMessage(rng, ts[name]), uint8(i))
		}
	}
	f.Add([]byte("r\r\n\x040000\r000000"), uint8(0))
	f.Add(lenField(14, lenField(1, []byte("a")), varint(1, 1)), uint8(0))
	f.Add(cat(lenField(5, lenField(1, []byte("k")), lenField(2)), lenField(5, lenField(2, varint(1, 1)), lenField(1, []byte("k")))), uint8(4))
	f.Add(group(9, group(12, group(14, varint(10, 1)))), uint8(4))
	types := NewTypes(nil)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		agree(t, types, ts[typeNames[int(which)%len(typeNames)]], data)
	})
}

// TestScanAllocs: no allocation for a type without required fields, for
// valid input and rejected input alike.
func TestScanAllocs(t *testing.T) {
	ts := messageTypes(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, name := range []string{"probe", "ed2"} {
		md := ts[name]
		m := New(md, nil)
		var data []byte
		for len(data) < 200 {
			data = randomMessage(rng, md)
			if m.Scan(data) != nil {
				data = nil
			}
		}
		if n := testing.AllocsPerRun(100, func() { _ = m.Scan(data) }); n != 0 {
			t.Errorf("%s: %v allocations per Scan, want 0", name, n)
		}
		// Cutting the last byte leaves the last value incomplete.
		if m.Scan(data[:len(data)-1]) == nil {
			t.Fatalf("%s: a truncated message scanned as valid", name)
		}
		if n := testing.AllocsPerRun(100, func() { _ = m.Scan(data[:len(data)-1]) }); n != 0 {
			t.Errorf("%s, rejected: %v allocations per Scan, want 0", name, n)
		}
	}
}

func BenchmarkScan(b *testing.B) {
	ts := messageTypes(b)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, name := range []string{"probe", "ed2", "P2"} {
		md := ts[name]
		m := New(md, nil)
		var data []byte
		for len(data) < 300 {
			data = randomMessage(rng, md)
			if m.Scan(data) != nil {
				data = nil
			}
		}
		b.Run(name+"/scan", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := m.Scan(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(data, dynamicpb.NewMessage(md)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
