package jsondec

import (
	"reflect"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/wellknown"
)

// wkt names a well-known type with a JSON form of its own (see package
// wellknown).
type wkt = wellknown.Type

const (
	wktNone      = wellknown.None
	wktAny       = wellknown.Any
	wktTimestamp = wellknown.Timestamp
	wktDuration  = wellknown.Duration
	wktWrapper   = wellknown.Wrapper
	wktStruct    = wellknown.Struct
	wktListValue = wellknown.ListValue
	wktValue     = wellknown.Value
	wktFieldMask = wellknown.FieldMask
	wktEmpty     = wellknown.Empty
)

// Limits of Timestamp and Duration, as protojson checks them.
const (
	minTimestampSeconds  = -62135596800
	maxTimestampSeconds  = 253402300799
	maxSecondsInDuration = 315576000000
)

// wellKnown reads a well-known type's own JSON form into m.
func (st *state) wellKnown(m protoreflect.Message, sv reflect.Value, p *plan) error {
	ok := false
	switch p.wkt {
	case wktTimestamp:
		var secs int64
		var nanos int32
		if secs, nanos, ok = st.timestampValue(); ok {
			setSecondsNanos(m, sv, p, secs, nanos)
		}
	case wktDuration:
		var secs int64
		var nanos int32
		if secs, nanos, ok = st.durationValue(); ok {
			setSecondsNanos(m, sv, p, secs, nanos)
		}
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

// setSecondsNanos stores a Timestamp's or Duration's two fields.
func setSecondsNanos(m protoreflect.Message, sv reflect.Value, p *plan, secs int64, nanos int32) {
	set(m, sv, p.byNumber(1), protoreflect.ValueOfInt64(secs))
	set(m, sv, p.byNumber(2), protoreflect.ValueOfInt32(nanos))
}

// timestampValue reads a Timestamp's string form: its seconds and nanos.
func (st *state) timestampValue() (secs int64, nanos int32, ok bool) {
	s, ok := st.str()
	if !ok {
		return 0, 0, false
	}
	secs, nanos, ok = parseUTC(s)
	if !ok {
		t, err := time.Parse(time.RFC3339Nano, string(s))
		if err != nil {
			return 0, 0, false
		}
		secs, nanos = t.Unix(), int32(t.Nanosecond())
	}
	if secs < minTimestampSeconds || secs > maxTimestampSeconds {
		return 0, 0, false
	}
	// At most nine digits of fraction.
	i := lastIndex(s, func(c byte) bool { return c == '.' })
	j := lastIndex(s, func(c byte) bool { return c == 'Z' || c == '-' || c == '+' })
	if i >= 0 && j >= i && j-i > len(".999999999") {
		return 0, 0, false
	}
	return secs, nanos, true
}

// parseUTC reads the form encoders write, YYYY-MM-DDTHH:MM:SS[.f]Z with
// one to nine digits of fraction, as time.Parse(time.RFC3339Nano) would;
// ok is false for anything else, which time.Parse then decides.
func parseUTC(s []byte) (secs int64, nanos int32, ok bool) {
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
func num(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if !isDigit(c) {
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

func lastIndex(s []byte, match func(byte) bool) int {
	for i := len(s) - 1; i >= 0; i-- {
		if match(s[i]) {
			return i
		}
	}
	return -1
}

// durationValue reads a Duration's string form: its seconds and nanos.
func (st *state) durationValue() (secs int64, nanos int32, ok bool) {
	s, ok := st.str()
	if !ok {
		return 0, 0, false
	}
	secs, nanos, ok = parseDuration(s)
	if !ok || secs < -maxSecondsInDuration || secs > maxSecondsInDuration {
		return 0, 0, false
	}
	return secs, nanos, true
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

// valueMember is the member of google.protobuf.Value's oneof (plan p)
// that the JSON value starting with c sets, nil if none does.
func valueMember(p *plan, c byte) *field {
	switch {
	case c == 'n':
		return p.byNumber(1) // null_value
	case c == '-' || isDigit(c):
		return p.byNumber(2) // number_value
	case c == '"':
		return p.byNumber(3) // string_value
	case c == 't' || c == 'f':
		return p.byNumber(4) // bool_value
	case c == '{':
		return p.byNumber(5) // struct_value
	case c == '[':
		return p.byNumber(6) // list_value
	}
	return nil
}

// valueNumber reads a Value's number_value: a JSON number, as a double.
func (st *state) valueNumber() (float64, bool) {
	b, _ := st.number()
	x, err := strconv.ParseFloat(string(b), 64)
	return x, b != nil && err == nil
}

// value reads google.protobuf.Value: any JSON value.
func (st *state) value(m protoreflect.Message, p *plan) error {
	f := valueMember(p, st.peek())
	if f == nil {
		return errFallback
	}
	var v protoreflect.Value
	ok := true
	switch f.fd.Number() {
	case 1:
		ok, v = st.literal("null"), protoreflect.ValueOfEnum(0)
	case 2:
		var x float64
		x, ok = st.valueNumber()
		v = protoreflect.ValueOfFloat64(x)
	case 3:
		var s []byte
		s, ok = st.str()
		v = protoreflect.ValueOfString(string(s))
	case 4:
		v, ok = st.scalar(f)
	case 5, 6:
		// A Struct or ListValue inside a Value is not a level of its own
		// for protojson's recursion limit.
		v = m.NewField(f.fd)
		inner := &f.elem.fields[0]
		var err error
		if f.fd.Number() == 5 {
			err = st.mapValue(v.Message().Mutable(inner.fd).Map(), inner)
		} else {
			err = st.list(v.Message().Mutable(inner.fd).List(), inner)
		}
		if err != nil {
			return err
		}
	}
	if !ok {
		return errFallback
	}
	m.Set(f.fd, v)
	return nil
}

// fieldMask reads a FieldMask.
func (st *state) fieldMask(m protoreflect.Message, p *plan) bool {
	var l protoreflect.List
	return st.fieldMaskPaths(func(path string) {
		if l == nil {
			l = m.Mutable(p.byNumber(1).fd).List()
		}
		l.Append(protoreflect.ValueOfString(path))
	})
}

// fieldMaskPaths reads a FieldMask's string form, comma-separated
// lowerCamel paths, and calls add with each turned to snake_case; false if
// one is not a valid name.
func (st *state) fieldMaskPaths(add func(path string)) bool {
	b, ok := st.str()
	if !ok {
		return false
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return true
	}
	for path := range strings.SplitSeq(s, ",") {
		snake := wellknown.SnakeCase(path)
		if strings.Contains(path, "_") || !protoreflect.FullName(snake).IsValid() {
			return false
		}
		add(snake)
	}
	return true
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
