package bench

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// messageSizes are BenchmarkMessageSize's payload sizes.
var messageSizes = []struct {
	name string
	n    int
}{
	{"1B", 1}, {"1KiB", 1 << 10}, {"8KiB", 8 << 10}, {"64KiB", 64 << 10}, {"512KiB", 512 << 10}, {"1MiB", 1 << 20},
}

// sizedMessage is an EchoMessage whose message field is n bytes of
// ASCII prose; its other fields are set too, as in the Echo operation.
func sizedMessage(n int) *libraryv1.EchoMessage {
	const prose = "It was a bright cold day in April, and the clocks were striking thirteen. "
	text := strings.Repeat(prose, n/len(prose)+1)[:n]
	return &libraryv1.EchoMessage{Message: text, Count: 3, Id: 9007199254740993, Urgent: true, Tags: []string{"a", "b", "c"}}
}

// BenchmarkMessageSize measures encoding and decoding one message as its
// payload grows: BenchmarkMessageSize/<encode|decode>/<size>/<codec>.
// SetBytes is the payload's size, so MB/s compare across codecs.
func BenchmarkMessageSize(b *testing.B) {
	codecs := []struct {
		name   string
		encode func(proto.Message) ([]byte, error)
		decode func([]byte, proto.Message) error
	}{
		{"protojson", protojson.MarshalOptions{EmitUnpopulated: true}.Marshal, protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal},
		{"proto", proto.Marshal, proto.Unmarshal},
		{"vtprotobuf", // protoc-gen-go-vtproto's generated methods
			func(m proto.Message) ([]byte, error) { return m.(*libraryv1.EchoMessage).MarshalVT() },
			func(b []byte, m proto.Message) error { return m.(*libraryv1.EchoMessage).UnmarshalVT(b) }},
	}
	for _, dir := range []string{"encode", "decode"} {
		b.Run(dir, func(b *testing.B) {
			for _, size := range messageSizes {
				msg := sizedMessage(size.n)
				b.Run(size.name, func(b *testing.B) {
					for _, c := range codecs {
						b.Run(c.name, func(b *testing.B) {
							data, err := c.encode(msg)
							if err != nil {
								b.Fatal(err)
							}
							b.SetBytes(int64(size.n))
							b.ReportAllocs()
							if dir == "encode" {
								for b.Loop() {
									if _, err := c.encode(msg); err != nil {
										b.Fatal(err)
									}
								}
								return
							}
							for b.Loop() {
								if err := c.decode(data, &libraryv1.EchoMessage{}); err != nil {
									b.Fatal(err)
								}
							}
						})
					}
				})
			}
		})
	}
}
