package floorproxy

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"time"
	"unicode/utf8"
)

// The JSON of values, written as protojson writes them.

var errInvalidUTF8 = errors.New("floorproxy: invalid UTF-8 in a string field")

// appendJSONString appends s quoted: '"', '\\' and control characters
// escaped, everything else as it is; invalid UTF-8 is an error.
func appendJSONString(out, s []byte) ([]byte, error) {
	out = append(out, '"')
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		switch {
		case r == utf8.RuneError && n == 1:
			return out, errInvalidUTF8
		case r < ' ' || r == '"' || r == '\\':
			out = append(out, '\\')
			switch r {
			case '"', '\\':
				out = append(out, byte(r))
			case '\b':
				out = append(out, 'b')
			case '\f':
				out = append(out, 'f')
			case '\n':
				out = append(out, 'n')
			case '\r':
				out = append(out, 'r')
			case '\t':
				out = append(out, 't')
			default:
				out = append(out, 'u')
				out = append(out, "0000"[1+(bits.Len32(uint32(r))-1)/4:]...)
				out = strconv.AppendUint(out, uint64(r), 16)
			}
		default:
			out = append(out, s[:n]...)
		}
		s = s[n:]
	}
	return append(out, '"'), nil
}

// appendJSONInt64 appends v as a JSON string, as protojson writes 64-bit
// integers.
func appendJSONInt64(out []byte, v int64) []byte {
	out = append(out, '"')
	out = strconv.AppendInt(out, v, 10)
	return append(out, '"')
}

// appendJSONDouble appends v: NaN and the infinities as strings, else a
// number, in exponent form below 1e-6 and from 1e21.
func appendJSONDouble(out []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(out, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(out, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(out, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	out = strconv.AppendFloat(out, v, format, -1, 64)
	if n := len(out); format == 'e' && n >= 4 && out[n-4] == 'e' && out[n-3] == '-' && out[n-2] == '0' {
		out[n-2] = out[n-1] // e-07 is e-7
		out = out[:n-1]
	}
	return out
}

// The range of a google.protobuf.Timestamp: years 1 to 9999.
const (
	minTimestampSeconds = -62135596800
	maxTimestampSeconds = 253402300799
)

var errTimestampRange = errors.New("floorproxy: Timestamp out of range")

// appendJSONTimestamp appends a google.protobuf.Timestamp: RFC 3339 in
// UTC with 0, 3, 6 or 9 fractional digits.
func appendJSONTimestamp(out []byte, secs, nanos int64) ([]byte, error) {
	if secs < minTimestampSeconds || secs > maxTimestampSeconds || nanos < 0 || nanos > 1e9 {
		return out, errTimestampRange
	}
	out = append(out, '"')
	out = time.Unix(secs, nanos).UTC().AppendFormat(out, "2006-01-02T15:04:05.000000000")
	for range 3 { // drop trailing groups of three zeros, and then the dot
		n := len(out)
		if string(out[n-3:]) != "000" {
			break
		}
		out = out[:n-3]
	}
	if out[len(out)-1] == '.' {
		out = out[:len(out)-1]
	}
	return append(out, 'Z', '"'), nil
}
