// Package gostruct finds where a generated message keeps its fields, so
// that the JSON codecs can read and write them directly instead of through
// protoreflect, which converts every value through reflect and allocates
// for most. Only exported struct fields are used (the classic generated
// API); messages of other types (dynamicpb, the opaque API, another
// generation of the same descriptor) have no Layout and go through
// protoreflect.
//
// Finding a Layout needs no unsafe: it is reflect on exported fields, and
// the decoder (internal/jsondec) sets them through reflect.Value too. The
// encoder (internal/jsonenc) reads them with unsafe, at the offsets
// reflect reports for them, as the Go type reflect found there: through
// reflect.Value that cost about a third of its time. That is the module's
// one use of unsafe outside generated code, and internal/jsonenc/goread.go
// says what keeps it sound.
package gostruct

import (
	"reflect"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Kind says how a field lives in the Go struct.
type Kind uint8

const (
	None        Kind = iota // not directly: through protoreflect
	StringMap               // map[string]string
	StringList              // []string
	MessageList             // []*Message
	Scalar                  // a scalar without presence, as its Go value
	Message                 // a singular message, as its *Message
)

// Field is where one field lives.
type Field struct {
	Kind  Kind
	Index int // the struct field's index
}

// Layout is the generated Go type of a message descriptor.
type Layout struct {
	Type   reflect.Type // the message's pointer type
	Fields map[protoreflect.FieldNumber]Field
}

// Find returns the layout of md's generated Go type, or nil if md has
// none registered (or no field this package can place).
func Find(md protoreflect.MessageDescriptor) *Layout {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil || mt.Descriptor() != md {
		return nil
	}
	typ := reflect.TypeOf(mt.Zero().Interface())
	if typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return nil
	}
	st := typ.Elem()
	l := &Layout{Type: typ, Fields: map[protoreflect.FieldNumber]Field{}}
	fds := md.Fields()
	for i := range st.NumField() {
		sf := st.Field(i)
		tag, ok := sf.Tag.Lookup("protobuf")
		if !ok || !sf.IsExported() {
			continue
		}
		_, rest, _ := strings.Cut(tag, ",")
		num, _, _ := strings.Cut(rest, ",")
		n, err := strconv.Atoi(num)
		if err != nil {
			continue
		}
		fd := fds.ByNumber(protoreflect.FieldNumber(n))
		if fd == nil {
			continue
		}
		if k := kindOf(fd, sf.Type); k != None {
			l.Fields[fd.Number()] = Field{Kind: k, Index: i}
		}
	}
	if len(l.Fields) == 0 {
		return nil
	}
	return l
}

var (
	stringMapType  = reflect.TypeFor[map[string]string]()
	stringListType = reflect.TypeFor[[]string]()
	messageType    = reflect.TypeFor[protoreflect.ProtoMessage]()
)

// kindOf says how the field fd of Go type gt can be reached.
func kindOf(fd protoreflect.FieldDescriptor, gt reflect.Type) Kind {
	singular := !fd.IsList() && !fd.IsMap() && fd.ContainingOneof() == nil
	switch {
	case fd.IsMap():
		if fd.MapKey().Kind() == protoreflect.StringKind && fd.MapValue().Kind() == protoreflect.StringKind && gt == stringMapType {
			return StringMap
		}
	case fd.IsList() && fd.Kind() == protoreflect.StringKind && gt == stringListType:
		return StringList
	case fd.IsList() && fd.Message() != nil:
		if gt.Kind() == reflect.Slice && gt.Elem().Kind() == reflect.Pointer && gt.Elem().Implements(messageType) {
			return MessageList
		}
	case singular && !fd.HasPresence() && scalarFits(fd.Kind(), gt):
		return Scalar
	case singular && fd.Message() != nil && gt.Kind() == reflect.Pointer && gt.Implements(messageType):
		return Message
	}
	return None
}

// scalarFits reports whether a scalar of kind k is kept as Go type gt.
func scalarFits(k protoreflect.Kind, gt reflect.Type) bool {
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

// Struct returns the struct m points to when m is of the layout's type.
func (l *Layout) Struct(m protoreflect.Message) (reflect.Value, bool) {
	if l == nil {
		return reflect.Value{}, false
	}
	rv := reflect.ValueOf(m.Interface())
	if rv.Type() != l.Type || rv.IsNil() {
		return reflect.Value{}, false
	}
	return rv.Elem(), true
}

// SetScalar stores v, a value of kind k, in fv, the struct field of a
// Scalar field.
func SetScalar(fv reflect.Value, k protoreflect.Kind, v protoreflect.Value) {
	switch k {
	case protoreflect.StringKind:
		fv.SetString(v.String())
	case protoreflect.BytesKind:
		fv.SetBytes(v.Bytes())
	case protoreflect.BoolKind:
		fv.SetBool(v.Bool())
	case protoreflect.EnumKind:
		fv.SetInt(int64(v.Enum()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		fv.SetInt(v.Int())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		fv.SetUint(v.Uint())
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		fv.SetFloat(v.Float())
	}
}

// ScalarField returns, for a Scalar field fd of a generated message, the
// layout of its message and the field's struct index; nil if fd is not
// one.
func ScalarField(fd protoreflect.FieldDescriptor) (*Layout, int) {
	l := Find(fd.ContainingMessage())
	if l == nil {
		return nil, 0
	}
	if f, ok := l.Fields[fd.Number()]; ok && f.Kind == Scalar {
		return l, f.Index
	}
	return nil, 0
}
