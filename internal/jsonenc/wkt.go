package jsonenc

import (
	"fmt"
	"math"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/wellknown"
)

// wktWriter writes a well-known type in its own JSON form; p is the plan
// of m's own descriptor, whose field plans it may use.
type wktWriter func(e *Encoder, b []byte, m protoreflect.Message, p *plan) ([]byte, error)

func wellKnownWriter(name protoreflect.FullName) wktWriter {
	switch wellknown.Of(name) {
	case wellknown.Any:
		return (*Encoder).appendAny
	case wellknown.Timestamp:
		return appendTimestamp
	case wellknown.Duration:
		return appendDuration
	case wellknown.Wrapper:
		return appendWrapper
	case wellknown.Struct:
		return appendStruct
	case wellknown.ListValue:
		return appendListValue
	case wellknown.Value:
		return appendValue
	case wellknown.FieldMask:
		return appendFieldMask
	case wellknown.Empty:
		return func(_ *Encoder, b []byte, _ protoreflect.Message, _ *plan) ([]byte, error) {
			return append(b, '{', '}'), nil
		}
	}
	return nil
}

// wktGoWriter writes a well-known type in its own JSON form from the
// generated Go struct sp points to.
type wktGoWriter func(e *Encoder, b []byte, sp goStructPtr, p *plan) ([]byte, error)

// wellKnownGoWriter returns the writer of a well-known type's Go struct,
// when its plan p reads every field from the struct.
func wellKnownGoWriter(name protoreflect.FullName, p *plan) wktGoWriter {
	if p.gofast == nil {
		return nil
	}
	for i := range p.fields {
		if p.fields[i].goKind == goNone {
			return nil
		}
	}
	switch wellknown.Of(name) {
	case wellknown.Timestamp:
		return func(_ *Encoder, b []byte, sp goStructPtr, p *plan) ([]byte, error) {
			return formatTimestamp(b, fieldAt[int64](sp, p.fields[0].goOffset), int64(fieldAt[int32](sp, p.fields[1].goOffset)))
		}
	case wellknown.Duration:
		return func(_ *Encoder, b []byte, sp goStructPtr, p *plan) ([]byte, error) {
			return formatDuration(b, fieldAt[int64](sp, p.fields[0].goOffset), int64(fieldAt[int32](sp, p.fields[1].goOffset)))
		}
	}
	return nil
}

func (e *Encoder) appendAny(b []byte, m protoreflect.Message, _ *plan) ([]byte, error) {
	fds := m.Descriptor().Fields()
	fdType, fdValue := fds.ByNumber(1), fds.ByNumber(2)
	if !m.Has(fdType) {
		if !m.Has(fdValue) {
			return append(b, '{', '}'), nil
		}
		return b, fmt.Errorf("%s: %v is not set", "google.protobuf.Any", "type_url")
	}
	typeURL := m.Get(fdType).String()
	mt, err := e.opts.Resolver.FindMessageByURL(typeURL)
	if err != nil {
		return b, fmt.Errorf("%s: unable to resolve %q: %v", "google.protobuf.Any", typeURL, err)
	}
	em := mt.New()
	err = proto.UnmarshalOptions{AllowPartial: true, Resolver: e.opts.Resolver}.Unmarshal(m.Get(fdValue).Bytes(), em.Interface())
	if err != nil {
		return b, fmt.Errorf("%s: unable to unmarshal %q: %v", "google.protobuf.Any", typeURL, err)
	}
	p := e.plan(em.Descriptor())
	if !p.supported {
		return b, ErrUnsupported
	}
	if p.wkt != nil {
		b = append(b, `{"@type":`...)
		if b, err = appendString(b, typeURL); err != nil {
			return b, err
		}
		b = append(b, `,"value":`...)
		if b, err = p.wkt(e, b, em, p); err != nil {
			return b, err
		}
		return append(b, '}'), nil
	}
	return e.appendMessage(b, em, p, typeURL)
}

const secondsInNanos = 999999999

func appendTimestamp(_ *Encoder, b []byte, m protoreflect.Message, _ *plan) ([]byte, error) {
	fds := m.Descriptor().Fields()
	return formatTimestamp(b, m.Get(fds.ByNumber(1)).Int(), m.Get(fds.ByNumber(2)).Int())
}

func formatTimestamp(b []byte, secs, nanos int64) ([]byte, error) {
	if secs < wellknown.MinTimestampSeconds || secs > wellknown.MaxTimestampSeconds {
		return b, fmt.Errorf("%s: seconds out of range %v", "google.protobuf.Timestamp", secs)
	}
	if nanos < 0 || nanos > secondsInNanos {
		return b, fmt.Errorf("%s: nanos out of range %v", "google.protobuf.Timestamp", nanos)
	}
	b = append(b, '"')
	b = appendDateTime(b, secs)
	b = appendNanos(b, nanos)
	return append(b, 'Z', '"'), nil
}

// appendDateTime writes secs since the Unix epoch, in years 1 to 9999
// (wellknown.MinTimestampSeconds to MaxTimestampSeconds), as
// "2006-01-02T15:04:05" in UTC, as time.Format would (by Howard Hinnant's
// days-to-civil algorithm, without time's layout parsing). In that range
// every count below is positive, so it is done in unsigned arithmetic.
func appendDateTime(b []byte, secs int64) []byte {
	since1 := uint64(secs - wellknown.MinTimestampSeconds) // seconds since 0001-01-01
	rem := uint32(since1 % 86400)
	z := uint32(since1/86400) + 306 // days since 0000-03-01
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day := doy - (153*mp+2)/5 + 1
	month := mp + 3
	if mp >= 10 {
		month = mp - 9
	}
	year := yoe + era*400
	if month <= 2 {
		year++
	}
	var d [19]byte // 2006-01-02T15:04:05
	put2(d[0:2], year/100)
	put2(d[2:4], year%100)
	d[4] = '-'
	put2(d[5:7], month)
	d[7] = '-'
	put2(d[8:10], day)
	d[10] = 'T'
	put2(d[11:13], rem/3600)
	d[13] = ':'
	put2(d[14:16], rem/60%60)
	d[16] = ':'
	put2(d[17:19], rem%60)
	return append(b, d[:]...)
}

// digitPairs holds "00" to "99".
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// put2 writes 0 <= n < 100 as two digits.
func put2(d []byte, n uint32) {
	d[0], d[1] = digitPairs[2*n], digitPairs[2*n+1]
}

func appendDuration(_ *Encoder, b []byte, m protoreflect.Message, _ *plan) ([]byte, error) {
	fds := m.Descriptor().Fields()
	return formatDuration(b, m.Get(fds.ByNumber(1)).Int(), m.Get(fds.ByNumber(2)).Int())
}

func formatDuration(b []byte, secs, nanos int64) ([]byte, error) {
	if secs < -wellknown.MaxDurationSeconds || secs > wellknown.MaxDurationSeconds {
		return b, fmt.Errorf("%s: seconds out of range %v", "google.protobuf.Duration", secs)
	}
	if nanos < -secondsInNanos || nanos > secondsInNanos {
		return b, fmt.Errorf("%s: nanos out of range %v", "google.protobuf.Duration", nanos)
	}
	if (secs > 0 && nanos < 0) || (secs < 0 && nanos > 0) {
		return b, fmt.Errorf("%s: signs of seconds and nanos do not match", "google.protobuf.Duration")
	}
	b = append(b, '"')
	if secs < 0 || nanos < 0 {
		b = append(b, '-')
		secs, nanos = -secs, -nanos
	}
	b = strconv.AppendInt(b, secs, 10)
	b = appendNanos(b, nanos)
	return append(b, 's', '"'), nil
}

// appendNanos writes the fraction of a second with 0, 3, 6 or 9 digits,
// as few as it needs; 0 <= nanos < 1e9.
func appendNanos(b []byte, nanos int64) []byte {
	if nanos == 0 {
		return b
	}
	n := uint32(nanos)
	var d [10]byte // .123456789
	d[0] = '.'
	d[1] = byte('0' + n/1e8)
	n %= 1e8
	put2(d[2:4], n/1e6)
	put2(d[4:6], n/1e4%100)
	put2(d[6:8], n/100%100)
	put2(d[8:10], n%100)
	end := len(d)
	for end > 4 && string(d[end-3:end]) == "000" {
		end -= 3
	}
	return append(b, d[:end]...)
}

func appendWrapper(e *Encoder, b []byte, m protoreflect.Message, p *plan) ([]byte, error) {
	f := &p.fields[0] // value
	return e.appendSingular(b, m.Get(f.fd), f)
}

func appendStruct(e *Encoder, b []byte, m protoreflect.Message, p *plan) ([]byte, error) {
	f := &p.fields[0] // fields
	return e.appendMap(b, m.Get(f.fd).Map(), f)
}

func appendListValue(e *Encoder, b []byte, m protoreflect.Message, p *plan) ([]byte, error) {
	f := &p.fields[0] // values
	return e.appendList(b, m.Get(f.fd).List(), f)
}

func appendValue(e *Encoder, b []byte, m protoreflect.Message, p *plan) ([]byte, error) {
	od := m.Descriptor().Oneofs().ByName("kind")
	fd := m.WhichOneof(od)
	if fd == nil {
		return b, fmt.Errorf("%s: none of the oneof fields is set", "google.protobuf.Value")
	}
	v := m.Get(fd)
	if fd.Number() == 2 { // number_value
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return b, fmt.Errorf("%s: invalid %v value", "google.protobuf.Value.number_value", f)
		}
	}
	return e.appendSingular(b, v, &p.fields[fd.Index()])
}

func appendFieldMask(_ *Encoder, b []byte, m protoreflect.Message, _ *plan) ([]byte, error) {
	list := m.Get(m.Descriptor().Fields().ByNumber(1)).List()
	b = append(b, '"')
	for i := range list.Len() {
		s := list.Get(i).String()
		if !protoreflect.FullName(s).IsValid() {
			return b, fmt.Errorf("%s contains invalid path: %q", "google.protobuf.FieldMask.paths", s)
		}
		cc := wellknown.CamelCase(s)
		if s != wellknown.SnakeCase(cc) {
			return b, fmt.Errorf("%s contains irreversible value %q", "google.protobuf.FieldMask.paths", s)
		}
		if i > 0 {
			b = append(b, ',')
		}
		// A valid path is ASCII letters, digits, '_' and '.': nothing to
		// escape.
		b = append(b, cc...)
	}
	return append(b, '"'), nil
}
