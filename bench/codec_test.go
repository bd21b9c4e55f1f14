package bench

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// TestCodecsAgree checks BenchmarkCodec's codecs: each writes the
// ListItems answer in full, the JSON codecs with the same keys and values
// as protojson, and each reads back what it wrote. So no codec is fast
// because it does less.
func TestCodecsAgree(t *testing.T) {
	for _, n := range ItemCounts {
		msg := &libraryv1.ListItemsResponse{Items: Items(n), TotalSize: int32(n)}
		plain := listItemsToJSON(msg)
		ref, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		want, err := decodeJSON(ref)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range itemsCodecs {
			data, err := c.marshal(msg, &plain)
			if err != nil {
				t.Fatalf("%s, n = %d: %v", c.name, n, err)
			}
			if c.binary {
				var back libraryv1.ListItemsResponse
				if err := proto.Unmarshal(data, &back); err != nil || !proto.Equal(&back, msg) {
					t.Errorf("%s, n = %d: does not read back (%v)", c.name, n, err)
				}
			} else if got, err := decodeJSON(data); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s, n = %d: JSON differs from protojson's (%v):\n%s\n%s", c.name, n, err, data, ref)
			}
			if c.unmarshal != nil {
				if err := c.unmarshal(data); err != nil {
					t.Errorf("%s, n = %d: reading its own output: %v", c.name, n, err)
				}
				in, err := codecInput(msg, c.binary)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.unmarshal(in); err != nil {
					t.Errorf("%s, n = %d: reading BenchmarkCodec's input: %v", c.name, n, err)
				}
			}
		}
	}
}
