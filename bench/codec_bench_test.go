package bench

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
	"github.com/protorest/protorest/internal/codec"
)

// A codec of the ListItems answer, for BenchmarkCodec.
type itemsCodec struct {
	name      string
	marshal   func(*libraryv1.ListItemsResponse, *listItemsResponseJSON) ([]byte, error)
	unmarshal func([]byte) error // nil for an encoder only
	binary    bool               // not JSON
}

// protorestJSON is protorest's JSON codec with the gateway's default
// options: it writes with the compiled encoder (internal/jsonenc) and
// reads with the compiled decoder (internal/jsondec).
var protorestJSON = &codec.JSON{
	MarshalOptions:   protojson.MarshalOptions{EmitUnpopulated: true},
	UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: true},
}

// itemsCodecs are the codecs BenchmarkCodec compares. encoding-json works
// on the floor's plain structs, built before the timer starts, so it
// measures encoding/json alone, not the floor's conversions.
//
// protorest is the JSON codec protorest's gateway reads requests and
// writes responses with; like protojson's Marshal, its marshal returns a
// new slice each time.
//
// proto and vtprotobuf are the binary format, for scale: vtprotobuf is
// the MarshalVT and UnmarshalVT methods protoc-gen-go-vtproto generates
// (library_vtproto.pb.go), which protorest's binary codec calls when a
// message has them.
var itemsCodecs = []itemsCodec{
	{
		name: "protojson",
		marshal: func(m *libraryv1.ListItemsResponse, _ *listItemsResponseJSON) ([]byte, error) {
			return protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(m)
		},
		unmarshal: func(b []byte) error {
			return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(b, &libraryv1.ListItemsResponse{})
		},
	},
	{
		name: "encoding-json",
		marshal: func(_ *libraryv1.ListItemsResponse, plain *listItemsResponseJSON) ([]byte, error) {
			return json.Marshal(plain)
		},
		unmarshal: func(b []byte) error {
			var plain listItemsResponseJSON
			return json.Unmarshal(b, &plain)
		},
	},
	{
		name: "protorest",
		marshal: func(m *libraryv1.ListItemsResponse, _ *listItemsResponseJSON) ([]byte, error) {
			return protorestJSON.AppendMarshal(nil, m)
		},
		unmarshal: func(b []byte) error {
			return protorestJSON.Unmarshal(b, &libraryv1.ListItemsResponse{})
		},
	},
	{
		name:   "proto",
		binary: true,
		marshal: func(m *libraryv1.ListItemsResponse, _ *listItemsResponseJSON) ([]byte, error) {
			return proto.Marshal(m)
		},
		unmarshal: func(b []byte) error {
			return proto.Unmarshal(b, &libraryv1.ListItemsResponse{})
		},
	},
	{
		name:   "vtprotobuf",
		binary: true,
		marshal: func(m *libraryv1.ListItemsResponse, _ *listItemsResponseJSON) ([]byte, error) {
			return m.MarshalVT()
		},
		unmarshal: func(b []byte) error {
			return (&libraryv1.ListItemsResponse{}).UnmarshalVT(b)
		},
	},
}

// codecInput is what BenchmarkCodec's codecs of a format read: for JSON,
// protojson's output made compact, as the other JSON codecs write it
// (protojson adds random spaces, a few per cent more bytes in some
// builds); for binary, proto.Marshal's. So every codec of a format reads
// the same bytes.
func codecInput(msg *libraryv1.ListItemsResponse, binary bool) ([]byte, error) {
	if binary {
		return proto.Marshal(msg)
	}
	b, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(msg)
	if err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	err = json.Compact(&compact, b)
	return compact.Bytes(), err
}

// BenchmarkCodec measures the codecs alone on the ListItems answer:
// BenchmarkCodec/<marshal|unmarshal>/<n>/<codec>, n items. The codecs of
// a format unmarshal the same input (codecInput).
func BenchmarkCodec(b *testing.B) {
	for _, dir := range []string{"marshal", "unmarshal"} {
		b.Run(dir, func(b *testing.B) {
			for _, n := range ItemCounts {
				msg := &libraryv1.ListItemsResponse{Items: Items(n), TotalSize: int32(n)}
				plain := listItemsToJSON(msg)
				b.Run(strconv.Itoa(n), func(b *testing.B) {
					for _, c := range itemsCodecs {
						if dir == "unmarshal" && c.unmarshal == nil {
							continue
						}
						b.Run(c.name, func(b *testing.B) {
							data, err := codecInput(msg, c.binary)
							if err != nil {
								b.Fatal(err)
							}
							b.ReportAllocs()
							if dir == "marshal" {
								for b.Loop() {
									if _, err := c.marshal(msg, &plain); err != nil {
										b.Fatal(err)
									}
								}
								return
							}
							for b.Loop() {
								if err := c.unmarshal(data); err != nil {
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
