package jsondec

import (
	"encoding/base64"
	"math"
	"slices"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/jsonscan"
)

// scalar reads a value of f's singular kind (not a message) as protojson's
// unmarshalScalar does. An invalid Value with ok set means "leave it
// out": an unknown enum name that the options discard.
func (st *state) scalar(f *field) (v protoreflect.Value, ok bool) {
	switch f.kind {
	case protoreflect.BoolKind:
		switch {
		case st.Literal("true"):
			return protoreflect.ValueOfBool(true), true
		case st.Literal("false"):
			return protoreflect.ValueOfBool(false), true
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if n, ok := parseInt(st.numeral(), 32); ok {
			return protoreflect.ValueOfInt32(int32(n)), true
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if n, ok := parseInt(st.numeral(), 64); ok {
			return protoreflect.ValueOfInt64(n), true
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if n, ok := parseUint(st.numeral(), 32); ok {
			return protoreflect.ValueOfUint32(uint32(n)), true
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if n, ok := parseUint(st.numeral(), 64); ok {
			return protoreflect.ValueOfUint64(n), true
		}
	case protoreflect.FloatKind:
		if x, ok := st.float(32); ok {
			return protoreflect.ValueOfFloat32(float32(x)), true
		}
	case protoreflect.DoubleKind:
		if x, ok := st.float(64); ok {
			return protoreflect.ValueOfFloat64(x), true
		}
	case protoreflect.StringKind:
		if b, ok := st.Str(); ok {
			return protoreflect.ValueOfString(string(b)), true
		}
	case protoreflect.BytesKind:
		if b, ok := st.Str(); ok {
			return decodeBase64(b)
		}
	case protoreflect.EnumKind:
		return st.enum(f)
	}
	return protoreflect.Value{}, false
}

// numeral reads a number, or a string that holds exactly one (protojson
// takes 64-bit and other integers either way); nil if it is neither.
func (st *state) numeral() []byte {
	if st.Peek() == '"' {
		b, ok := st.Str()
		if !ok {
			return nil
		}
		if n, ok := jsonscan.NumberLen(b); !ok || n != len(b) {
			return nil
		}
		return b
	}
	b, _ := st.Number()
	return b
}

// parseInt converts a JSON number to an integer of bits bits. Only plain
// integers are taken here; protojson also takes forms such as 1e3, 1.0 and
// -0, and decides them.
func parseInt(b []byte, bits int) (int64, bool) {
	if !plainInteger(b) {
		return 0, false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	u, ok := digits(b)
	limit := uint64(1) << (bits - 1)
	switch {
	case !ok || u > limit || u == limit && !neg:
		return 0, false
	case neg:
		return int64(-u), true // -limit too: two's complement
	}
	return int64(u), true
}

// parseUint is parseInt for unsigned integers.
func parseUint(b []byte, bits int) (uint64, bool) {
	if !plainInteger(b) || b[0] == '-' {
		return 0, false
	}
	u, ok := digits(b)
	if !ok || bits < 64 && u >= 1<<bits {
		return 0, false
	}
	return u, true
}

// digits is the value of a run of decimal digits, if it fits in 64 bits.
func digits(b []byte) (uint64, bool) {
	if len(b) > 19 {
		n, err := strconv.ParseUint(string(b), 10, 64)
		return n, err == nil
	}
	var u uint64 // 19 digits cannot overflow
	for _, c := range b {
		u = u*10 + uint64(c-'0')
	}
	return u, true
}

// plainInteger reports a JSON number with neither fraction nor exponent,
// and not -0.
func plainInteger(b []byte) bool {
	if len(b) == 0 || string(b) == "-0" {
		return false
	}
	for _, c := range b {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// float reads a float of bits bits: a number, a string holding one, or
// "NaN", "Infinity" or "-Infinity".
func (st *state) float(bits int) (float64, bool) {
	var b []byte
	if st.Peek() == '"' {
		s, ok := st.Str()
		if !ok {
			return 0, false
		}
		switch string(s) {
		case "NaN":
			return math.NaN(), true
		case "Infinity":
			return math.Inf(1), true
		case "-Infinity":
			return math.Inf(-1), true
		}
		if n, ok := jsonscan.NumberLen(s); !ok || n != len(s) {
			return 0, false
		}
		b = s
	} else {
		var ok bool
		if b, ok = st.Number(); !ok {
			return 0, false
		}
	}
	x, err := strconv.ParseFloat(string(b), bits)
	return x, err == nil
}

// decodeBase64 decodes bytes as protojson does (see appendBase64).
func decodeBase64(s []byte) (protoreflect.Value, bool) {
	out, ok := appendBase64([]byte{}, s) // empty, not nil: set
	if !ok {
		return protoreflect.Value{}, false
	}
	return protoreflect.ValueOfBytes(out), true
}

// appendBase64 appends to dst the bytes s encodes as protojson decodes
// them: standard or URL alphabet (by whether - or _ appear), padded or not
// (by the length).
func appendBase64(dst, s []byte) ([]byte, bool) {
	url := false
	for _, c := range s {
		if c == '-' || c == '_' {
			url = true
			break
		}
	}
	// The Raw encodings are WithPadding(NoPadding), made once.
	enc := base64.StdEncoding
	switch raw := len(s)%4 != 0; {
	case url && raw:
		enc = base64.RawURLEncoding
	case url:
		enc = base64.URLEncoding
	case raw:
		enc = base64.RawStdEncoding
	}
	at := len(dst)
	dst = slices.Grow(dst, enc.DecodedLen(len(s)))
	n, err := enc.Decode(dst[at:at+enc.DecodedLen(len(s))], s)
	if err != nil {
		return dst[:at], false
	}
	return dst[:at+n], true
}

// enum reads an enum value: its name, its number, or null for
// google.protobuf.NullValue.
func (st *state) enum(f *field) (protoreflect.Value, bool) {
	switch c := st.Peek(); {
	case c == '"':
		name, ok := st.Str()
		if !ok {
			return protoreflect.Value{}, false
		}
		if n, ok := f.enum[string(name)]; ok {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), true
		}
		return protoreflect.Value{}, st.discard
	case c == 'n':
		if f.nullable && st.Literal("null") {
			return protoreflect.ValueOfEnum(0), true
		}
	default:
		b, ok := st.Number()
		if !ok {
			return protoreflect.Value{}, false
		}
		if n, ok := parseInt(b, 32); ok {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), true
		}
	}
	return protoreflect.Value{}, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
