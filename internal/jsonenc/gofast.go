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

// Fast paths for generated messages. Reading a map through protoreflect
// converts every key and value through reflect and allocates for each;
// for a generated message the Go map is right there in its struct. The
// plan finds, once, the struct field of each map<string, string> field
// (the common labels and attributes), and the encoder reads it directly
// when the message is of that Go type. Only exported fields are used, so
// this needs no unsafe; messages of other types (dynamicpb, another
// generation of the same descriptor) take the protoreflect path.

// goStruct is where a plan's fields live in its generated Go type.
type goStruct struct {
	typ       reflect.Type // the message's pointer type
	stringMap map[int]int  // field index in plan.fields → Go struct field index
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
	g := &goStruct{typ: typ, stringMap: map[int]int{}}
	stringMapType := reflect.TypeFor[map[string]string]()
	for i := range fields {
		f := &fields[i]
		if !f.mapField || f.fd.MapKey().Kind() != protoreflect.StringKind || f.value.Kind() != protoreflect.StringKind {
			continue
		}
		if gi, ok := byNumber[f.fd.Number()]; ok && st.Field(gi).Type == stringMapType {
			g.stringMap[i] = gi
		}
	}
	if len(g.stringMap) == 0 {
		return nil
	}
	return g
}

// stringMapOf returns the Go map of field i of m when m is of the plan's
// generated type.
func (g *goStruct) stringMapOf(m protoreflect.Message, i int) (map[string]string, bool) {
	gi, ok := g.stringMap[i]
	if !ok {
		return nil, false
	}
	rv := reflect.ValueOf(m.Interface())
	if rv.Type() != g.typ || rv.IsNil() {
		return nil, false
	}
	return rv.Elem().Field(gi).Interface().(map[string]string), true
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
