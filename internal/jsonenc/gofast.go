package jsonenc

import (
	"math"
	"reflect"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/gostruct"
)

// Fast paths for generated messages. Reading a map or a repeated string
// through protoreflect converts every element through reflect and
// allocates for each, a repeated field's Get allocates a wrapper, and
// every Get and Has goes through protobuf-go's field accessors; for a
// generated message the value is right there in its struct. The plan
// finds, once, the struct field of each map<string, string>, repeated
// string, repeated message, singular message and presence-free scalar
// field (oneofs and fields with presence stay on protoreflect), and the
// encoder reads it directly when the message is of that Go type; messages
// of other types (dynamicpb, another generation of the same descriptor)
// take the protoreflect path.
//
// The fields are read at their offsets in the struct (goread.go), with
// the Go type reflect found there when the plan was built: through
// reflect.Value, finding and checking each field on every message
// cost about a third of the encoder's time.

// goKind says how a field is read from the generated Go struct (see
// package gostruct, which finds it).
type goKind = gostruct.Kind

const (
	goNone        = gostruct.None        // through protoreflect
	goStringMap   = gostruct.StringMap   // map[string]string
	goStringList  = gostruct.StringList  // []string
	goMessageList = gostruct.MessageList // []*Message
	goScalar      = gostruct.Scalar      // a scalar without presence, as its Go value
	goMessage     = gostruct.Message     // a singular message, as its *Message
)

// goStruct is the generated Go type of a plan's messages; each field's
// goKind and goOffset say where it lives.
type goStruct struct {
	typ reflect.Type // the message's pointer type
}

// findGoStruct looks up the generated type of md and marks the fields
// that can be read from its struct, or returns nil.
func findGoStruct(md protoreflect.MessageDescriptor, fields []field) *goStruct {
	l := gostruct.Find(md)
	if l == nil {
		return nil
	}
	st := l.Type.Elem()
	for i := range fields {
		f := &fields[i]
		gf, ok := l.Fields[f.fd.Number()]
		if !ok {
			continue
		}
		sf := st.Field(gf.Index)
		f.goKind, f.goOffset = gf.Kind, sf.Offset
		switch gf.Kind {
		case goMessageList:
			f.goElemType = sf.Type.Elem()
		case goMessage:
			f.goElemType = sf.Type
		}
	}
	return &goStruct{typ: l.Type}
}

// markGoElems marks the message fields, of the plans just built, whose
// messages are of their plan's generated Go type, so that they are read
// from their structs too. It runs once every plan of the graph exists.
func markGoElems(building map[protoreflect.MessageDescriptor]*plan) {
	for _, q := range building {
		for i := range q.fields {
			f := &q.fields[i]
			f.elemGo = f.goElemType != nil && f.elem.gofast != nil && f.elem.gofast.typ == f.goElemType
		}
	}
}

// goValue returns the struct m points to, when m is of the plan's
// generated type, or nil.
func (p *plan) goValue(m protoreflect.Message) goStructPtr {
	if p.gofast == nil {
		return nil
	}
	return structOf(m.Interface(), p.gofast.typ)
}

// appendGoMessage writes the message whose Go struct sp points to, of p's
// generated type, reading through protoreflect only the fields that
// cannot be read from the struct.
func (e *Encoder) appendGoMessage(b []byte, sp goStructPtr, p *plan) ([]byte, error) {
	if p.wkt != nil {
		if p.wktGo != nil {
			return p.wktGo(e, b, sp, p)
		}
		return p.wkt(e, b, messageAt(p.gofast.typ, sp), p)
	}
	return e.appendFields(append(b, '{'), nil, sp, p, true)
}

// appendGoElem writes the message sp points to, a singular field's value
// or a list element of field f: from its Go struct when f.elemGo says it
// can, else through protoreflect.
func (e *Encoder) appendGoElem(b []byte, f *field, sp goStructPtr) ([]byte, error) {
	if f.elemGo && sp != nil {
		return e.appendGoMessage(b, sp, f.elem)
	}
	return e.appendMessage(b, messageAt(f.goElemType, sp), f.elem, "")
}

// appendFast writes field f of the struct sp points to; an empty one is
// written as appendUnset says.
func (e *Encoder) appendFast(b []byte, f *field, sp goStructPtr, first *bool) ([]byte, error) {
	var err error
	switch f.goKind {
	case goScalar:
		return e.appendGoScalar(b, f, sp, first)
	case goMessage:
		mp := fieldAt[goStructPtr](sp, f.goOffset)
		if mp == nil {
			return e.appendUnset(b, f, first)
		}
		b = appendKey(b, f, first)
		return e.appendGoElem(b, f, mp)
	case goStringMap:
		mp := fieldAt[map[string]string](sp, f.goOffset)
		if len(mp) == 0 {
			return e.appendUnset(b, f, first)
		}
		if e.cannotHold(b, len(mp), minMapEntry) {
			return b, ErrTooLarge
		}
		b = appendKey(b, f, first)
		return e.appendStringMap(b, mp, f)
	case goStringList:
		list := fieldAt[[]string](sp, f.goOffset)
		if len(list) == 0 {
			return e.appendUnset(b, f, first)
		}
		if e.cannotHold(b, len(list), minElement) {
			return b, ErrTooLarge
		}
		b = appendKey(b, f, first)
		b = append(b, '[')
		for j, s := range list {
			if j > 0 {
				b = append(b, ',')
			}
			if e.over(b) {
				return b, ErrTooLarge
			}
			if b, err = appendString(b, s); err != nil {
				return b, errInvalidUTF8(f.fd.FullName())
			}
		}
		return append(b, ']'), nil
	}
	list := fieldAt[[]goStructPtr](sp, f.goOffset) // goMessageList
	if len(list) == 0 {
		return e.appendUnset(b, f, first)
	}
	if e.cannotHold(b, len(list), minElement) {
		return b, ErrTooLarge
	}
	b = appendKey(b, f, first)
	b = append(b, '[')
	for j, mp := range list {
		if j > 0 {
			b = append(b, ',')
		}
		if e.over(b) {
			return b, ErrTooLarge
		}
		if b, err = e.appendGoElem(b, f, mp); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendGoScalar writes scalar field f, without presence, of the struct
// sp points to, as appendSingular writes a protoreflect value; a zero
// value (but a negative zero) is unset, as protobuf-go's Has says, and
// written as appendUnset says.
func (e *Encoder) appendGoScalar(b []byte, f *field, sp goStructPtr, first *bool) ([]byte, error) {
	switch f.kind {
	case protoreflect.StringKind:
		v := fieldAt[string](sp, f.goOffset)
		if v == "" {
			break
		}
		return appendStringOf(appendKey(b, f, first), v, f)
	case protoreflect.EnumKind:
		v := fieldAt[int32](sp, f.goOffset)
		if v == 0 {
			break
		}
		return f.enum.append(e, appendKey(b, f, first), protoreflect.EnumNumber(v))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		v := fieldAt[int32](sp, f.goOffset)
		if v == 0 {
			break
		}
		return strconv.AppendInt(appendKey(b, f, first), int64(v), 10), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		v := fieldAt[int64](sp, f.goOffset)
		if v == 0 {
			break
		}
		return appendQuotedInt(appendKey(b, f, first), v), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		v := fieldAt[uint32](sp, f.goOffset)
		if v == 0 {
			break
		}
		return strconv.AppendUint(appendKey(b, f, first), uint64(v), 10), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		v := fieldAt[uint64](sp, f.goOffset)
		if v == 0 {
			break
		}
		return appendQuotedUint(appendKey(b, f, first), v), nil
	case protoreflect.DoubleKind:
		v := fieldAt[float64](sp, f.goOffset)
		if math.Float64bits(v) == 0 { // +0: a negative zero is set
			break
		}
		return appendFloat(appendKey(b, f, first), v, 64), nil
	case protoreflect.FloatKind:
		v := fieldAt[float32](sp, f.goOffset)
		if math.Float32bits(v) == 0 {
			break
		}
		return appendFloat(appendKey(b, f, first), float64(v), 32), nil
	case protoreflect.BoolKind:
		if !fieldAt[bool](sp, f.goOffset) {
			break
		}
		return append(appendKey(b, f, first), "true"...), nil
	case protoreflect.BytesKind:
		v := fieldAt[[]byte](sp, f.goOffset)
		if len(v) == 0 {
			break
		}
		return appendBytes(appendKey(b, f, first), v), nil
	}
	return e.appendUnset(b, f, first)
}

// appendKey writes the separator and key of field f.
func appendKey(b []byte, f *field, first *bool) []byte {
	key := f.key // with the comma
	if *first {
		key, *first = key[1:], false
	}
	return append(b, key...)
}
