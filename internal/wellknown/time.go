package wellknown

import (
	"strconv"
	"strings"
	"time"
)

// The ranges of google.protobuf.Timestamp and Duration in the proto3 JSON
// mapping, as protojson checks them on both sides.
const (
	MinTimestampSeconds = -62135596800 // 0001-01-01T00:00:00Z
	MaxTimestampSeconds = 253402300799 // 9999-12-31T23:59:59Z
	MaxDurationSeconds  = 315576000000 // ±10,000 years
)

// text is what the parsers read: a string (a query value) or the bytes of
// a JSON string (a body, read in place).
type text interface{ ~string | ~[]byte }

// ParseTimestamp reads a Timestamp's JSON string form exactly as protojson
// does: time.Parse(time.RFC3339Nano) (an offset or Z is required), within
// MinTimestampSeconds to MaxTimestampSeconds, and at most nine digits of
// fraction. The form encoders write, "2006-01-02T15:04:05[.f]Z", is read
// without time.Parse (and so without allocating).
func ParseTimestamp[T text](s T) (secs int64, nanos int32, ok bool) {
	secs, nanos, ok = parseUTC(s)
	if !ok {
		secs, nanos, ok = parseRFC3339(string(s))
	}
	if !ok || secs < MinTimestampSeconds || secs > MaxTimestampSeconds {
		return 0, 0, false
	}
	return secs, nanos, true
}

// parseRFC3339 is time.Parse(time.RFC3339Nano) with protojson's limit of
// nine digits of fraction: time.Parse takes more (and drops them).
func parseRFC3339(s string) (secs int64, nanos int32, ok bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, 0, false
	}
	i := strings.LastIndexByte(s, '.')  // the fraction
	j := strings.LastIndexAny(s, "Z-+") // the zone
	if i >= 0 && j >= i && j-i > len(".999999999") {
		return 0, 0, false
	}
	return t.Unix(), int32(t.Nanosecond()), true
}

// parseUTC reads the form encoders write, YYYY-MM-DDTHH:MM:SS[.f]Z with
// one to nine digits of fraction (so within protojson's limit), as
// time.Parse(time.RFC3339Nano) would; ok is false for anything else, which
// parseRFC3339 then decides.
func parseUTC[T text](s T) (secs int64, nanos int32, ok bool) {
	if len(s) < len("2006-01-02T15:04:05Z") || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
		s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return 0, 0, false
	}
	year, ok1 := num(s[0:4])
	month, ok2 := num(s[5:7])
	day, ok3 := num(s[8:10])
	hour, ok4 := num(s[11:13])
	minute, ok5 := num(s[14:16])
	sec, ok6 := num(s[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || month < 1 || month > 12 || day < 1 ||
		day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return 0, 0, false
	}
	if frac := s[19 : len(s)-1]; len(frac) > 0 {
		if len(frac) < 2 || len(frac) > 10 || frac[0] != '.' {
			return 0, 0, false
		}
		n, ok := num(frac[1:])
		if !ok {
			return 0, 0, false
		}
		for range 10 - len(frac) {
			n *= 10
		}
		nanos = int32(n)
	}
	secs = daysSinceEpoch(year, month, day)*86400 + int64(hour*3600+minute*60+sec)
	return secs, nanos, true
}

// num is the value of a run of decimal digits (at most nine).
func num[T text](b T) (int, bool) {
	n := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysSinceEpoch is the number of days from 1970-01-01 to the date, in
// the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
func daysSinceEpoch(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	m := int64(month)
	if m > 2 {
		m -= 3
	} else {
		m += 9
	}
	doy := (153*m+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// ParseDuration reads a Duration's JSON string form exactly as protojson
// does: an optional sign, integer seconds (no leading zero), up to nine
// digits of fraction, and "s", within ±MaxDurationSeconds. Either part may
// be left out, even both: "1.s", ".5s" and ".s" (zero) are taken.
func ParseDuration[T text](s T) (secs int64, nanos int32, ok bool) {
	if len(s) < 2 || s[len(s)-1] != 's' {
		return 0, 0, false
	}
	b := s[:len(s)-1]
	neg := false
	switch b[0] {
	case '-':
		neg, b = true, b[1:]
	case '+':
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, 0, false
	}
	var intp T
	switch {
	case b[0] == '0':
		b = b[1:]
	case '1' <= b[0] && b[0] <= '9':
		n := 1
		for n < len(b) && '0' <= b[n] && b[n] <= '9' {
			n++
		}
		intp, b = b[:n], b[n:]
	case b[0] == '.':
	default:
		return 0, 0, false
	}
	if len(b) > 0 {
		if b[0] != '.' {
			return 0, 0, false
		}
		b = b[1:]
		var frac int64
		n := 0
		for ; n < len(b) && n < 9 && '0' <= b[n] && b[n] <= '9'; n++ {
			frac = frac*10 + int64(b[n]-'0')
		}
		if n < len(b) {
			return 0, 0, false
		}
		for ; n < 9; n++ {
			frac *= 10
		}
		nanos = int32(frac)
	}
	if len(intp) > 0 {
		var err error
		if secs, err = strconv.ParseInt(string(intp), 10, 64); err != nil || secs > MaxDurationSeconds {
			return 0, 0, false
		}
	}
	if neg {
		secs, nanos = -secs, -nanos
	}
	return secs, nanos, true
}
