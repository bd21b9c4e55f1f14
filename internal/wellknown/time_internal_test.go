package wellknown

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestParseUTC checks the fast timestamp form against time.Parse: what
// parseUTC takes, time.Parse takes, with the same instant.
func TestParseUTC(t *testing.T) {
	cases := []string{
		"1970-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "0000-01-01T00:00:00Z",
		"2024-02-29T12:00:00Z", "2023-02-29T12:00:00Z", "2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2024-04-31T00:00:00Z",
		"2024-01-01T24:00:00Z", "2024-01-01T23:60:00Z", "2024-01-01T23:59:60Z", "2024-13-01T00:00:00Z", "2024-00-01T00:00:00Z",
		"2024-01-00T00:00:00Z", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00.1Z", "2024-01-01T00:00:00.1234567891Z",
		"2024-01-01t00:00:00Z", "2024-01-01T00:00:00z", "2024-01-01T00:00:00+00:00", "+024-01-01T00:00:00Z", "2024-1-01T00:00:00Z",
		"2024-01-01T00:00:00.-1Z", "2024-01-01 00:00:00Z", "1969-12-31T23:59:59.5Z", "1600-03-01T00:00:00Z",
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		sec := rng.Int64N(253402300800+62135596800) - 62135596800
		ts := time.Unix(sec, 0).UTC()
		digits := rng.IntN(10)
		s := ts.Format("2006-01-02T15:04:05")
		if digits > 0 {
			s += fmt.Sprintf(".%0*d", digits, rng.IntN(pow10(digits)))
		}
		cases = append(cases, s+"Z")
	}
	for _, s := range cases {
		secs, nanos, ok := parseUTC([]byte(s))
		want, err := time.Parse(time.RFC3339Nano, s)
		if !ok {
			continue // time.Parse decides
		}
		if err != nil {
			t.Fatalf("parseUTC took %q, time.Parse refused: %v", s, err)
		}
		if secs != want.Unix() || nanos != int32(want.Nanosecond()) {
			t.Fatalf("parseUTC(%q) = %d.%09d, time.Parse %d.%09d", s, secs, nanos, want.Unix(), want.Nanosecond())
		}
	}
}

func pow10(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}
