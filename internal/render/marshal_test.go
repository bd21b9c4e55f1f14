package render

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/negotiate"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// upperProto is a user's codec for application/proto: the wire format,
// upper-cased, so that its output tells it from the built-in codec's.
type upperProto struct{}

func (upperProto) Marshal(m proto.Message) ([]byte, error) {
	b, err := proto.Marshal(m)
	return bytes.ToUpper(b), err
}

func (upperProto) Unmarshal(data []byte, m proto.Message) error { return proto.Unmarshal(data, m) }

// TestMarshalBinaryAppends: the built-in binary codec writes a response
// into the pooled buffer Reply.Respond gives it (codec.Proto.AppendMarshal,
// which uses vtprotobuf's SizeVT and MarshalToSizedBufferVT when the
// message has them); a codec registered in its place is called as it is.
func TestMarshalBinaryAppends(t *testing.T) {
	msg := &confv1.Probe{Name: "shelves/1", Id: 7, Tags: []string{"a", "b"}, Inner: &confv1.Inner{S: "in"}}
	wire, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		codecs  []negotiate.NamedCodec
		want    []byte
		inPlace bool
	}{
		{"built-in", nil, wire, true},
		{"WithCodec", []negotiate.NamedCodec{{Media: codec.MediaProto, Codec: upperProto{}}}, bytes.ToUpper(wire), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			formats := negotiate.NewFormats(&codec.JSON{}, tt.codecs)
			out := formats.Request(codec.MediaProto)
			dst := make([]byte, 0, 2*len(wire))
			got, err := marshal(dst, out, msg, 0)
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Fatalf("marshal = %x, %v; want %x", got, err, tt.want)
			}
			if inPlace := &got[0] == &dst[:1][0]; inPlace != tt.inPlace {
				t.Errorf("written into dst: %t, want %t", inPlace, tt.inPlace)
			}
		})
	}
}
