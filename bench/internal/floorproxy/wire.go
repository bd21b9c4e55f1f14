package floorproxy

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
)

// errMalformed: response bytes that are not the message expected.
var errMalformed = errors.New("floorproxy: malformed response message")

// A field is one field of an encoded message: its number and wire type,
// and its value: the number of a varint or fixed field, the bytes of a
// length-delimited one.
type field struct {
	num   protowire.Number
	typ   protowire.Type
	val   uint64
	bytes []byte
}

// isBytes reports whether f is field num, length-delimited.
func (f field) isBytes(num protowire.Number) bool {
	return f.num == num && f.typ == protowire.BytesType
}

// isVarint reports whether f is field num, a varint.
func (f field) isVarint(num protowire.Number) bool {
	return f.num == num && f.typ == protowire.VarintType
}

// nextField reads the field at the start of b and returns it and the
// rest of b, or errMalformed.
func nextField(b []byte) (field, []byte, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return field{}, nil, errMalformed
	}
	b = b[n:]
	f := field{num: num, typ: typ}
	switch typ {
	case protowire.VarintType:
		f.val, n = protowire.ConsumeVarint(b)
	case protowire.Fixed64Type:
		f.val, n = protowire.ConsumeFixed64(b)
	case protowire.Fixed32Type:
		var v uint32
		v, n = protowire.ConsumeFixed32(b)
		f.val = uint64(v)
	case protowire.BytesType:
		f.bytes, n = protowire.ConsumeBytes(b)
	default:
		n = protowire.ConsumeFieldValue(num, typ, b)
	}
	if n < 0 {
		return field{}, nil, errMalformed
	}
	return f, b[n:], nil
}
