package bind

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// This file holds the string grammars the converters accept: they report
// success with a bool and never return a Go parser's error text.

// cutComma returns the text of *rest up to the first comma and advances
// *rest past it; more reports whether there was a comma.
func cutComma(rest *string) (elem string, more bool) {
	s := *rest
	if i := strings.IndexByte(s, ','); i >= 0 {
		*rest = s[i+1:]
		return s[:i], true
	}
	*rest = ""
	return s, false
}

// isJSONNumber reports whether s matches the JSON number grammar of
// RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i == len(s):
		return false
	case s[i] == '0':
		i++
	case '1' <= s[i] && s[i] <= '9':
		i = skipDigits(s, i)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		j := skipDigits(s, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := skipDigits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

func skipDigits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// decodeBase64 decodes s as protojson does: the URL alphabet when s has
// '-' or '_', else the standard one; unpadded when len(s) is not a
// multiple of 4.
func decodeBase64(s string) ([]byte, bool) {
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	b, err := enc.DecodeString(s)
	return b, err == nil
}

// Timestamp range of the proto3 JSON mapping: 0001-01-01T00:00:00Z to
// 9999-12-31T23:59:59.999999999Z.
const (
	minTimestampSeconds = -62135596800
	maxTimestampSeconds = 253402300799
)

// parseTimestamp parses an RFC 3339 timestamp as protojson does: an
// offset or Z is required, with at most nine fractional digits.
func parseTimestamp(s string) (int64, int32, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, 0, false
	}
	secs := t.Unix()
	if secs < minTimestampSeconds || secs > maxTimestampSeconds {
		return 0, 0, false
	}
	i := strings.LastIndexByte(s, '.')   // start of the fraction
	j := strings.LastIndexAny(s, "Zz-+") // start of the zone
	if i >= 0 && j >= i && j-i > len(".999999999") {
		return 0, 0, false
	}
	return secs, int32(t.Nanosecond()), true
}

// maxDurationSeconds is the Duration range of the proto3 JSON mapping
// (10,000 years).
const maxDurationSeconds = 315576000000

// parseDuration parses the proto3 JSON form "[-+]<sec>[.frac]s" (at most
// nine fractional digits, within ±315576000000 s) or, failing that, Go's
// time.ParseDuration syntax ("90m", "1h30m"), as grpc-gateway accepts.
func parseDuration(s string) (int64, int32, bool) {
	if secs, nanos, ok := parseJSONDuration(s); ok {
		return secs, nanos, true
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, 0, false
	}
	return int64(d / time.Second), int32(d % time.Second), true
}

// parseJSONDuration is protojson's Duration parser: a decimal number of
// seconds with an optional sign, integer or fractional part (at least
// one), up to nine fractional digits, and the suffix "s".
func parseJSONDuration(s string) (int64, int32, bool) {
	if len(s) < 2 || s[len(s)-1] != 's' {
		return 0, 0, false
	}
	s = s[:len(s)-1]
	neg := false
	switch s[0] {
	case '-':
		neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	intEnd := skipDigits(s, 0)
	intPart := s[:intEnd]
	if len(intPart) > 1 && intPart[0] == '0' {
		return 0, 0, false
	}
	s = s[intEnd:]
	var nanos int64
	hasFrac := false // at least one fractional digit
	if s != "" {
		if s[0] != '.' {
			return 0, 0, false
		}
		frac := s[1:]
		n := skipDigits(frac, 0)
		if n != len(frac) || n > 9 {
			return 0, 0, false
		}
		for i := range 9 {
			nanos *= 10
			if i < n {
				nanos += int64(frac[i] - '0')
			}
		}
		hasFrac = n > 0
	}
	if intPart == "" && !hasFrac { // protojson accepts ".s"; we want a digit
		return 0, 0, false
	}
	var secs int64
	if intPart != "" {
		var err error
		if secs, err = strconv.ParseInt(intPart, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	if secs > maxDurationSeconds {
		return 0, 0, false
	}
	if neg {
		secs, nanos = -secs, -nanos
	}
	return secs, int32(nanos), true
}

// snakePath converts one FieldMask path from lowerCamel to snake_case
// ("displayName" → "display_name"; snake_case stays as it is) and checks
// that the result is a dotted list of identifiers. It allocates only when
// there is something to convert.
func snakePath(p string) (string, bool) {
	upper := 0
	for i := 0; i < len(p); i++ {
		if 'A' <= p[i] && p[i] <= 'Z' {
			upper++
		}
	}
	if upper > 0 {
		var b strings.Builder
		b.Grow(len(p) + upper)
		for i := 0; i < len(p); i++ {
			c := p[i]
			if 'A' <= c && c <= 'Z' {
				b.WriteByte('_')
				c += 'a' - 'A'
			}
			b.WriteByte(c)
		}
		p = b.String()
	}
	return p, protoreflect.FullName(p).IsValid()
}
