package codec

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/protorand"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestAppendFieldMatchesProtojson: for random messages and every field
// that is not a singular message (what a response_body renders through
// AppendField), the compiled encoder writes what protojson writes for a
// message holding only that field, under several option sets; and the
// compiled path is taken, not the fallback. Errors (invalid UTF-8) must
// agree; their bytes are not used.
func TestAppendFieldMatchesProtojson(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, opts := range []protojson.MarshalOptions{
		{EmitUnpopulated: true},
		{},
		{UseProtoNames: true, UseEnumNumbers: true},
		{EmitDefaultValues: true},
	} {
		c := &JSON{MarshalOptions: opts}
		compared := 0
		for range 300 {
			m := &confv1.Probe{}
			if rng.IntN(4) != 0 {
				protorand.Fill(rng, m.ProtoReflect(), 3)
			}
			// The generated message (fields read from its Go struct) and a
			// dynamic copy (read through protoreflect, as remote responses).
			dyn := dynamicpb.NewMessage(m.ProtoReflect().Descriptor())
			proto.Merge(dyn, m)
			for _, msg := range []proto.Message{m, dyn} {
				fields := msg.ProtoReflect().Descriptor().Fields()
				for i := range fields.Len() {
					fd := fields.Get(i)
					if fd.Message() != nil && !fd.IsList() && !fd.IsMap() {
						continue
					}
					want, werr := c.fieldOf(msg.ProtoReflect(), fd)
					got, gerr := c.AppendField([]byte("prefix"), msg, fd)
					if (werr != nil) != (gerr != nil) || werr == nil && !bytes.Equal(got, append([]byte("prefix"), want...)) {
						t.Fatalf("%+v, field %s of %v:\nprotojson: %s, %v\nAppendField: %s, %v", opts, fd.Name(), msg, want, werr, got, gerr)
					}
					compared++
				}
			}
		}
		if _, err := c.fieldEnc.AppendField(nil, &confv1.Probe{}, confv1.File_internal_testpb_conf_v1_conf_proto.Messages().ByName("Probe").Fields().ByName("tags")); err != nil {
			t.Errorf("%+v: the compiled path does not take Probe.tags: %v", opts, err)
		}
		if compared < 6000 {
			t.Errorf("%+v: %d comparisons", opts, compared)
		}
	}
}

// BenchmarkAppendField renders a repeated field of 50 strings as a
// response_body: compiled, and through protojson (the fallback, and what
// every such response cost before).
func BenchmarkAppendField(b *testing.B) {
	m := &confv1.Probe{Name: "shelves/1", Id: 7}
	for i := range 50 {
		m.Tags = append(m.Tags, "tag-"+string(rune('a'+i%26)))
	}
	fd := m.ProtoReflect().Descriptor().Fields().ByName("tags")
	c := &JSON{MarshalOptions: protojson.MarshalOptions{EmitUnpopulated: true}}
	b.Run("compiled", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			if _, err := c.AppendField(buf[:0], m, fd); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protojson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.fieldOf(m.ProtoReflect(), fd); err != nil {
				b.Fatal(err)
			}
		}
	})
}
