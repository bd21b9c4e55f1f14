package bench

import (
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// TestTimestampJSON checks that the floor writes and reads timestamps as
// protojson does, with 0, 3, 6 and 9 fractional digits.
func TestTimestampJSON(t *testing.T) {
	for _, ns := range []int{0, 120_000_000, 123_456_000, 123_456_789, 1} {
		ts := time.Date(2024, time.March, 1, 9, 30, 5, ns, time.UTC)
		want, err := protojson.Marshal(timestamppb.New(ts))
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(timestampJSON(ts))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%d ns: floor %s, protojson %s", ns, got, want)
		}
		var back timestampJSON
		if err := json.Unmarshal(want, &back); err != nil || !time.Time(back).Equal(ts) {
			t.Errorf("%d ns: reading %s gave %v, %v", ns, want, time.Time(back), err)
		}
	}
}
