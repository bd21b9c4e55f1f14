package jsonenc_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/jsonenc"
	"github.com/protorest/protorest/internal/protorand"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// sameWire checks AppendWire(md, data) against what Append writes for the
// dynamic message proto.Unmarshal makes of data: the same bytes, or both
// an error. ErrUnsupported is a fallback, not a difference; compared
// says whether there was a comparison.
func sameWire(t *testing.T, o protojson.MarshalOptions, enc *jsonenc.Encoder, md protoreflect.MessageDescriptor, data []byte) (compared bool) {
	t.Helper()
	got, gerr := enc.AppendWire(nil, md, data)
	if errors.Is(gerr, jsonenc.ErrUnsupported) {
		return false
	}
	m := dynamicpb.NewMessage(md)
	var want []byte
	werr, panicked := unmarshalDynamic(data, m)
	if panicked {
		// protobuf-go v1.36.12 panics unmarshalling a dynamic map entry
		// whose key comes twice, the second time with a wire type the key
		// cannot take ("cannot convert nil to map key"); AppendWire
		// keeps the first key, as the wire format says.
		return false
	}
	if werr == nil {
		want, werr = enc.Append(nil, m)
	}
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("options %+v, data %x:\nunmarshal+Append: %s, %v\nAppendWire:       %s, %v", o, data, want, werr, got, gerr)
	}
	if werr == nil && !bytes.Equal(got, want) {
		t.Fatalf("options %+v, data %x:\nunmarshal+Append: %s\nAppendWire:       %s", o, data, want, got)
	}
	return true
}

func TestAppendWire(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ed2 := compileEditionsFile(t).Messages().ByName("Ed2")
	probe := (&confv1.Probe{}).ProtoReflect().Descriptor()
	// A fallback (ErrUnsupported) compares nothing: each type must be
	// compared for the test to mean anything.
	compared := map[protoreflect.MessageDescriptor]int{}
	for range 400 {
		for _, md := range []protoreflect.MessageDescriptor{probe, ed2} {
			a, b := dynamicpb.NewMessage(md), dynamicpb.NewMessage(md)
			protorand.Fill(rng, a, 3)
			protorand.Fill(rng, b, 3)
			da, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(a)
			db, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(b)
			for _, o := range optionSets {
				enc := encoderFor(o, nil)
				if sameWire(t, o, enc, md, da) {
					compared[md]++
				}
				// Concatenated encodings merge: last scalar wins, lists
				// append, messages merge, a oneof keeps its last member.
				if sameWire(t, o, enc, md, append(append([]byte{}, da...), db...)) {
					compared[md]++
				}
			}
		}
	}
	for _, md := range []protoreflect.MessageDescriptor{probe, ed2} {
		t.Logf("%s: %d encodings compared", md.FullName(), compared[md])
		if compared[md] == 0 {
			t.Errorf("%s: AppendWire fell back on every encoding; nothing was compared", md.FullName())
		}
	}
}

func FuzzAppendWire(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	probe := (&confv1.Probe{}).ProtoReflect().Descriptor()
	for range 8 {
		m := dynamicpb.NewMessage(probe)
		protorand.Fill(rng, m, 2)
		b, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
		f.Add(b, uint8(0))
	}
	ed := compileEditionsFile(f).Messages().ByName("Ed2")
	f.Fuzz(func(t *testing.T, data []byte, opt uint8) {
		o := optionSets[int(opt)%len(optionSets)]
		md := probe
		if opt&0x80 != 0 {
			md = ed
		}
		sameWire(t, o, encoderFor(o, nil), md, data)
	})
}

func unmarshalDynamic(data []byte, m proto.Message) (err error, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	return proto.Unmarshal(data, m), false
}
