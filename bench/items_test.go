package bench

import (
	"bytes"
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// TestListItemsSize keeps the ListItems answers at the sizes the
// benchmarks are named for: about 0.2 KB, 13 KB and 130 KB of JSON for
// n = 1, 50 and 500 (compact JSON, as grpc-gateway's marshaler writes it
// less protojson's random spaces).
func TestListItemsSize(t *testing.T) {
	for _, tt := range []struct{ n, min, max int }{
		{1, 200, 320},
		{50, 12_500, 14_000},
		{ListRouteItems, 95_000, 105_000}, // the throughput harness's list route: about 100 KB
		{500, 125_000, 140_000},
	} {
		b, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(&libraryv1.ListItemsResponse{Items: Items(tt.n), TotalSize: int32(tt.n)})
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, b); err != nil {
			t.Fatal(err)
		}
		t.Logf("n = %d: %d bytes", tt.n, compact.Len())
		if compact.Len() < tt.min || compact.Len() > tt.max {
			t.Errorf("n = %d: %d bytes of JSON, want %d to %d", tt.n, compact.Len(), tt.min, tt.max)
		}
	}
}

// TestItemsDeterministic checks that Items is a function of n alone.
func TestItemsDeterministic(t *testing.T) {
	a, b := Items(50), Items(50)
	for i := range a {
		if !proto.Equal(a[i], b[i]) {
			t.Fatalf("item %d differs between calls: %v, %v", i, a[i], b[i])
		}
	}
}
