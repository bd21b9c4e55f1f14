package jsondec

import (
	"bytes"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/wellknown"
)

// The wire target: JSON transcoded straight to the protobuf wire form,
// for a backend that takes the bytes as they are, with no message built
// in between. The input is read as for the message target, through the
// same scanner, plans, members loop, scalar and well-known readers, so
// the two take and refuse the same input; only where the values go
// differs. Fields are written in the order the JSON gives them, implicit
// zeros left out, as proto.Unmarshal then builds the message protojson
// would (fields out of number order, a repeated field's elements split
// between runs, are the same message to it).

// AppendWire appends to dst the protobuf wire form of the message of type
// md that data holds in JSON, as protojson reads it with the decoder's
// options: proto.Unmarshal of the bytes appended builds a message equal
// to the one protojson.Unmarshal builds. ok is false when the decoder
// leaves the input to protojson (dst is then returned as it was): read
// it into a message instead (Unmarshal) and marshal that. Besides what
// TryUnmarshal leaves, that is every type that holds a required field,
// proto2's or editions' (whose absence the wire form would not report).
func (d *Decoder) AppendWire(dst []byte, md protoreflect.MessageDescriptor, data []byte) ([]byte, bool) {
	p := d.plan(md)
	if p.fallback || p.required {
		return dst, false
	}
	at := len(dst)
	st := d.start(data)
	out, err := st.wireMessage(dst, p)
	if err == nil && !st.end() {
		err = errFallback
	}
	d.release(st)
	if err != nil {
		return dst[:at], false
	}
	return out, true
}

// wireMessage appends the fields of a message of plan p, as message
// reads them.
func (st *state) wireMessage(dst []byte, p *plan) ([]byte, error) {
	if !st.enter() {
		return dst, errFallback
	}
	dst, err := st.wireBody(dst, p)
	st.leave()
	return dst, err
}

func (st *state) wireBody(dst []byte, p *plan) ([]byte, error) {
	if p.fallback {
		return dst, errFallback
	}
	if p.wkt != wktNone {
		return st.wireWellKnown(dst, p)
	}
	err := st.members(p, func(f *field) error {
		var err error
		dst, err = st.wireMember(dst, f)
		return err
	})
	return dst, err
}

// wireMember appends field f, as member reads it.
func (st *state) wireMember(dst []byte, f *field) ([]byte, error) {
	switch {
	case f.list:
		return st.wireList(dst, f)
	case f.isMap:
		return st.wireMap(dst, f)
	case f.elem != nil:
		at := startLen(dst, f.fd.Number())
		dst, err := st.wireMessage(at, f.elem)
		return endLen(dst, len(at)), err
	}
	dst, ok := st.wireScalar(dst, f, f.fd.Number(), f.fd.HasPresence())
	if !ok {
		return dst, errFallback
	}
	return dst, nil
}

// wireList appends the JSON array of list field f, as list reads it:
// packed in one record when the field is, else element by element.
func (st *state) wireList(dst []byte, f *field) ([]byte, error) {
	empty, ok := st.Open('[')
	if !ok {
		return dst, errFallback
	}
	num, packed := f.fd.Number(), f.packed
	start := len(dst)
	if packed {
		dst = startLen(dst, num)
	}
	body := len(dst)
	for more := !empty; more; {
		var err error
		switch {
		case f.elem != nil:
			at := startLen(dst, num)
			dst, err = st.wireMessage(at, f.elem)
			dst = endLen(dst, len(at))
		case packed:
			dst, ok = st.wireScalar(dst, f, 0, true)
		default:
			dst, ok = st.wireScalar(dst, f, num, true)
		}
		if err != nil || !ok {
			return dst, errFallback
		}
		if more, ok = st.More(']'); !ok {
			return dst, errFallback
		}
	}
	switch {
	case len(dst) == body:
		dst = dst[:start] // nothing, or every enum name discarded
	case packed:
		dst = endLen(dst, body)
	}
	return dst, nil
}

// linearKeys is how many entries of a map are checked for a duplicate key
// by reading back those written; a larger map's keys go in a set.
const linearKeys = 16

// wireMap appends the JSON object of map field f, an entry (key 1, value
// 2) for each member, as mapValue reads it. A key given twice is left to
// protojson: each key is compared with those of the entries written
// (which are the keys mapValue would have set), read back from dst.
func (st *state) wireMap(dst []byte, f *field) ([]byte, error) {
	empty, ok := st.Open('{')
	if !ok {
		return dst, errFallback
	}
	num := f.fd.Number()
	start, entries := len(dst), 0
	var keys map[string]struct{} // past linearKeys entries
	for more := !empty; more; {
		name, ok := st.Str()
		if !ok {
			return dst, errFallback
		}
		entry := len(dst)
		dst = startLen(dst, num)
		body := len(dst)
		if f.key == protoreflect.StringKind {
			dst = protowire.AppendTag(dst, 1, protowire.BytesType)
			dst = protowire.AppendBytes(dst, name)
		} else {
			k, ok := mapKey(name, f.key)
			if !ok {
				return dst, errFallback
			}
			dst = appendScalar(dst, 1, f.key, k.Value())
		}
		key := dst[body:]
		st.Space()
		if !st.Consume(':') || hasKey(dst[start:entry], key, keys) {
			return dst, errFallback
		}
		var err error
		if f.elem != nil {
			at := startLen(dst, 2)
			dst, err = st.wireMessage(at, f.elem)
			dst = endLen(dst, len(at))
		} else {
			before := len(dst)
			if dst, ok = st.wireScalar(dst, f, 2, true); ok && len(dst) == before {
				dst = dst[:entry] // an enum name discarded: no entry
			}
		}
		if err != nil || !ok {
			return dst, errFallback
		}
		if len(dst) > entry {
			dst = endLen(dst, body)
			entries++
			if entries > linearKeys {
				if keys == nil {
					keys = make(map[string]struct{}, 2*linearKeys)
					for b := dst[start:entry]; len(b) > 0; {
						var k []byte
						k, b = nextKey(b)
						keys[string(k)] = struct{}{}
					}
				}
				k, _ := nextKey(dst[entry:])
				keys[string(k)] = struct{}{}
			}
		}
		if more, ok = st.More('}'); !ok {
			return dst, errFallback
		}
	}
	return dst, nil
}

// hasKey reports whether one of the map entries in b has key, the key
// field of an entry as written (tag and value). keys, if not nil, holds
// them all.
func hasKey(b, key []byte, keys map[string]struct{}) bool {
	if keys != nil {
		_, ok := keys[string(key)]
		return ok
	}
	for len(b) > 0 {
		var k []byte
		k, b = nextKey(b)
		if bytes.Equal(k, key) {
			return true
		}
	}
	return false
}

// nextKey is the key field (tag and value) of the first map entry in b,
// and the rest of b.
func nextKey(b []byte) (key, rest []byte) {
	_, _, n := protowire.ConsumeTag(b)
	body, m := protowire.ConsumeBytes(b[n:])
	_, _, k := protowire.ConsumeField(body)
	return body[:k], b[n+m:]
}

// wireScalar reads a value of f's kind (not a message) as scalar does and
// appends it, as field num, or bare when num is 0 (a packed element).
// An implicit zero is left out unless keep; an enum name discarded is
// left out. ok is false for input scalar refuses.
func (st *state) wireScalar(dst []byte, f *field, num protowire.Number, keep bool) ([]byte, bool) {
	kind := f.kind
	if kind == protoreflect.StringKind || kind == protoreflect.BytesKind {
		// The bytes go from the input to dst, not through a Value.
		s, ok := st.Str()
		if !ok {
			return dst, false
		}
		at := len(dst)
		dst = startLen(dst, num)
		body := len(dst)
		if kind == protoreflect.StringKind {
			dst = append(dst, s...)
		} else if dst, ok = appendBase64(dst, s); !ok {
			return dst[:at], false
		}
		if len(dst) == body && !keep {
			return dst[:at], true
		}
		return endLen(dst, body), true
	}
	v, ok := st.scalar(f)
	switch {
	case !ok:
		return dst, false
	case !v.IsValid():
		return dst, true // an enum name discarded
	case !keep && isZero(kind, v):
		return dst, true
	}
	return appendScalar(dst, num, kind, v), true
}

// appendScalar appends v, of kind k, as field num, or bare if num is 0.
func appendScalar(dst []byte, num protowire.Number, k protoreflect.Kind, v protoreflect.Value) []byte {
	if num != 0 {
		dst = protowire.AppendTag(dst, num, wellknown.WireType(k))
	}
	switch k {
	case protoreflect.BoolKind:
		return protowire.AppendVarint(dst, protowire.EncodeBool(v.Bool()))
	case protoreflect.EnumKind:
		return protowire.AppendVarint(dst, uint64(v.Enum())) // negative: ten bytes
	case protoreflect.Int32Kind, protoreflect.Int64Kind:
		return protowire.AppendVarint(dst, uint64(v.Int())) // int32 sign-extended
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return protowire.AppendVarint(dst, protowire.EncodeZigZag(v.Int()))
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		return protowire.AppendVarint(dst, v.Uint())
	case protoreflect.Fixed32Kind:
		return protowire.AppendFixed32(dst, uint32(v.Uint()))
	case protoreflect.Sfixed32Kind:
		return protowire.AppendFixed32(dst, uint32(v.Int()))
	case protoreflect.FloatKind:
		return protowire.AppendFixed32(dst, math.Float32bits(float32(v.Float())))
	case protoreflect.Fixed64Kind:
		return protowire.AppendFixed64(dst, v.Uint())
	case protoreflect.Sfixed64Kind:
		return protowire.AppendFixed64(dst, uint64(v.Int()))
	case protoreflect.DoubleKind:
		return protowire.AppendFixed64(dst, math.Float64bits(v.Float()))
	case protoreflect.StringKind:
		return protowire.AppendString(dst, v.String())
	case protoreflect.BytesKind:
		return protowire.AppendBytes(dst, v.Bytes())
	}
	panic("jsondec: no wire form for kind " + k.String())
}

// isZero reports v, of kind k, as the value an implicit-presence field
// does not hold (-0.0 is not zero: its bits are not).
func isZero(k protoreflect.Kind, v protoreflect.Value) bool {
	switch k {
	case protoreflect.BoolKind:
		return !v.Bool()
	case protoreflect.EnumKind:
		return v.Enum() == 0
	case protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Sint32Kind, protoreflect.Sint64Kind,
		protoreflect.Sfixed32Kind, protoreflect.Sfixed64Kind:
		return v.Int() == 0
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return v.Uint() == 0
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return math.Float64bits(v.Float()) == 0
	}
	return false
}

// startLen appends the tag of field num, length-delimited, and one byte
// for the length, which endLen writes once the body that follows is
// known; num 0 appends the length byte only. The body starts at the
// returned slice's length.
func startLen(dst []byte, num protowire.Number) []byte {
	if num != 0 {
		dst = protowire.AppendTag(dst, num, protowire.BytesType)
	}
	return append(dst, 0)
}

// endLen writes the length of the body that starts at body (see
// startLen), moving the body up when the length takes more than a byte.
func endLen(dst []byte, body int) []byte {
	n := len(dst) - body
	if n < 0x80 {
		dst[body-1] = byte(n)
		return dst
	}
	k := protowire.SizeVarint(uint64(n))
	dst = append(dst, make([]byte, k-1)...)
	copy(dst[body+k-1:], dst[body:body+n])
	protowire.AppendVarint(dst[:body-1], uint64(n))
	return dst
}

// wireWellKnown appends a well-known type's fields from its own JSON
// form, as wellKnown reads it.
func (st *state) wireWellKnown(dst []byte, p *plan) ([]byte, error) {
	ok := false
	switch p.wkt {
	case wktTimestamp, wktDuration:
		var secs int64
		var nanos int32
		if p.wkt == wktTimestamp {
			secs, nanos, ok = st.timestampValue()
		} else {
			secs, nanos, ok = st.durationValue()
		}
		if secs != 0 {
			dst = appendScalar(dst, 1, protoreflect.Int64Kind, protoreflect.ValueOfInt64(secs))
		}
		if nanos != 0 {
			dst = appendScalar(dst, 2, protoreflect.Int32Kind, protoreflect.ValueOfInt32(nanos))
		}
	case wktWrapper:
		f := &p.fields[0]
		dst, ok = st.wireScalar(dst, f, f.fd.Number(), f.fd.HasPresence())
	case wktStruct:
		return st.wireMap(dst, &p.fields[0])
	case wktListValue:
		return st.wireList(dst, &p.fields[0])
	case wktValue:
		return st.wireValue(dst, p)
	case wktFieldMask:
		num := p.byNumber(1).fd.Number()
		ok = st.fieldMaskPaths(func(path string) {
			dst = protowire.AppendTag(dst, num, protowire.BytesType)
			dst = protowire.AppendString(dst, path)
		})
	case wktEmpty:
		ok = st.empty()
	}
	if !ok {
		return dst, errFallback
	}
	return dst, nil
}

// wireValue appends google.protobuf.Value's one member, as value reads
// it. Members of a oneof are written even when zero.
func (st *state) wireValue(dst []byte, p *plan) ([]byte, error) {
	f := valueMember(p, st.Peek())
	if f == nil {
		return dst, errFallback
	}
	num := f.fd.Number()
	ok := true
	switch num {
	case 1:
		ok = st.Literal("null")
		dst = appendScalar(dst, num, protoreflect.EnumKind, protoreflect.ValueOfEnum(0))
	case 2:
		var x float64
		x, ok = st.valueNumber()
		dst = appendScalar(dst, num, protoreflect.DoubleKind, protoreflect.ValueOfFloat64(x))
	case 3, 4:
		dst, ok = st.wireScalar(dst, f, num, true)
	case 5, 6:
		// Not a level of its own for the recursion limit (see value).
		at := startLen(dst, num)
		var err error
		if num == 5 {
			dst, err = st.wireMap(at, &f.elem.fields[0])
		} else {
			dst, err = st.wireList(at, &f.elem.fields[0])
		}
		if err != nil {
			return dst, err
		}
		dst = endLen(dst, len(at))
	}
	if !ok {
		return dst, errFallback
	}
	return dst, nil
}
