package codec

import (
	"bytes"
	"encoding/json"
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

// TestTryUnmarshalFieldMatchesProtojson: the JSON value of every field
// that is not a singular message, taken from random messages (and spoiled
// at random), reads as protojson reads it as the only member of an object
// of the message's type, or is left to protojson; and most values are
// read by the compiled decoder.
func TestTryUnmarshalFieldMatchesProtojson(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	c := &JSON{
		MarshalOptions:   protojson.MarshalOptions{EmitUnpopulated: true},
		UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: true}, // the gateway's default
	}
	read, total := 0, 0
	for range 300 {
		src := &confv1.Probe{}
		protorand.Fill(rng, src.ProtoReflect(), 3)
		fields := src.ProtoReflect().Descriptor().Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if fd.Message() != nil && !fd.IsList() && !fd.IsMap() {
				continue
			}
			value, err := c.AppendField(nil, src, fd)
			if err != nil {
				continue // invalid UTF-8 from the random filler
			}
			switch rng.IntN(8) {
			case 0:
				value = append(value, `, "id": "7"`...)
			case 1:
				value = value[:rng.IntN(len(value)+1)]
			case 2:
				value = append([]byte(" \n"), append(value, '\t')...)
			}
			total++
			got := &confv1.Probe{}
			if !c.TryUnmarshalField(value, got, fd) {
				if got.ProtoReflect().Has(fd) {
					t.Fatalf("field %s, %s: left to protojson but set", fd.Name(), value)
				}
				continue
			}
			read++
			// The oracle: protojson reads {"<name>": value} into a message
			// of the type, and the field is taken from it.
			want := &confv1.Probe{}
			tmp := &confv1.Probe{}
			wrapped := append(append([]byte(`{"`+string(fd.Name())+`":`), value...), '}')
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(wrapped, tmp); err != nil {
				t.Fatalf("field %s, %s: compiled decoder read it, protojson says %v", fd.Name(), value, err)
			}
			if tmp.ProtoReflect().Has(fd) {
				want.ProtoReflect().Set(fd, tmp.ProtoReflect().Get(fd))
			}
			if !proto.Equal(got, want) {
				t.Fatalf("field %s, %s:\ncompiled  %v\nprotojson %v", fd.Name(), value, got, want)
			}
			// A dynamic message (a remote method's) is read through
			// protoreflect, and must come out the same.
			dyn := dynamicpb.NewMessage(fd.ContainingMessage())
			if !c.TryUnmarshalField(value, dyn, fd) {
				t.Fatalf("field %s, %s: read into the generated message, not into a dynamic one", fd.Name(), value)
			}
			if !proto.Equal(dyn, dynamicOf(want)) {
				t.Fatalf("field %s, %s:\ndynamic   %v\nprotojson %v", fd.Name(), value, dyn, want)
			}
		}
	}
	if read < total/2 {
		t.Errorf("the compiled decoder read %d of %d values", read, total)
	}
	t.Logf("%d of %d values read by the compiled decoder", read, total)
}

// BenchmarkUnmarshalField reads a body of 50 strings bound to a repeated
// field: compiled, and as it was read before (checked to be one JSON
// value, wrapped in an object, decoded, the field moved over).
func BenchmarkUnmarshalField(b *testing.B) {
	src := &confv1.Probe{}
	for i := range 50 {
		src.Tags = append(src.Tags, "tag-"+string(rune('a'+i%26)))
	}
	fd := src.ProtoReflect().Descriptor().Fields().ByName("tags")
	c := &JSON{UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: true}}
	body, err := c.AppendField(nil, src, fd)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("compiled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if m := (&confv1.Probe{}); !c.TryUnmarshalField(body, m, fd) {
				b.Fatal("left to protojson")
			}
		}
	})
	b.Run("wrapped", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m := &confv1.Probe{}
			if !json.Valid(body) {
				b.Fatal("invalid")
			}
			wrapped := append(append([]byte(`{"tags":`), body...), '}')
			tmp := m.ProtoReflect().New()
			if err := c.Unmarshal(wrapped, tmp.Interface()); err != nil {
				b.Fatal(err)
			}
			m.ProtoReflect().Set(fd, tmp.Get(fd))
		}
	})
}

// dynamicOf is m as a dynamic message, for comparing with one.
func dynamicOf(m proto.Message) proto.Message {
	d := dynamicpb.NewMessage(m.ProtoReflect().Descriptor())
	proto.Merge(d, m)
	return d
}

// FuzzUnmarshalField: any input, read as the value of one of Probe's
// fields that are not messages, is read as protojson reads it wrapped in
// an object, or left to protojson.
func FuzzUnmarshalField(f *testing.F) {
	for _, seed := range []string{`["a","b"]`, `"x"`, `7`, `"7"`, `{"k":"v"}`, `null`, `[1,2]`, `true`, `"RED"`, `1e3`, `["a"], "id": "7"`, `[`} {
		f.Add(uint8(0), seed)
	}
	c := &JSON{UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: true}}
	fields := (&confv1.Probe{}).ProtoReflect().Descriptor().Fields()
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		fd := fields.Get(int(which) % fields.Len())
		if fd.Message() != nil && !fd.IsList() && !fd.IsMap() {
			return
		}
		got := &confv1.Probe{}
		if !c.TryUnmarshalField([]byte(value), got, fd) {
			if got.ProtoReflect().Has(fd) {
				t.Fatalf("left to protojson but set")
			}
			return
		}
		tmp := &confv1.Probe{}
		wrapped := `{"` + string(fd.Name()) + `":` + value + `}`
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal([]byte(wrapped), tmp); err != nil {
			t.Fatalf("field %s: compiled decoder read %q, protojson says %v", fd.Name(), value, err)
		}
		want := &confv1.Probe{}
		if tmp.ProtoReflect().Has(fd) {
			want.ProtoReflect().Set(fd, tmp.ProtoReflect().Get(fd))
		}
		if !proto.Equal(got, want) {
			t.Fatalf("field %s, %q:\ncompiled  %v\nprotojson %v", fd.Name(), value, got, want)
		}
	})
}
