package jsonenc_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"google.golang.org/protobuf/types/pluginpb"

	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/internal/jsonenc"
	"github.com/protorest/protorest/internal/jsonenc/internal/kindspb"
	"github.com/protorest/protorest/internal/jsonscan"
	"github.com/protorest/protorest/internal/protorand"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// optionSets are the protojson options the encoder must match.
var optionSets = []protojson.MarshalOptions{
	{},
	{EmitUnpopulated: true},
	{EmitDefaultValues: true},
	{UseProtoNames: true, UseEnumNumbers: true},
	{EmitUnpopulated: true, UseProtoNames: true, AllowPartial: true},
}

func encoderFor(o protojson.MarshalOptions, types *protoregistry.Types) *jsonenc.Encoder {
	opts := jsonenc.Options{
		UseProtoNames: o.UseProtoNames, UseEnumNumbers: o.UseEnumNumbers,
		EmitUnpopulated: o.EmitUnpopulated, EmitDefaultValues: o.EmitDefaultValues, AllowPartial: o.AllowPartial,
	}
	if types != nil {
		opts.Resolver = types
	}
	return jsonenc.New(opts)
}

// same checks that the encoder and protojson agree on m: the same bytes
// (protojson's random spaces taken out), or both an error.
func same(t *testing.T, o protojson.MarshalOptions, enc *jsonenc.Encoder, m proto.Message) {
	t.Helper()
	want, werr := o.Marshal(m)
	got, gerr := enc.Append(nil, m)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("options %+v, message %v:\nprotojson: %s, %v\njsonenc:   %s, %v", o, m, want, werr, got, gerr)
	}
	if werr != nil {
		return
	}
	if want = jsonscan.Compact(want); !bytes.Equal(got, want) {
		t.Fatalf("options %+v:\nprotojson: %s\njsonenc:   %s", o, want, got)
	}
}

func TestMatchesProtojson(t *testing.T) {
	blob := []byte{0, 1, 2, 0xfe, 0xff}
	anyBook, _ := anypb.New(&libraryv1.Book{Name: "shelves/1/books/2", Labels: map[string]string{"b": "2", "a": "1"}})
	anyTS, _ := anypb.New(timestamppb.New(timestamppb.Now().AsTime()))
	anyDur, _ := anypb.New(durationpb.New(-1500000000))
	st, _ := structpb.NewStruct(map[string]any{"s": "x", "n": 1.5, "b": true, "z": nil, "l": []any{1, "two", map[string]any{"k": false}}})
	msgs := []proto.Message{
		&confv1.Probe{},
		&confv1.Probe{
			Name: "a\"b\\c\n\t\x01<>&\u2028é😀", Id: -1 << 62, I32: math.MinInt32, U64: math.MaxUint64, Flag: true,
			Dbl: 1e21, Flt: 1e-7, Blob: blob, Color: confv1.Color(99), Tags: []string{"", "x"}, Nums: []int32{-1, 0, 1},
			Inner: &confv1.Inner{}, Items: []*confv1.Inner{{}, {}}, Labels: map[string]string{"z": "1", "a": "2", "é": "3", "": "4"},
			Ts: &timestamppb.Timestamp{Seconds: -62135596800, Nanos: 10}, Dur: &durationpb.Duration{Seconds: 3, Nanos: 1000},
			Wi32: wrapperspb.Int32(0), Wstr: wrapperspb.String(""), Val: structpb.NewNullValue(), Attrs: st,
			Choice: &confv1.Probe_OptB{OptB: ""},
		},
		&confv1.Probe{Dbl: math.NaN(), Flt: float32(math.Inf(-1)), Dur: &durationpb.Duration{Seconds: -2, Nanos: -500000000},
			Ts: &timestamppb.Timestamp{Seconds: 253402300799, Nanos: 999999999}, Val: structpb.NewListValue(&structpb.ListValue{})},
		&libraryv1.Book{Name: "n", CreateTime: timestamppb.Now(), Labels: map[string]string{"k": "v"}},
		anyBook, anyTS, anyDur,
		&pluginpb.Version{Major: proto.Int32(1), Suffix: proto.String("")}, // proto2 presence
		// String maps sorted on the stack (up to 8 entries) and in a slice.
		&confv1.Probe{Labels: labels(8)}, &confv1.Probe{Labels: labels(9)}, &confv1.Probe{Labels: labels(40)},
		// Errors both must report.
		&confv1.Probe{Name: "bad \xff utf-8"},
		&confv1.Probe{Labels: map[string]string{"\xfe": "x"}},
		&confv1.Probe{Labels: labels(20, "\xfe")},
		&confv1.Probe{Ts: &timestamppb.Timestamp{Seconds: 253402300800}},
		&confv1.Probe{Dur: &durationpb.Duration{Seconds: 1, Nanos: -1}},
		&confv1.Probe{Val: &structpb.Value{}},
		&confv1.Probe{Val: structpb.NewNumberValue(math.Inf(1))},
		&confv1.Probe{Mask: nil, Attrs: &structpb.Struct{Fields: map[string]*structpb.Value{"x": {}}}},
		&anypb.Any{TypeUrl: "type.googleapis.com/no.Such"},
		&anypb.Any{Value: []byte{1}},
		&anypb.Any{},
	}
	for _, o := range optionSets {
		enc := encoderFor(o, nil)
		for _, m := range msgs {
			same(t, o, enc, m)
		}
	}
}

// labels returns a map of n entries with keys that sort differently as
// bytes and as numbers, and the extra keys.
func labels(n int, extra ...string) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[strconv.Itoa(i*37%101)] = strconv.Itoa(i)
	}
	for _, k := range extra {
		m[k] = "x"
	}
	return m
}

func TestFieldMaskPaths(t *testing.T) {
	for _, paths := range [][]string{{"a", "b.c_d"}, {"foo_bar", "x"}, {"Bad"}, {"a__b"}, {"1a"}, {""}, {"a_1"}} {
		m := &confv1.Probe{}
		m.ProtoReflect().Set(m.ProtoReflect().Descriptor().Fields().ByName("mask"), protoreflect.ValueOfMessage(maskOf(paths).ProtoReflect()))
		for _, o := range optionSets {
			same(t, o, encoderFor(o, nil), m)
		}
	}
}

func maskOf(paths []string) proto.Message {
	md := (&confv1.Probe{}).ProtoReflect().Descriptor().Fields().ByName("mask").Message()
	mt, _ := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	m := mt.New()
	l := m.Mutable(md.Fields().ByNumber(1)).List()
	for _, p := range paths {
		l.Append(protoreflect.ValueOfString(p))
	}
	return m.Interface()
}

func compileEditions(t testing.TB) protoreflect.MessageDescriptor {
	return compileEditionsFile(t).Messages().ByName("Ed")
}

// compileEditionsFile returns protorand's editions types: editions
// presence, proto2 required fields and closed enums, through dynamic
// messages.
func compileEditionsFile(t testing.TB) protoreflect.FileDescriptor {
	t.Helper()
	fd, err := protorand.Editions()
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

func TestEditionsAndDynamic(t *testing.T) {
	md := compileEditions(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		m := dynamicpb.NewMessage(md)
		protorand.Fill(rng, m, 3)
		if i%3 == 0 {
			m.Set(md.Fields().ByName("req"), protoreflect.ValueOfInt32(int32(i)))
		}
		for _, o := range optionSets {
			same(t, o, encoderFor(o, nil), m)
		}
	}
}

// TestRandomProbes fills the fixture's Probe (every scalar kind, enums,
// maps, oneofs, well-known types) at random.
func TestRandomProbes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		m := &confv1.Probe{}
		protorand.Fill(rng, m.ProtoReflect(), 3)
		for _, o := range optionSets {
			same(t, o, encoderFor(o, nil), m)
		}
	}
}

// TestRandomKinds fills Kinds (every scalar kind, read from the Go struct,
// beside fields read through protoreflect) at random.
func TestRandomKinds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		m := &kindspb.Kinds{}
		protorand.Fill(rng, m.ProtoReflect(), 2)
		for _, o := range optionSets {
			same(t, o, encoderFor(o, nil), m)
		}
	}
}

func FuzzMatchesProtojson(f *testing.F) {
	for _, s := range []uint64{0, 1, 2, 42, 1 << 40} {
		f.Add(s, uint8(0))
	}
	md := compileEditions(f)
	f.Fuzz(func(t *testing.T, seed uint64, opt uint8) {
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		o := optionSets[int(opt)%len(optionSets)]
		var m proto.Message
		switch seed % 3 {
		case 0:
			p := &confv1.Probe{}
			protorand.Fill(rng, p.ProtoReflect(), 4)
			m = p
		case 1:
			d := dynamicpb.NewMessage(md)
			protorand.Fill(rng, d, 4)
			m = d
		default:
			k := &kindspb.Kinds{}
			protorand.Fill(rng, k.ProtoReflect(), 2)
			m = k
		}
		same(t, o, encoderFor(o, nil), m)
	})
}

// TestConcurrent builds plans and encodes from many goroutines at once
// (run with -race).
func TestConcurrent(t *testing.T) {
	o := protojson.MarshalOptions{EmitUnpopulated: true}
	enc := encoderFor(o, nil)
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for range 50 {
				var m proto.Message = &libraryv1.Book{Name: "b", Labels: map[string]string{"k": "v"}}
				if rng.IntN(2) == 0 {
					p := &confv1.Probe{}
					protorand.Fill(rng, p.ProtoReflect(), 2)
					m = p
				}
				want, werr := o.Marshal(m)
				got, gerr := enc.Append(nil, m)
				if (werr == nil) != (gerr == nil) || werr == nil && !bytes.Equal(jsonscan.Compact(want), got) {
					t.Errorf("concurrent encode differs: %s vs %s", got, want)
					return
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
}
