package jsondec_test

import (
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/jsondec"
	"github.com/protorest/protorest/internal/protorand"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// unmarshalOptions are the protojson options the decoder must match.
var unmarshalOptions = []protojson.UnmarshalOptions{
	{},
	{DiscardUnknown: true},
	{AllowPartial: true},
	{DiscardUnknown: true, RecursionLimit: 3},
}

// agree decodes data into a new message of md both ways. When the
// decoder decides by itself, protojson must take the input too and build
// an equal message; decided reports whether it did, valid whether
// protojson takes the input. Unmarshal, with
// protojson behind it, must answer exactly as protojson: the same message
// or the same error text.
func agree(t *testing.T, o protojson.UnmarshalOptions, md protoreflect.MessageDescriptor, data []byte) (decided, valid bool) {
	t.Helper()
	dec := jsondec.New(o, 0)
	want := newMessage(md)
	werr := o.Unmarshal(data, want)

	got := newMessage(md)
	if dec.TryUnmarshal(data, got) {
		decided = true
		if werr != nil {
			t.Fatalf("options %+v, %s:\ndecoder took %q, protojson refused: %v", o, md.FullName(), data, werr)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("options %+v, %s, input %q:\ndecoder:   %v\nprotojson: %v", o, md.FullName(), data, got, want)
		}
	}

	full := newMessage(md)
	err := dec.Unmarshal(data, full)
	switch {
	case (err == nil) != (werr == nil):
		t.Fatalf("options %+v, %s, input %q: Unmarshal %v, protojson %v", o, md.FullName(), data, err, werr)
	case err != nil && err.Error() != werr.Error():
		t.Fatalf("options %+v, input %q: error %q, protojson %q", o, data, err, werr)
	case err == nil && !proto.Equal(full, want):
		t.Fatalf("options %+v, %s, input %q:\nUnmarshal: %v\nprotojson: %v", o, md.FullName(), data, full, want)
	}
	return decided, werr == nil
}

func newMessage(md protoreflect.MessageDescriptor) proto.Message {
	if md.FullName() == "protorest.conf.v1.Probe" {
		return &confv1.Probe{}
	}
	return dynamicpb.NewMessage(md)
}

// messageTypes are the types the tests decode: the fixture's Probe (every
// scalar kind, maps, oneofs, well-known types; a generated Go type) and
// the editions types (explicit and implicit presence, closed enums, maps
// of every key kind, a required field; dynamic messages).
func messageTypes(t testing.TB) []protoreflect.MessageDescriptor {
	fd, err := protorand.Editions()
	if err != nil {
		t.Fatal(err)
	}
	return []protoreflect.MessageDescriptor{
		(&confv1.Probe{}).ProtoReflect().Descriptor(),
		fd.Messages().ByName("Ed2"),
		fd.Messages().ByName("Ed"),
	}
}

// TestRandomMessages decodes protojson's own output for random messages
// (with its random spaces, under every marshal option): the decoder must
// decide every one by itself unless it holds a type it leaves to
// protojson, and build what protojson builds. The wire target is checked
// on the same input (see agreeWire).
func TestRandomMessages(t *testing.T) {
	marshal := []protojson.MarshalOptions{{}, {EmitUnpopulated: true}, {UseProtoNames: true, UseEnumNumbers: true}, {Multiline: true}}
	rng := rand.New(rand.NewPCG(5, 6))
	decided, wire, total := 0, 0, 0
	for _, md := range messageTypes(t) {
		for i := range 1000 {
			m := dynamicpb.NewMessage(md)
			protorand.Fill(rng, m, 3)
			mo := marshal[i%len(marshal)]
			mo.AllowPartial = true
			data, err := mo.Marshal(m)
			if err != nil {
				continue // not valid JSON for protojson either (bad UTF-8, NaN in a Value...)
			}
			total++
			o := unmarshalOptions[i%len(unmarshalOptions)]
			ok, valid := agree(t, o, md, data)
			if agreeWire(t, o, md, data) {
				wire++
			}
			if ok {
				decided++
			} else if valid && o.RecursionLimit == 0 {
				t.Errorf("decoder left valid input to protojson (options %+v): %s", o, data)
			}
		}
	}
	t.Logf("decoder decided %d of %d, wire target %d", decided, total, wire)
}

// FuzzUnmarshal feeds arbitrary bytes to both decoders (see agree).
func FuzzUnmarshal(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s), uint8(0))
	}
	types := messageTypes(f)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		md := types[int(which)%len(types)]
		o := unmarshalOptions[int(which/8)%len(unmarshalOptions)]
		agree(t, o, md, data)
	})
}
