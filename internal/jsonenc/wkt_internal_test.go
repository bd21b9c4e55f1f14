package jsonenc

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/protorest/protorest/internal/wellknown"
)

// TestAppendDateTime checks the hand-rolled date against time.Format over
// the whole range of google.protobuf.Timestamp.
func TestAppendDateTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	secs := []int64{wellknown.MinTimestampSeconds, wellknown.MaxTimestampSeconds, 0, -1, 1, 86399, 86400, -86400, -86401,
		951782400, 951868800, 4107542400, -2208988800, -62135596799, 253402214400}
	for range 100000 {
		secs = append(secs, wellknown.MinTimestampSeconds+rng.Int64N(wellknown.MaxTimestampSeconds-wellknown.MinTimestampSeconds+1))
	}
	for _, s := range secs {
		want := time.Unix(s, 0).UTC().Format("2006-01-02T15:04:05")
		if got := string(appendDateTime(nil, s)); got != want {
			t.Fatalf("%d: got %s, want %s", s, got, want)
		}
	}
}

// TestAppendNanos checks fractions of a second against protojson's rule:
// nine digits, less each trailing "000", up to twice.
func TestAppendNanos(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	nanos := []int64{0, 1, 10, 999, 1000, 1001, 100000, 1000000, 10000000, 999999999, 500000000, 120000}
	for range 100000 {
		nanos = append(nanos, rng.Int64N(1000000000))
	}
	for _, n := range nanos {
		want := ""
		if n != 0 {
			want = fmt.Sprintf(".%09d", n)
			for range 2 {
				want = strings.TrimSuffix(want, "000")
			}
		}
		if got := string(appendNanos(nil, n)); got != want {
			t.Fatalf("%d: got %q, want %q", n, got, want)
		}
	}
}
