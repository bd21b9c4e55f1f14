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

// goStruct is where a plan's fields live in its generated Go type.
type goStruct struct {
	typ reflect.Type // the message's pointer type
	// By field index in plan.fields, the Go struct field index of
	// map<string, string>, repeated string and repeated message fields.
	stringMap   map[int]int
	stringList  map[int]int
	messageList map[int]int
}

// findGoStruct looks up the generated type of md and the Go fields of its
// map<string, string> fields, or returns nil.
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
	g := &goStruct{typ: typ, stringMap: map[int]int{}, stringList: map[int]int{}, messageList: map[int]int{}}
	stringMapType, stringListType := reflect.TypeFor[map[string]string](), reflect.TypeFor[[]string]()
	messageType := reflect.TypeFor[protoreflect.ProtoMessage]()
	for i := range fields {
		f := &fields[i]
		gi, ok := byNumber[f.fd.Number()]
		if !ok {
			continue
		}
		gt := st.Field(gi).Type
		switch {
		case f.mapField && f.fd.MapKey().Kind() == protoreflect.StringKind && f.value.Kind() == protoreflect.StringKind && gt == stringMapType:
			g.stringMap[i] = gi
		case f.list && f.value.Kind() == protoreflect.StringKind && gt == stringListType:
			g.stringList[i] = gi
		case f.list && f.value.Message() != nil && gt.Kind() == reflect.Slice && gt.Elem().Kind() == reflect.Pointer && gt.Elem().Implements(messageType):
			g.messageList[i] = gi
		}
	}
	if len(g.stringMap)+len(g.stringList)+len(g.messageList) == 0 {
		return nil
	}
	return g
}

// goField returns the Go struct field gi of m when m is of the plan's
// generated type.
func (g *goStruct) goField(m protoreflect.Message, gi int) (reflect.Value, bool) {
	rv := reflect.ValueOf(m.Interface())
	if rv.Type() != g.typ || rv.IsNil() {
		return reflect.Value{}, false
	}
	return rv.Elem().Field(gi), true
}

// appendFast writes field i of m from its Go struct field, if the plan
// has a fast path for it and m is of the generated type. done reports
// whether it handled the field (written, or empty and skipped).
func (e *Encoder) appendFast(b []byte, m protoreflect.Message, p *plan, i int, first *bool) (out []byte, done bool, err error) {
	g := p.gofast
	f := &p.fields[i]
	emitUnset := e.opts.EmitUnpopulated || e.opts.EmitDefaultValues
	if gi, ok := g.stringMap[i]; ok {
		fv, ok := g.goField(m, gi)
		if !ok {
			return b, false, nil
		}
		mp := fv.Interface().(map[string]string)
		if len(mp) == 0 && !emitUnset {
			return b, true, nil
		}
		b = appendKey(b, f, first)
		b, err = appendStringMap(b, mp, f)
		return b, true, err
	}
	if gi, ok := g.stringList[i]; ok {
		fv, ok := g.goField(m, gi)
		if !ok {
			return b, false, nil
		}
		// Through the reflect.Value: a slice in an interface would be a
		// copy on the heap.
		n := fv.Len()
		if n == 0 && !emitUnset {
			return b, true, nil
		}
		b = appendKey(b, f, first)
		b = append(b, '[')
		for j := range n {
			if j > 0 {
				b = append(b, ',')
			}
			if b, err = appendString(b, fv.Index(j).String()); err != nil {
				return b, true, errInvalidUTF8(f.fd.FullName())
			}
		}
		return append(b, ']'), true, nil
	}
	if gi, ok := g.messageList[i]; ok {
		fv, ok := g.goField(m, gi)
		if !ok {
			return b, false, nil
		}
		n := fv.Len()
		if n == 0 && !emitUnset {
			return b, true, nil
		}
		b = appendKey(b, f, first)
		b = append(b, '[')
		for j := range n {
			if j > 0 {
				b = append(b, ',')
			}
			em := fv.Index(j).Interface().(protoreflect.ProtoMessage).ProtoReflect()
			if b, err = e.appendMessage(b, em, f.elem, ""); err != nil {
				return b, true, err
			}
		}
		return append(b, ']'), true, nil
	}
	return b, false, nil
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
