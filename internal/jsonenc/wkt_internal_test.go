package jsonenc

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendDateTime checks the hand-rolled date against time.Format over
// the whole range of google.protobuf.Timestamp.
func TestAppendDateTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	secs := []int64{minTimestampSeconds, maxTimestampSeconds, 0, -1, 1, 86399, 86400, -86400, -86401,
		951782400, 951868800, 4107542400, -2208988800, -62135596799, 253402214400}
	for range 100000 {
		secs = append(secs, minTimestampSeconds+rng.Int64N(maxTimestampSeconds-minTimestampSeconds+1))
	}
	for _, s := range secs {
		want := time.Unix(s, 0).UTC().Format("2006-01-02T15:04:05")
		if got := string(appendDateTime(nil, s)); got != want {
			t.Fatalf("%d: got %s, want %s", s, got, want)
		}
	}
}
