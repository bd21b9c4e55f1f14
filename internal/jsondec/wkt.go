package jsondec

import (
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// wkt names a well-known type with a JSON form of its own.
type wkt uint8

const (
	wktNone wkt = iota
	wktAny
	wktTimestamp
	wktDuration
	wktWrapper
	wktStruct
	wktListValue
	wktValue
	wktFieldMask
	wktEmpty
)

func wellKnown(name protoreflect.FullName) wkt {
	if name.Parent() != "google.protobuf" {
		return wktNone
	}
	switch name.Name() {
	case "Any":
		return wktAny
	case "Timestamp":
		return wktTimestamp
	case "Duration":
		return wktDuration
	case "BoolValue", "Int32Value", "Int64Value", "UInt32Value", "UInt64Value",
		"FloatValue", "DoubleValue", "StringValue", "BytesValue":
		return wktWrapper
	case "Struct":
		return wktStruct
	case "ListValue":
		return wktListValue
	case "Value":
		return wktValue
	case "FieldMask":
		return wktFieldMask
	case "Empty":
		return wktEmpty
	}
	return wktNone
}

// Limits of Timestamp and Duration, as protojson checks them.
const (
	minTimestampSeconds  = -62135596800
	maxTimestampSeconds  = 253402300799
	maxSecondsInDuration = 315576000000
)

// wellKnown reads a well-known type's own JSON form into m.
func (st *state) wellKnown(m protoreflect.Message, p *plan) error {
	ok := false
	switch p.wkt {
	case wktTimestamp:
		ok = st.timestamp(m, p)
	case wktDuration:
		ok = st.duration(m, p)
	case wktWrapper:
		var v protoreflect.Value
		if v, ok = st.scalar(&p.fields[0]); ok {
			m.Set(p.fields[0].fd, v)
		}
	case wktStruct:
		return st.mapValue(m.Mutable(p.fields[0].fd).Map(), &p.fields[0])
	case wktListValue:
		return st.list(m.Mutable(p.fields[0].fd).List(), &p.fields[0])
	case wktValue:
		return st.value(m, p)
	case wktFieldMask:
		ok = st.fieldMask(m, p)
	case wktEmpty:
		ok = st.empty()
	}
	if !ok {
		return errFallback
	}
	return nil
}

// byNumber is the field of p numbered n (well-known types have few).
func (p *plan) byNumber(n protoreflect.FieldNumber) *field {
	for i := range p.fields {
		if p.fields[i].fd.Number() == n {
			return &p.fields[i]
		}
	}
	panic("jsondec: " + string(p.desc.FullName()) + " has no field " + strconv.Itoa(int(n)))
}

func (st *state) timestamp(m protoreflect.Message, p *plan) bool {
	s, ok := st.str()
	if !ok {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, string(s))
	if err != nil {
		return false
	}
	secs := t.Unix()
	if secs < minTimestampSeconds || secs > maxTimestampSeconds {
		return false
	}
	// At most nine digits of fraction.
	i := lastIndex(s, func(c byte) bool { return c == '.' })
	j := lastIndex(s, func(c byte) bool { return c == 'Z' || c == '-' || c == '+' })
	if i >= 0 && j >= i && j-i > len(".999999999") {
		return false
	}
	sv, _ := p.layout.Struct(m)
	set(m, sv, p.byNumber(1), protoreflect.ValueOfInt64(secs))
	set(m, sv, p.byNumber(2), protoreflect.ValueOfInt32(int32(t.Nanosecond())))
	return true
}

func lastIndex(s []byte, match func(byte) bool) int {
	for i := len(s) - 1; i >= 0; i-- {
		if match(s[i]) {
			return i
		}
	}
	return -1
}

func (st *state) duration(m protoreflect.Message, p *plan) bool {
	s, ok := st.str()
	if !ok {
		return false
	}
	secs, nanos, ok := parseDuration(s)
	if !ok || secs < -maxSecondsInDuration || secs > maxSecondsInDuration {
		return false
	}
	sv, _ := p.layout.Struct(m)
	set(m, sv, p.byNumber(1), protoreflect.ValueOfInt64(secs))
	set(m, sv, p.byNumber(2), protoreflect.ValueOfInt32(nanos))
	return true
}

// parseDuration reads a Duration's string form by protojson's grammar:
// an optional sign, integer seconds, up to nine digits of fraction, and
// "s" (the integer part may be left out: ".5s" and even ".s" are taken).
func parseDuration(b []byte) (secs int64, nanos int32, ok bool) {
	if len(b) < 2 || b[len(b)-1] != 's' {
		return 0, 0, false
	}
	b = b[:len(b)-1]
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
	var intp []byte
	switch {
	case b[0] == '0':
		b = b[1:]
	case '1' <= b[0] && b[0] <= '9':
		n := 1
		for n < len(b) && isDigit(b[n]) {
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
		for ; n < len(b) && n < 9 && isDigit(b[n]); n++ {
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
		if secs, err = strconv.ParseInt(string(intp), 10, 64); err != nil {
			return 0, 0, false
		}
	}
	if neg {
		secs, nanos = -secs, -nanos
	}
	return secs, nanos, true
}

// value reads google.protobuf.Value: any JSON value.
func (st *state) value(m protoreflect.Message, p *plan) error {
	var f *field
	var v protoreflect.Value
	switch c := st.peek(); {
	case c == 'n':
		if !st.literal("null") {
			return errFallback
		}
		f, v = p.byNumber(1), protoreflect.ValueOfEnum(0)
	case c == 't' || c == 'f':
		f = p.byNumber(4)
		var ok bool
		if v, ok = st.scalar(f); !ok {
			return errFallback
		}
	case c == '-' || isDigit(c):
		b, _ := st.number()
		x, err := strconv.ParseFloat(string(b), 64)
		if b == nil || err != nil {
			return errFallback
		}
		f, v = p.byNumber(2), protoreflect.ValueOfFloat64(x)
	case c == '"':
		s, ok := st.str()
		if !ok {
			return errFallback
		}
		f, v = p.byNumber(3), protoreflect.ValueOfString(string(s))
	case c == '{':
		// A Struct or ListValue inside a Value is not a level of its own
		// for protojson's recursion limit.
		f = p.byNumber(5)
		v = m.NewField(f.fd)
		inner := &f.elem.fields[0]
		if err := st.mapValue(v.Message().Mutable(inner.fd).Map(), inner); err != nil {
			return err
		}
	case c == '[':
		f = p.byNumber(6)
		v = m.NewField(f.fd)
		inner := &f.elem.fields[0]
		if err := st.list(v.Message().Mutable(inner.fd).List(), inner); err != nil {
			return err
		}
	default:
		return errFallback
	}
	m.Set(f.fd, v)
	return nil
}

// fieldMask reads a FieldMask: comma-separated lowerCamel paths, each
// turned to snake_case and required to be a valid name.
func (st *state) fieldMask(m protoreflect.Message, p *plan) bool {
	b, ok := st.str()
	if !ok {
		return false
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return true
	}
	f := p.byNumber(1)
	l := m.Mutable(f.fd).List()
	for path := range strings.SplitSeq(s, ",") {
		snake := snakeCase(path)
		if strings.Contains(path, "_") || !protoreflect.FullName(snake).IsValid() {
			return false
		}
		l.Append(protoreflect.ValueOfString(snake))
	}
	return true
}

// snakeCase is protojson's JSONSnakeCase: each upper-case ASCII letter
// becomes _ and its lower case.
func snakeCase(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// empty reads google.protobuf.Empty: an object with no members, or with
// members it skips when unknown fields are discarded.
func (st *state) empty() bool {
	empty, ok := st.open('{')
	if !ok || !empty && !st.discard {
		return false
	}
	for more := !empty; more; {
		if _, ok := st.str(); !ok {
			return false
		}
		st.ws()
		if !st.consume(':') || !st.skip(st.limit) {
			return false
		}
		if more, ok = st.more('}'); !ok {
			return false
		}
	}
	return true
}
