package invoke

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/emptypb"
)

// WireCodecOption is the call option (grpc.ForceCodecV2) that reads and
// writes a call's messages with WireCodec.
func WireCodecOption() grpc.CallOption { return grpc.ForceCodecV2(WireCodec) }

// WireCodec is the codec of the calls to a backend (WireCodecOption):
// grpc-go's proto codec, except that a message read into a
// google.protobuf.Empty, the gateway's wire message (a response the
// render stage encodes from its bytes, a message the gRPC pass-through
// forwards), takes the backend's bytes as they are, once they are found
// to be wire format, rather than decoding them field by field into the
// Empty's unknown fields, which gives the same bytes. Bytes that are not
// wire format get the proto codec's error. Its Name is "", so that calls
// go as application/grpc, as with no codec set.
var WireCodec encoding.CodecV2 = wireCodec{encoding.GetCodecV2(proto.Name)}

type wireCodec struct{ encoding.CodecV2 }

func (wireCodec) Name() string { return "" }

// Unmarshal reads data into v.
func (c wireCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(*emptypb.Empty)
	if !ok {
		return c.CodecV2.Unmarshal(data, v)
	}
	b := data.Materialize()
	if !wellFormed(b) {
		return c.CodecV2.Unmarshal(data, v)
	}
	m.Reset()
	if len(b) > 0 {
		m.ProtoReflect().SetUnknown(b)
	}
	return nil
}

// wellFormed reports whether b is a sequence of fields in the wire
// format, as decoding them as unknown fields takes them: valid tags
// (field numbers 1 to 2^29-1, in their shortest encoding, which decoding
// writes back: a longer one is left to it) and wire types, lengths within b, groups closed by their own end, nested no
// deeper than protowire's recursion limit.
func wellFormed(b []byte) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num > protowire.MaxValidNumber || n != protowire.SizeTag(num) {
			return false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return false
		}
		b = b[n+m:]
	}
	return true
}
