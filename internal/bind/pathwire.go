package bind

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// AppendPathWire appends to b the protobuf wire form of a message whose
// only field set is the one SetPathValue(value) sets: the leaf's record,
// inside a record for each message on the path. Decoding it and merging
// gives what SetPathValue gives, so a remote call can send it without
// building a message. ok is false, and b is returned as it was, when that
// is not so or not done: value is not one the leaf takes (SetPathValue
// then gives the error), the leaf is repeated, a message or a well-known
// type, the path goes through a oneof or a group, or value is the zero of a field
// without presence (SetPathValue leaves it unset, which appending cannot
// express).
func (f *Field) AppendPathWire(b []byte, value string) (_ []byte, ok bool) {
	c := f.conv
	if f.refused != "" || c == nil || c.list || c.kind < convInt32 || c.kind > convEnum {
		return b, false
	}
	for i, fd := range f.path {
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			return b, false
		}
		if i < len(f.path)-1 && fd.Kind() != protoreflect.MessageKind {
			return b, false // a group: delimited, not length-prefixed
		}
	}
	v, problem := c.scalar(value)
	if problem != "" || !c.fd.HasPresence() && isZeroScalar(c.fd.Kind(), v) {
		return b, false
	}
	// Sizes from the leaf out: size[i] is the length of path[i]'s record.
	var sizes [8]int
	size := sizes[:0]
	if len(f.path) > len(sizes) {
		size = make([]int, 0, len(f.path))
	}
	size = append(size, protowire.SizeTag(c.fd.Number())+scalarSize(c.fd.Kind(), v))
	for i := len(f.path) - 2; i >= 0; i-- {
		size = append(size, protowire.SizeTag(f.path[i].Number())+protowire.SizeBytes(size[len(size)-1]))
	}
	for i, fd := range f.path[:len(f.path)-1] {
		b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(size[len(size)-2-i]))
	}
	return appendScalar(b, c.fd, v), true
}

// isZeroScalar reports whether v is the zero value of a field of kind k,
// which proto3 does not encode: for floats, positive zero only.
func isZeroScalar(k protoreflect.Kind, v protoreflect.Value) bool {
	switch k {
	case protoreflect.BoolKind:
		return !v.Bool()
	case protoreflect.StringKind:
		return v.String() == ""
	case protoreflect.BytesKind:
		return len(v.Bytes()) == 0
	case protoreflect.EnumKind:
		return v.Enum() == 0
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return math.Float64bits(v.Float()) == 0
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int() == 0
	}
	return v.Uint() == 0
}

// scalarSize is the length of the wire form of v, a value of a field of
// kind k, without its tag.
func scalarSize(k protoreflect.Kind, v protoreflect.Value) int {
	switch k {
	case protoreflect.BoolKind:
		return 1
	case protoreflect.StringKind:
		return protowire.SizeBytes(len(v.String()))
	case protoreflect.BytesKind:
		return protowire.SizeBytes(len(v.Bytes()))
	case protoreflect.EnumKind:
		return protowire.SizeVarint(uint64(int64(v.Enum())))
	case protoreflect.Int32Kind, protoreflect.Int64Kind:
		return protowire.SizeVarint(uint64(v.Int()))
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return protowire.SizeVarint(protowire.EncodeZigZag(v.Int()))
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		return protowire.SizeVarint(v.Uint())
	case protoreflect.FloatKind, protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return protowire.SizeFixed32()
	}
	return protowire.SizeFixed64() // double, fixed64, sfixed64
}

// appendScalar appends the record of field fd holding v.
func appendScalar(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	n := fd.Number()
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protowire.AppendVarint(protowire.AppendTag(b, n, protowire.VarintType), protowire.EncodeBool(v.Bool()))
	case protoreflect.StringKind:
		return protowire.AppendString(protowire.AppendTag(b, n, protowire.BytesType), v.String())
	case protoreflect.BytesKind:
		return protowire.AppendBytes(protowire.AppendTag(b, n, protowire.BytesType), v.Bytes())
	case protoreflect.EnumKind:
		return protowire.AppendVarint(protowire.AppendTag(b, n, protowire.VarintType), uint64(int64(v.Enum())))
	case protoreflect.Int32Kind, protoreflect.Int64Kind:
		return protowire.AppendVarint(protowire.AppendTag(b, n, protowire.VarintType), uint64(v.Int()))
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return protowire.AppendVarint(protowire.AppendTag(b, n, protowire.VarintType), protowire.EncodeZigZag(v.Int()))
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		return protowire.AppendVarint(protowire.AppendTag(b, n, protowire.VarintType), v.Uint())
	case protoreflect.FloatKind:
		return protowire.AppendFixed32(protowire.AppendTag(b, n, protowire.Fixed32Type), math.Float32bits(float32(v.Float())))
	case protoreflect.Fixed32Kind:
		return protowire.AppendFixed32(protowire.AppendTag(b, n, protowire.Fixed32Type), uint32(v.Uint()))
	case protoreflect.Sfixed32Kind:
		return protowire.AppendFixed32(protowire.AppendTag(b, n, protowire.Fixed32Type), uint32(v.Int()))
	case protoreflect.DoubleKind:
		return protowire.AppendFixed64(protowire.AppendTag(b, n, protowire.Fixed64Type), math.Float64bits(v.Float()))
	case protoreflect.Fixed64Kind:
		return protowire.AppendFixed64(protowire.AppendTag(b, n, protowire.Fixed64Type), v.Uint())
	}
	return protowire.AppendFixed64(protowire.AppendTag(b, n, protowire.Fixed64Type), uint64(v.Int())) // sfixed64
}
