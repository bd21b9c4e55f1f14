package wellknown

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// The parsers must take exactly the JSON strings protojson takes, with the
// same value: these are the oracles.

func protojsonTimestamp(s string) (int64, int32, bool) {
	var ts timestamppb.Timestamp
	if err := protojson.Unmarshal(jsonString(s), &ts); err != nil {
		return 0, 0, false
	}
	return ts.Seconds, ts.Nanos, true
}

func protojsonDuration(s string) (int64, int32, bool) {
	var d durationpb.Duration
	if err := protojson.Unmarshal(jsonString(s), &d); err != nil {
		return 0, 0, false
	}
	return d.Seconds, d.Nanos, true
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

var timestampCases = []string{
	"1970-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "0000-12-31T23:59:59Z",
	"10000-01-01T00:00:00Z", "2024-02-29T12:00:00Z", "2023-02-29T12:00:00Z", "2024-01-01T24:00:00Z",
	"2024-01-01T23:59:60Z", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00.1Z", "2024-01-01T00:00:00.123456789Z",
	"2024-01-01T00:00:00.1234567891Z", "2024-01-01T00:00:00.1234567890Z", "2024-01-01T00:00:00,5Z",
	"2024-01-01T00:00:00,1234567891Z", "2024-01-01t00:00:00Z", "2024-01-01T00:00:00z", "2024-01-01T00:00:00",
	"2024-01-01T00:00:00+00:00", "2024-01-02T03:04:05.5-07:30", "2024-01-02T03:04:05.1234567891-07:30",
	"0001-01-01T00:00:00+00:01", "0001-01-01T00:00:00-00:01", "9999-12-31T23:59:59-00:01", "2024-01-01T00:00:00+24:00",
	"2024-01-01 00:00:00Z", "2024-1-01T00:00:00Z", "+024-01-01T00:00:00Z", "2017-01-15T01:30:15.01Z", "", "Z",
}

var durationCases = []string{
	"0s", "1s", "-1s", "+1s", "1.5s", "-1.5s", "-0.5s", ".5s", "-.5s", "1.s", ".s", "-.s", "+.s", "s", "-s",
	"00s", "01s", "0.000000001s", "0.0000000001s", "1.000000000s", "315576000000s", "-315576000000s",
	"315576000000.999999999s", "315576000001s", "-315576000001s", "9223372036854775807s", "9223372036854775808s",
	"1e3s", "1 s", " 1s", "1S", "1", "1.5.5s", "0x1s", "١s", "", "90m",
}

func TestParseTimestamp(t *testing.T) {
	t.Parallel()
	for _, s := range timestampCases {
		checkTimestamp(t, s)
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	for _, s := range durationCases {
		checkDuration(t, s)
	}
}

func FuzzParseTimestamp(f *testing.F) {
	for _, s := range timestampCases {
		f.Add(s)
	}
	f.Fuzz(checkTimestamp)
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range durationCases {
		f.Add(s)
	}
	f.Fuzz(checkDuration)
}

func checkTimestamp(t *testing.T, s string) {
	secs, nanos, ok := ParseTimestamp(s)
	bsecs, bnanos, bok := ParseTimestamp([]byte(s))
	if secs != bsecs || nanos != bnanos || ok != bok {
		t.Fatalf("ParseTimestamp(%q) = %d, %d, %v; of []byte: %d, %d, %v", s, secs, nanos, ok, bsecs, bnanos, bok)
	}
	if !utf8.ValidString(s) {
		if ok {
			t.Fatalf("ParseTimestamp(%q) took invalid UTF-8", s)
		}
		return // json.Marshal would change s: no oracle
	}
	wsecs, wnanos, wok := protojsonTimestamp(s)
	if ok != wok || secs != wsecs || nanos != wnanos {
		t.Fatalf("ParseTimestamp(%q) = %d, %d, %v; protojson: %d, %d, %v", s, secs, nanos, ok, wsecs, wnanos, wok)
	}
}

func checkDuration(t *testing.T, s string) {
	secs, nanos, ok := ParseDuration(s)
	bsecs, bnanos, bok := ParseDuration([]byte(s))
	if secs != bsecs || nanos != bnanos || ok != bok {
		t.Fatalf("ParseDuration(%q) = %d, %d, %v; of []byte: %d, %d, %v", s, secs, nanos, ok, bsecs, bnanos, bok)
	}
	if !utf8.ValidString(s) {
		if ok {
			t.Fatalf("ParseDuration(%q) took invalid UTF-8", s)
		}
		return
	}
	wsecs, wnanos, wok := protojsonDuration(s)
	if ok != wok || secs != wsecs || nanos != wnanos {
		t.Fatalf("ParseDuration(%q) = %d, %d, %v; protojson: %d, %d, %v", s, secs, nanos, ok, wsecs, wnanos, wok)
	}
}
