package jsonenc

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

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

// appendFast writes field f from fv, its Go struct field; an empty one
// is written as appendUnset says.
func (e *Encoder) appendFast(b []byte, f *field, fv reflect.Value, first *bool) ([]byte, error) {
	var err error
	switch f.goKind {
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
		return e.appendMessage(b, fv.Interface().(protoreflect.ProtoMessage).ProtoReflect(), f.elem, "")
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
		em := fv.Index(j).Interface().(protoreflect.ProtoMessage).ProtoReflect()
		if b, err = e.appendMessage(b, em, f.elem, ""); err != nil {
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

// appendGoScalar writes a scalar from its Go value, as a protoreflect
// value (which costs nothing for scalars) through appendSingular.
func (e *Encoder) appendGoScalar(b []byte, f *field, fv reflect.Value) ([]byte, error) {
	var v protoreflect.Value
	switch fv.Kind() {
	case reflect.String:
		v = protoreflect.ValueOfString(fv.String())
	case reflect.Slice:
		v = protoreflect.ValueOfBytes(fv.Bytes())
	case reflect.Bool:
		v = protoreflect.ValueOfBool(fv.Bool())
	case reflect.Int32:
		if f.value.Kind() == protoreflect.EnumKind {
			v = protoreflect.ValueOfEnum(protoreflect.EnumNumber(fv.Int()))
		} else {
			v = protoreflect.ValueOfInt32(int32(fv.Int()))
		}
	case reflect.Int64:
		v = protoreflect.ValueOfInt64(fv.Int())
	case reflect.Uint32:
		v = protoreflect.ValueOfUint32(uint32(fv.Uint()))
	case reflect.Uint64:
		v = protoreflect.ValueOfUint64(fv.Uint())
	case reflect.Float32:
		v = protoreflect.ValueOfFloat32(float32(fv.Float()))
	default:
		v = protoreflect.ValueOfFloat64(fv.Float())
	}
	return e.appendSingular(b, v, f.value, nil)
}

// appendKey writes the separator and key of field f.
func appendKey(b []byte, f *field, first *bool) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	return append(b, f.key...)
}

var keyPool = sync.Pool{New: func() any { return new([]string) }}

// appendStringMap writes a map<string, string> in protojson's order.
func appendStringMap(b []byte, mp map[string]string, f *field) ([]byte, error) {
	kp := keyPool.Get().(*[]string)
	keys := (*kp)[:0]
	for k := range mp {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendString(b, k); err != nil {
			err = errInvalidUTF8(f.fd.MapKey().FullName())
			break
		}
		b = append(b, ':')
		if b, err = appendString(b, mp[k]); err != nil {
			err = errInvalidUTF8(f.value.FullName())
			break
		}
	}
	clear(keys)
	*kp = keys[:0]
	keyPool.Put(kp)
	if err != nil {
		return b, err
	}
	return append(b, '}'), nil
}
