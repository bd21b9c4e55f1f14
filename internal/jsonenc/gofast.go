package jsonenc

import (
	"math"
	"reflect"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Fast paths for generated messages. Reading a map or a repeated string
// through protoreflect converts every element through reflect and
// allocates for each, a repeated field's Get allocates a wrapper, and
// every Get and Has goes through protobuf-go's field accessors; for a
// generated message the value is right there in its struct. The plan
// finds, once, the struct field of each map<string, string>, repeated
// string, repeated message, singular message and presence-free scalar
// field (oneofs and fields with presence stay on protoreflect), and the
// encoder reads it directly when the message is of that Go type. Only exported fields are
// used, so this needs no unsafe; messages of other types (dynamicpb,
// another generation of the same descriptor) take the protoreflect path.

// goKind says how a field is read from the generated Go struct.
type goKind uint8

const (
	goNone        goKind = iota // through protoreflect
	goStringMap                 // map[string]string
	goStringList                // []string
	goMessageList               // []*Message
	goScalar                    // a scalar without presence, as its Go value
	goMessage                   // a singular message, as its *Message
)

// goStruct is the generated Go type of a plan's messages; each field's
// goKind and goIndex say where it lives.
type goStruct struct {
	typ reflect.Type // the message's pointer type
}

// findGoStruct looks up the generated type of md and marks the fields
// that can be read from its struct, or returns nil.
func findGoStruct(md protoreflect.MessageDescriptor, fields []field) *goStruct {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil || mt.Descriptor() != md {
		return nil
	}
	typ := reflect.TypeOf(mt.Zero().Interface())
	if typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return nil
	}
	byNumber := map[protoreflect.FieldNumber]int{}
	st := typ.Elem()
	for i := range st.NumField() {
		sf := st.Field(i)
		tag, ok := sf.Tag.Lookup("protobuf")
		if !ok || !sf.IsExported() {
			continue
		}
		parts := strings.Split(tag, ",")
		if len(parts) < 2 {
			continue
		}
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			continue
		}
		byNumber[protoreflect.FieldNumber(n)] = i
	}
	stringMapType, stringListType := reflect.TypeFor[map[string]string](), reflect.TypeFor[[]string]()
	messageType := reflect.TypeFor[protoreflect.ProtoMessage]()
	found := false
	for i := range fields {
		f := &fields[i]
		gi, ok := byNumber[f.fd.Number()]
		if !ok {
			continue
		}
		gt := st.Field(gi).Type
		switch {
		case f.mapField && f.fd.MapKey().Kind() == protoreflect.StringKind && f.value.Kind() == protoreflect.StringKind && gt == stringMapType:
			f.goKind = goStringMap
		case f.list && f.value.Kind() == protoreflect.StringKind && gt == stringListType:
			f.goKind = goStringList
		case f.list && f.value.Message() != nil && gt.Kind() == reflect.Slice && gt.Elem().Kind() == reflect.Pointer && gt.Elem().Implements(messageType):
			f.goKind = goMessageList
		case !f.list && !f.mapField && !f.inOneof && !f.presence && scalarGoKindFits(f.value.Kind(), gt):
			f.goKind = goScalar
		case !f.list && !f.mapField && !f.inOneof && f.value.Message() != nil && gt.Kind() == reflect.Pointer && gt.Implements(messageType):
			f.goKind = goMessage
		default:
			continue
		}
		f.goIndex = gi
		found = true
	}
	if !found {
		return nil
	}
	return &goStruct{typ: typ}
}

// markGoElems marks the message fields, of the plans just built, whose
// messages are of their plan's generated Go type, so that they are read
// from their structs too. It runs once every plan of the graph exists.
func markGoElems(building map[protoreflect.MessageDescriptor]*plan) {
	for _, q := range building {
		if q.gofast == nil {
			continue
		}
		st := q.gofast.typ.Elem()
		for i := range q.fields {
			f := &q.fields[i]
			t := st.Field(f.goIndex).Type
			switch f.goKind {
			case goMessageList:
				t = t.Elem()
				fallthrough
			case goMessage:
				f.elemGo = f.elem.gofast != nil && f.elem.gofast.typ == t
			}
		}
	}
}

// goValue returns the struct m points to, when m is of the plan's
// generated type.
func (p *plan) goValue(m protoreflect.Message) (reflect.Value, bool) {
	if p.gofast == nil {
		return reflect.Value{}, false
	}
	rv := reflect.ValueOf(m.Interface())
	if rv.Type() != p.gofast.typ || rv.IsNil() {
		return reflect.Value{}, false
	}
	return rv.Elem(), true
}

// messageOf returns the message whose Go struct is sv.
func messageOf(sv reflect.Value) protoreflect.Message {
	return sv.Addr().Interface().(protoreflect.ProtoMessage).ProtoReflect()
}

// appendGoMessage writes the message whose Go struct is sv, of p's
// generated type, reading through protoreflect only the fields that
// cannot be read from the struct.
func (e *Encoder) appendGoMessage(b []byte, sv reflect.Value, p *plan) ([]byte, error) {
	if p.wkt != nil {
		if p.wktGo != nil {
			return p.wktGo(e, b, sv, p)
		}
		return p.wkt(e, b, messageOf(sv), p)
	}
	return e.appendFields(append(b, '{'), nil, sv, p, true)
}

// appendGoElem writes the message ptr points to, a singular field's value
// or a list element of field f: from its Go struct when f.elemGo says it
// can, else through protoreflect.
func (e *Encoder) appendGoElem(b []byte, f *field, ptr reflect.Value) ([]byte, error) {
	if f.elemGo && !ptr.IsNil() {
		return e.appendGoMessage(b, ptr.Elem(), f.elem)
	}
	return e.appendMessage(b, ptr.Interface().(protoreflect.ProtoMessage).ProtoReflect(), f.elem, "")
}

// appendFast writes field f from fv, its Go struct field; an empty one
// is written as appendUnset says.
func (e *Encoder) appendFast(b []byte, f *field, fv reflect.Value, first *bool) ([]byte, error) {
	var err error
	switch f.goKind {
	case goScalar:
		if !scalarSet(fv) {
			return e.appendUnset(b, f, first)
		}
		b = appendKey(b, f, first)
		return e.appendGoScalar(b, f, fv)
	case goMessage:
		if fv.IsNil() {
			return e.appendUnset(b, f, first)
		}
		b = appendKey(b, f, first)
		return e.appendGoElem(b, f, fv)
	case goStringMap:
		mp := fv.Interface().(map[string]string) // a map is a pointer: no copy
		if len(mp) == 0 {
			return e.appendUnset(b, f, first)
		}
		b = appendKey(b, f, first)
		return appendStringMap(b, mp, f)
	case goStringList:
		// Through the reflect.Value: a slice in an interface would be a
		// copy on the heap.
		n := fv.Len()
		if n == 0 {
			return e.appendUnset(b, f, first)
		}
		b = appendKey(b, f, first)
		b = append(b, '[')
		for j := range n {
			if j > 0 {
				b = append(b, ',')
			}
			if b, err = appendString(b, fv.Index(j).String()); err != nil {
				return b, errInvalidUTF8(f.fd.FullName())
			}
		}
		return append(b, ']'), nil
	}
	n := fv.Len() // goMessageList
	if n == 0 {
		return e.appendUnset(b, f, first)
	}
	b = appendKey(b, f, first)
	b = append(b, '[')
	for j := range n {
		if j > 0 {
			b = append(b, ',')
		}
		if b, err = e.appendGoElem(b, f, fv.Index(j)); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// scalarGoKindFits reports whether a Go struct field of type gt holds a
// proto scalar of kind k by value (not a pointer: no presence).
func scalarGoKindFits(k protoreflect.Kind, gt reflect.Type) bool {
	switch k {
	case protoreflect.StringKind:
		return gt.Kind() == reflect.String
	case protoreflect.BytesKind:
		return gt.Kind() == reflect.Slice && gt.Elem().Kind() == reflect.Uint8
	case protoreflect.BoolKind:
		return gt.Kind() == reflect.Bool
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.EnumKind:
		return gt.Kind() == reflect.Int32
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return gt.Kind() == reflect.Int64
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return gt.Kind() == reflect.Uint32
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return gt.Kind() == reflect.Uint64
	case protoreflect.FloatKind:
		return gt.Kind() == reflect.Float32
	case protoreflect.DoubleKind:
		return gt.Kind() == reflect.Float64
	}
	return false
}

// scalarSet reports whether a scalar without presence is set: not its zero
// value (a negative zero is set), as protobuf-go's Has says.
func scalarSet(fv reflect.Value) bool {
	switch fv.Kind() {
	case reflect.String, reflect.Slice:
		return fv.Len() > 0
	case reflect.Bool:
		return fv.Bool()
	case reflect.Int32, reflect.Int64:
		return fv.Int() != 0
	case reflect.Uint32, reflect.Uint64:
		return fv.Uint() != 0
	case reflect.Float32, reflect.Float64:
		f := fv.Float()
		return f != 0 || math.Signbit(f)
	}
	return true
}

// appendGoScalar writes a scalar of field f from fv, its Go value, as
// appendSingular writes it from a protoreflect value.
func (e *Encoder) appendGoScalar(b []byte, f *field, fv reflect.Value) ([]byte, error) {
	switch f.kind {
	case protoreflect.StringKind:
		return appendStringOf(b, fv.String(), f)
	case protoreflect.EnumKind:
		return f.enum.append(e, b, protoreflect.EnumNumber(fv.Int()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, fv.Int(), 10), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return appendQuotedInt(b, fv.Int()), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, fv.Uint(), 10), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return appendQuotedUint(b, fv.Uint()), nil
	case protoreflect.DoubleKind:
		return appendFloat(b, fv.Float(), 64), nil
	case protoreflect.FloatKind:
		return appendFloat(b, fv.Float(), 32), nil
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, fv.Bool()), nil
	}
	return appendBytes(b, fv.Bytes()), nil // BytesKind
}

// appendKey writes the separator and key of field f.
func appendKey(b []byte, f *field, first *bool) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	return append(b, f.key...)
}
