package jsonenc

import (
	"encoding/base64"
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/protorest/protorest/internal/jsonstr"
)

var errStringUTF8 = errors.New("invalid UTF-8")

// AppendString appends s as a JSON string, escaped as protojson escapes
// strings; invalid UTF-8 in s becomes U+FFFD (protojson refuses to write
// it, but a status message from a backend must still be written).
func AppendString(b []byte, s string) []byte {
	if out, err := appendString(b, s); err == nil {
		return out
	}
	out, _ := appendString(b, strings.ToValidUTF8(s, "\uFFFD"))
	return out
}

// appendString writes s as a JSON string, escaping as protojson does: the
// quote, the backslash and control characters, nothing else. Invalid
// UTF-8 is an error.
func appendString(b []byte, s string) ([]byte, error) {
	b = append(b, '"')
	i := jsonstr.Index(s)
	s, b = s[i:], append(b, s[:i]...)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			return b, errStringUTF8
		case r < ' ' || r == '"' || r == '\\':
			b = append(b, '\\')
			switch r {
			case '"', '\\':
				b = append(b, byte(r))
			case '\b':
				b = append(b, 'b')
			case '\f':
				b = append(b, 'f')
			case '\n':
				b = append(b, 'n')
			case '\r':
				b = append(b, 'r')
			case '\t':
				b = append(b, 't')
			default:
				b = append(b, 'u')
				b = append(b, "0000"[1+(bits.Len32(uint32(r))-1)/4:]...)
				b = strconv.AppendUint(b, uint64(r), 16)
			}
			s = s[n:]
		default:
			i := jsonstr.Index(s[n:])
			s, b = s[n+i:], append(b, s[:n+i]...)
		}
	}
	return append(b, '"'), nil
}

// appendStringOf writes s, a string value of field f; invalid UTF-8 is
// protojson's error, which names the field.
func appendStringOf(b []byte, s string, f *field) ([]byte, error) {
	out, err := appendString(b, s)
	if err != nil {
		return out, errInvalidUTF8(f.value.FullName())
	}
	return out, nil
}

// appendQuotedInt writes a 64-bit integer as protojson does: in quotes.
func appendQuotedInt(b []byte, n int64) []byte {
	b = append(b, '"')
	b = strconv.AppendInt(b, n, 10)
	return append(b, '"')
}

// appendQuotedUint writes a 64-bit unsigned integer in quotes.
func appendQuotedUint(b []byte, n uint64) []byte {
	b = append(b, '"')
	b = strconv.AppendUint(b, n, 10)
	return append(b, '"')
}

// appendBytes writes bytes as standard base64 in quotes.
func appendBytes(b []byte, data []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, data)
	return append(b, '"')
}

// appendFloat writes a float as protojson does (encoding/json's format;
// NaN and the infinities as strings).
func appendFloat(b []byte, f float64, bitSize int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, +1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bitSize == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bitSize == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bitSize)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
