package jsonenc

import (
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
// allocates for each, and a repeated field's Get allocates a wrapper; for
// a generated message the Go map or slice is right there in its struct.
// The plan finds, once, the struct field of each map<string, string>,
// repeated string and repeated message field, and the encoder reads it
// directly when the message is of that Go type. Only exported fields are
// used, so this needs no unsafe; messages of other types (dynamicpb,
// another generation of the same descriptor) take the protoreflect path.

// goKind says how a field is read from the generated Go struct.
type goKind uint8

const (
	goNone        goKind = iota // through protoreflect
	goStringMap                 // map[string]string
	goStringList                // []string
	goMessageList               // []*Message
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

// appendFast writes field f from fv, its Go struct field; an empty field
// is left out unless unpopulated fields are emitted.
func (e *Encoder) appendFast(b []byte, f *field, fv reflect.Value, first *bool) ([]byte, error) {
	emitUnset := e.opts.EmitUnpopulated || e.opts.EmitDefaultValues
	var err error
	switch f.goKind {
	case goStringMap:
		mp := fv.Interface().(map[string]string) // a map is a pointer: no copy
		if len(mp) == 0 && !emitUnset {
			return b, nil
		}
		b = appendKey(b, f, first)
		return appendStringMap(b, mp, f)
	case goStringList:
		// Through the reflect.Value: a slice in an interface would be a
		// copy on the heap.
		n := fv.Len()
		if n == 0 && !emitUnset {
			return b, nil
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
	if n == 0 && !emitUnset {
		return b, nil
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
