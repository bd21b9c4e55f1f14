package bind

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/wellknown"
)

// AppendPathWire appends to b the protobuf wire form of a message whose
// only field set is the one SetPathValue(value) sets: the leaf's record,
// inside a record for each message on the path. Decoding it and merging
// gives what SetPathValue gives, so a remote call can send it without
// building a message. ok is false, and b is returned as it was, when that
// is not so or not done: value is not one the leaf takes (SetPathValue
// then gives the error), the leaf is repeated, a message other than a
// Timestamp or a Duration, the path goes through a oneof or a group, or
// value is the zero of a field without presence (SetPathValue leaves it
// unset, which appending cannot express).
func (f *Field) AppendPathWire(b []byte, value string) (_ []byte, ok bool) {
	if f.refused != "" || f.conv == nil || f.conv.list {
		return b, false
	}
	return appendValueWire(b, f.path, f.conv, value)
}

// appendValueWire appends the records that set the field at path, whose
// converter is c, to value: as an element of a repeated scalar field (c.list),
// or as a singular scalar, Timestamp or Duration. ok is false, and b is
// returned as it was, when value does not convert, the field is of
// another kind, a singular scalar's value is its zero and the field has no
// presence, or the path goes through a oneof or a group.
func appendValueWire(b []byte, path []protoreflect.FieldDescriptor, c *converter, value string) (_ []byte, ok bool) {
	for i, fd := range path {
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			return b, false
		}
		if i < len(path)-1 && fd.Kind() != protoreflect.MessageKind {
			return b, false // a group: delimited, not length-prefixed
		}
	}
	var v protoreflect.Value
	var wkt [2 * (1 + 10)]byte // a Timestamp's or Duration's seconds and nanos
	var inner []byte
	leafSize := protowire.SizeTag(c.fd.Number())
	switch {
	case c.kind >= convInt32 && c.kind <= convEnum:
		var problem string
		if v, problem = c.scalar(value); problem != "" || !c.list && !c.fd.HasPresence() && isZeroScalar(c.fd.Kind(), v) {
			return b, false
		}
		leafSize += scalarSize(c.fd.Kind(), v)
	case !c.list && (c.kind == convTimestamp || c.kind == convDuration):
		secs, nanos, ok := wellknownPair(c.kind, value)
		if !ok {
			return b, false
		}
		inner = wkt[:0]
		if secs != 0 {
			inner = protowire.AppendVarint(protowire.AppendTag(inner, 1, protowire.VarintType), uint64(secs))
		}
		if nanos != 0 {
			inner = protowire.AppendVarint(protowire.AppendTag(inner, 2, protowire.VarintType), uint64(int64(nanos)))
		}
		leafSize += protowire.SizeBytes(len(inner))
	default:
		return b, false
	}
	// Sizes from the leaf out: size[i] is the length of path[i]'s record.
	var sizes [8]int
	size := sizes[:0]
	if len(path) > len(sizes) {
		size = make([]int, 0, len(path))
	}
	size = append(size, leafSize)
	for i := len(path) - 2; i >= 0; i-- {
		size = append(size, protowire.SizeTag(path[i].Number())+protowire.SizeBytes(size[len(size)-1]))
	}
	for i, fd := range path[:len(path)-1] {
		b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(size[len(size)-2-i]))
	}
	if inner != nil {
		return protowire.AppendBytes(protowire.AppendTag(b, c.fd.Number(), protowire.BytesType), inner), true
	}
	return appendScalar(b, c.fd, v), true
}

// wellknownPair is the seconds and nanoseconds of a Timestamp (kind
// convTimestamp) or a Duration given as s, as converter.set reads them.
func wellknownPair(kind convKind, s string) (int64, int32, bool) {
	if kind == convTimestamp {
		return wellknown.ParseTimestamp(s)
	}
	return parseDuration(s)
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
