package jsondec

import (
	"reflect"
	"strconv"
	"strings"

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
	s, ok := st.Str()
	if !ok {
		return 0, 0, false
	}
	return wellknown.ParseTimestamp(s)
}

// durationValue reads a Duration's string form: its seconds and nanos.
func (st *state) durationValue() (secs int64, nanos int32, ok bool) {
	s, ok := st.Str()
	if !ok {
		return 0, 0, false
	}
	return wellknown.ParseDuration(s)
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
	b, _ := st.Number()
	x, err := strconv.ParseFloat(string(b), 64)
	return x, b != nil && err == nil
}

// value reads google.protobuf.Value: any JSON value.
func (st *state) value(m protoreflect.Message, p *plan) error {
	f := valueMember(p, st.Peek())
	if f == nil {
		return errFallback
	}
	var v protoreflect.Value
	ok := true
	switch f.fd.Number() {
	case 1:
		ok, v = st.Literal("null"), protoreflect.ValueOfEnum(0)
	case 2:
		var x float64
		x, ok = st.valueNumber()
		v = protoreflect.ValueOfFloat64(x)
	case 3:
		var s []byte
		s, ok = st.Str()
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
	b, ok := st.Str()
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
	empty, ok := st.Open('{')
	if !ok || !empty && !st.discard {
		return false
	}
	for more := !empty; more; {
		if _, ok := st.Str(); !ok {
			return false
		}
		st.Space()
		if !st.Consume(':') || !st.Skip(st.limit) {
			return false
		}
		if more, ok = st.More('}'); !ok {
			return false
		}
	}
	return true
}
