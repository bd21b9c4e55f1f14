package bind

import (
	"encoding/base64"
	"strings"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/jsonscan"
	"github.com/protorest/protorest/internal/wellknown"
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
	n, ok := jsonscan.NumberLen(s)
	return ok && n == len(s)
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

// parseDuration parses a query value as a Duration: protojson's string
// form (wellknown.ParseDuration) or, failing that, Go's time.ParseDuration
// syntax ("90m", "1h30m"), as grpc-gateway accepts (PROFILE.md, query value
// conversions).
//
// One deliberate difference from protojson: a value with no digit at all
// (".s", "-.s", "+.s"), which protojson reads as zero, is refused. A query
// value is typed by hand, grpc-gateway (which reads query Durations with
// time.ParseDuration) refuses it too, and a zero spelled without a digit
// is more likely a mistake than a zero.
func parseDuration(s string) (int64, int32, bool) {
	if secs, nanos, ok := wellknown.ParseDuration(s); ok && hasDigit(s) {
		return secs, nanos, true
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, 0, false
	}
	return int64(d / time.Second), int32(d % time.Second), true
}

func hasDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789")
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
