package invoke

import (
	"bytes"
	"testing"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
)

// FuzzWireCodec reads any bytes, in one piece or two, into an Empty with
// WireCodec and with grpc-go's proto codec: both fail or neither, and
// then the Empty holds the same bytes.
func FuzzWireCodec(f *testing.F) {
	for _, seed := range [][]byte{
		nil,
		protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "book"),
		{0x08, 0x96, 0x01, 0x15, 1, 2, 3, 4, 0x19, 1, 2, 3, 4, 5, 6, 7, 8},
		{0x0b, 0x08, 0x01, 0x0c},       // a group
		{0x0b, 0x08, 0x01, 0x14},       // a group closed by another's end
		{0x0c},                         // an end with no start
		{0x00, 0x01},                   // field number 0
		{0x0e},                         // wire type 6
		{0x0a, 0x05, 'a'},              // a length past the end
		{0x08, 0x80, 0x80, 0x80, 0x80}, // a truncated varint
		bytes.Repeat([]byte{0x0b}, 20000),
		{0x88, 0x00, 0x01},             // a tag in more bytes than it needs
		{0x0b, 0x88, 0x00, 0x01, 0x0c}, // the same in a group
		{0x0b, 0x8c, 0x00},             // a group's end in more bytes than it needs
	} {
		f.Add(seed, uint(len(seed)/2))
	}
	std := encoding.GetCodecV2(proto.Name)
	f.Fuzz(func(t *testing.T, data []byte, cut uint) {
		split := int(cut % uint(len(data)+1))
		in := mem.BufferSlice{mem.SliceBuffer(data[:split]), mem.SliceBuffer(data[split:])}
		got, want := new(emptypb.Empty), new(emptypb.Empty)
		gotErr, wantErr := WireCodec.Unmarshal(in, got), std.Unmarshal(in, want)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%x: WireCodec's error %v, the proto codec's %v", data, gotErr, wantErr)
		}
		if g, w := got.ProtoReflect().GetUnknown(), want.ProtoReflect().GetUnknown(); !bytes.Equal(g, w) {
			t.Fatalf("%x: WireCodec holds %x, the proto codec %x", data, g, w)
		}
	})
}

// TestWireCodecOtherMessages: a message other than an Empty is read and
// written by grpc-go's proto codec, and the calls go as application/grpc.
func TestWireCodecOtherMessages(t *testing.T) {
	if WireCodec.Name() != "" {
		t.Errorf("Name %q: calls would go as application/grpc+%s", WireCodec.Name(), WireCodec.Name())
	}
	out, err := WireCodec.Marshal(durationpb.New(1500000000))
	if err != nil {
		t.Fatal(err)
	}
	d := new(durationpb.Duration)
	if err := WireCodec.Unmarshal(out, d); err != nil || d.AsDuration().Seconds() != 1.5 {
		t.Errorf("Duration read back as %v, %v", d, err)
	}
	e := new(emptypb.Empty)
	e.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 3, protowire.VarintType), 9))
	out, err = WireCodec.Marshal(e)
	if err != nil || !bytes.Equal(out.Materialize(), []byte{0x18, 9}) {
		t.Errorf("an Empty's bytes written as %x, %v", out.Materialize(), err)
	}
}

func BenchmarkWireCodec(b *testing.B) {
	var data []byte
	for i := 1; i <= 6; i++ {
		data = protowire.AppendString(protowire.AppendTag(data, protowire.Number(i), protowire.BytesType), "some field value")
	}
	in := mem.BufferSlice{mem.SliceBuffer(data)}
	for _, c := range []struct {
		name  string
		codec encoding.CodecV2
	}{{"wire", WireCodec}, {"proto", encoding.GetCodecV2(proto.Name)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.codec.Unmarshal(in, new(emptypb.Empty)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
