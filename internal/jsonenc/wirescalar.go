package jsonenc

import (
	"encoding/base64"
	"math"
	"strconv"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/wellknown"
)

// number is a decoded scalar.
type number struct {
	i int64
	u uint64
	f float64
}

func wireNumber(k protoreflect.Kind, o occurrence) number {
	var raw uint64
	switch o.typ {
	case protowire.VarintType:
		raw, _ = protowire.ConsumeVarint(o.val)
	case protowire.Fixed32Type:
		v, _ := protowire.ConsumeFixed32(o.val)
		raw = uint64(v)
	case protowire.Fixed64Type:
		raw, _ = protowire.ConsumeFixed64(o.val)
	}
	switch k {
	case protoreflect.Int32Kind, protoreflect.EnumKind:
		return number{i: int64(int32(raw))}
	case protoreflect.Sint32Kind:
		return number{i: int64(int32(protowire.DecodeZigZag(raw & math.MaxUint32)))}
	case protoreflect.Sfixed32Kind:
		return number{i: int64(int32(uint32(raw)))}
	case protoreflect.Int64Kind, protoreflect.Sfixed64Kind:
		return number{i: int64(raw)}
	case protoreflect.Sint64Kind:
		return number{i: protowire.DecodeZigZag(raw)}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return number{u: uint64(uint32(raw))}
	case protoreflect.FloatKind:
		return number{f: float64(math.Float32frombits(uint32(raw)))}
	case protoreflect.DoubleKind:
		return number{f: math.Float64frombits(raw)}
	}
	return number{u: raw, i: int64(raw)}
}

func unsignedKind(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return true
	}
	return false
}

// appendWireScalar writes one scalar value from its wire bytes.
func (e *Encoder) appendWireScalar(b []byte, fd protoreflect.FieldDescriptor, o occurrence) ([]byte, error) {
	k := fd.Kind()
	switch k {
	case protoreflect.StringKind:
		out, err := appendString(b, bytesString(o.val))
		if err != nil {
			return out, errInvalidUTF8(fd.FullName())
		}
		return out, nil
	case protoreflect.BytesKind:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, o.val)
		return append(b, '"'), nil
	case protoreflect.BoolKind:
		v, _ := protowire.ConsumeVarint(o.val)
		return strconv.AppendBool(b, v != 0), nil
	}
	n := wireNumber(k, o)
	switch k {
	case protoreflect.EnumKind:
		return e.appendEnum(b, fd.Enum(), protoreflect.EnumNumber(n.i))
	case protoreflect.FloatKind:
		return appendFloat(b, n.f, 32), nil
	case protoreflect.DoubleKind:
		return appendFloat(b, n.f, 64), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, n.i, 10), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, n.u, 10), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		b = append(b, '"')
		b = strconv.AppendInt(b, n.i, 10)
		return append(b, '"'), nil
	}
	b = append(b, '"')
	b = strconv.AppendUint(b, n.u, 10)
	return append(b, '"'), nil
}

// bytesString is b as a string, in place: for reading only, while b is
// not written (a large value is not copied to be quoted).
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// wireTypeFits reports whether a singular value of kind k may come with
// wire type typ; proto.Unmarshal keeps any other as an unknown field.
func wireTypeFits(k protoreflect.Kind, typ protowire.Type) bool {
	return wellknown.WireType(k) == typ
}

// isZero reports a proto3 scalar's zero value (which is not "set").
func isZero(k protoreflect.Kind, o occurrence) bool {
	switch k {
	case protoreflect.StringKind, protoreflect.BytesKind:
		return len(o.val) == 0
	case protoreflect.FloatKind:
		v, _ := protowire.ConsumeFixed32(o.val)
		return v == 0
	case protoreflect.DoubleKind:
		v, _ := protowire.ConsumeFixed64(o.val)
		return v == 0
	}
	n := wireNumber(k, o)
	return n.i == 0 && n.u == 0
}
