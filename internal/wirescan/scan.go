package wirescan

import (
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// scanner walks input the way proto.UnmarshalOptions' slow path (the one
// dynamic messages take, proto/decode.go) does, keeping only what decides
// success. The comments name the step of that code each check mirrors.
type scanner struct {
	resolver Resolver
}

// fields scans the fields of one message of type p: all of b, or for a
// group (end is its number) up to and including its end-group tag. It
// returns how many bytes it read.
//
// depth is what is left of proto.Unmarshal's recursion limit once this
// message is counted. gd is how deep a group starting here may still nest
// for protowire.ConsumeFieldValue: the input of a known group is first
// measured with protowire.ConsumeGroup, which gives every group inside it
// (known or not, but not inside a length-delimited field) one level less,
// and that limit holds on top of the one each group starts itself.
//
// nd, for a tracked type, is the message's node, to which the required
// fields it sets are added.
func (s *scanner) fields(p *plan, b []byte, depth int, end protowire.Number, gd int, nd *node) (int, error) {
	if p.messageSet {
		return 0, ErrUnsupported
	}
	n0 := len(b)
	for {
		if len(b) == 0 {
			if end != 0 {
				return 0, errMalformed // a group without its end
			}
			return n0, nil
		}
		num, wtyp, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, errMalformed
		}
		b = b[n:]
		if wtyp == protowire.EndGroupType {
			if end != 0 && num == end {
				return n0 - len(b), nil
			}
			return 0, errMalformed // the end of another group, or of none
		}
		if num > protowire.MaxValidNumber {
			return 0, errMalformed
		}
		f := p.field(num)
		var err error
		switch {
		case f == nil:
			n, err = s.unknown(p, num, wtyp, b, gd)
		case f.entry != nil:
			n, err = s.mapEntry(f, wtyp, b, depth, gd, nd)
		case f.list:
			n, err = s.listValue(f, wtyp, b, depth, gd, nd)
		default:
			n, err = s.singular(f, wtyp, b, depth, gd, nd)
		}
		if err != nil {
			return 0, err
		}
		b = b[n:]
	}
}

// unknown skips a field p does not declare. A number in an extension
// range is looked up first: a known extension is ErrUnsupported.
func (s *scanner) unknown(p *plan, num protowire.Number, wtyp protowire.Type, b []byte, gd int) (int, error) {
	if p.ext != nil && p.ext.Has(num) {
		xt, err := s.resolver.FindExtensionByNumber(p.desc.FullName(), num)
		if err != nil && err != protoregistry.NotFound {
			return 0, errMalformed // proto: "unable to resolve extension"
		}
		if xt != nil {
			return 0, ErrUnsupported
		}
	}
	return skip(num, wtyp, b, gd)
}

// skip measures an unknown field's value as protowire.ConsumeFieldValue
// does, with groups allowed to nest depth levels (ConsumeFieldValue starts
// from protowire.DefaultRecursionLimit).
func skip(num protowire.Number, wtyp protowire.Type, b []byte, depth int) (int, error) {
	n := consumeFieldValue(num, wtyp, b, depth)
	if n < 0 {
		return 0, errMalformed
	}
	return n, nil
}

func consumeFieldValue(num protowire.Number, wtyp protowire.Type, b []byte, depth int) int {
	switch wtyp {
	case protowire.VarintType:
		_, n := protowire.ConsumeVarint(b)
		return n
	case protowire.Fixed32Type:
		_, n := protowire.ConsumeFixed32(b)
		return n
	case protowire.Fixed64Type:
		_, n := protowire.ConsumeFixed64(b)
		return n
	case protowire.BytesType:
		_, n := protowire.ConsumeBytes(b)
		return n
	case protowire.StartGroupType:
		if depth < 0 {
			return -1
		}
		n0 := len(b)
		for {
			num2, typ2, n := protowire.ConsumeTag(b)
			if n < 0 {
				return n
			}
			b = b[n:]
			if typ2 == protowire.EndGroupType {
				if num2 != num {
					return -1
				}
				return n0 - len(b)
			}
			n = consumeFieldValue(num2, typ2, b, depth-1)
			if n < 0 {
				return n
			}
			b = b[n:]
		}
	}
	return -1 // an end group with no start, or wire type 6 or 7
}

// singular scans one occurrence of a singular field (unmarshalSingular):
// a scalar replaces, a message merges into what the field holds (a oneof
// member into itself only: another member, set since, dropped it).
func (s *scanner) singular(f *field, wtyp protowire.Type, b []byte, depth, gd int, nd *node) (int, error) {
	if wtyp != f.wire {
		return skip(f.num, wtyp, b, gd) // errUnknown: kept as an unknown field
	}
	if f.msg == nil {
		n, err := scalar(f, b)
		if err == nil && nd != nil {
			nd.set(f)
		}
		return n, err
	}
	var child *node
	if nd != nil {
		nd.set(f)
		if f.msg.tracked {
			child = nd.child(f.num, f.msg)
		}
	}
	return s.message(f, b, depth, gd, child)
}

// listValue scans one occurrence of a repeated field (unmarshalList):
// one element, or packed elements for a scalar sent as bytes.
func (s *scanner) listValue(f *field, wtyp protowire.Type, b []byte, depth, gd int, nd *node) (int, error) {
	if f.packable && wtyp == protowire.BytesType {
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return 0, errMalformed
		}
		for len(v) > 0 {
			m, err := scalar(f, v)
			if err != nil {
				return 0, err
			}
			v = v[m:]
		}
		return n, nil
	}
	if wtyp != f.wire {
		return skip(f.num, wtyp, b, gd)
	}
	if f.msg == nil {
		return scalar(f, b)
	}
	var elem *node
	if f.msg.tracked {
		elem = newNode(f.msg)
	}
	n, err := s.message(f, b, depth, gd, elem)
	if err == nil && elem != nil && !elem.initialized() {
		nd.bad = true // an element is never dropped
	}
	return n, err
}

// message scans the value of a message or group field whose tag had the
// right wire type (unmarshalScalar, then unmarshalMessage), into nd.
func (s *scanner) message(f *field, b []byte, depth, gd int, nd *node) (int, error) {
	if f.wire == protowire.StartGroupType {
		// protowire.ConsumeGroup measures the group before it is read.
		if gd < 0 {
			return 0, errDepth
		}
		if depth--; depth < 0 {
			return 0, errDepth
		}
		return s.fields(f.msg, b, depth, f.num, gd-1, nd)
	}
	v, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, errMalformed
	}
	if depth--; depth < 0 {
		return 0, errDepth
	}
	if _, err := s.fields(f.msg, v, depth, 0, groupLimit, nd); err != nil {
		return 0, err
	}
	return n, nil
}

// mapEntry scans one map entry (unmarshalMap). Its key and value may come
// in any order, repeat (the last wins; message values merge) or be
// missing (the default, or an empty message).
func (s *scanner) mapEntry(f *field, wtyp protowire.Type, b []byte, depth, gd int, nd *node) (int, error) {
	// The entry counts against the recursion limit before its wire type
	// is looked at.
	if depth--; depth < 0 {
		return 0, errDepth
	}
	if wtyp != protowire.BytesType {
		return skip(f.num, wtyp, b, gd)
	}
	v, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, errMalformed
	}
	e := f.entry
	var val *node
	if e.val.msg != nil && e.val.msg.tracked {
		val = newNode(e.val.msg)
	}
	var key mapKey
	haveKey, keyLost := false, false
	for len(v) > 0 {
		num, wtyp, m := protowire.ConsumeTag(v)
		if m < 0 || num > protowire.MaxValidNumber {
			return 0, errMalformed
		}
		v = v[m:]
		var err error
		switch {
		case num == 1 && wtyp == e.key.wire:
			if val != nil {
				key, m, err = keyValue(&e.key, v)
			} else {
				m, err = scalar(&e.key, v)
			}
			haveKey, keyLost = true, false
		case num == 1:
			// unmarshalScalar fails with errUnknown and leaves the key
			// invalid: after a valid key, dynamicpb panics on it.
			keyLost = true
			m, err = skip(num, wtyp, v, groupLimit)
		case num == 2 && wtyp == e.val.wire:
			if e.val.msg == nil {
				m, err = scalar(&e.val, v)
			} else {
				m, err = s.message(&e.val, v, depth, groupLimit, val)
			}
		default:
			m, err = skip(num, wtyp, v, groupLimit)
		}
		if err != nil {
			return 0, err
		}
		v = v[m:]
	}
	if haveKey && keyLost {
		return 0, errMapKey
	}
	if val != nil {
		nd.mapValue(f.num, key, val.initialized())
	}
	return n, nil
}

// scalar checks one scalar value of f's kind (unmarshalScalar): varints
// of at most 10 bytes, whole fixed-size values and lengths, UTF-8 where
// the field requires it.
func scalar(f *field, b []byte) (int, error) {
	var n int
	switch f.wire {
	case protowire.VarintType:
		_, n = protowire.ConsumeVarint(b)
	case protowire.Fixed32Type:
		_, n = protowire.ConsumeFixed32(b)
	case protowire.Fixed64Type:
		_, n = protowire.ConsumeFixed64(b)
	default:
		var v []byte
		v, n = protowire.ConsumeBytes(b)
		if n >= 0 && f.utf8 && !utf8.Valid(v) {
			return 0, errUTF8
		}
	}
	if n < 0 {
		return 0, errMalformed
	}
	return n, nil
}

// keyValue checks a map key and returns it as the Go value dynamicpb
// keys the map by would compare.
func keyValue(f *field, b []byte) (mapKey, int, error) {
	n, err := scalar(f, b)
	if err != nil {
		return mapKey{}, 0, err
	}
	var k mapKey
	switch f.wire {
	case protowire.VarintType:
		v, _ := protowire.ConsumeVarint(b)
		switch f.kind {
		case protoreflect.BoolKind:
			k.n = 0
			if v != 0 {
				k.n = 1
			}
		case protoreflect.Int32Kind:
			k.n = uint64(int64(int32(v)))
		case protoreflect.Sint32Kind:
			k.n = uint64(int64(int32(protowire.DecodeZigZag(v & math.MaxUint32))))
		case protoreflect.Uint32Kind:
			k.n = uint64(uint32(v))
		case protoreflect.Sint64Kind:
			k.n = uint64(protowire.DecodeZigZag(v))
		default: // int64, uint64
			k.n = v
		}
	case protowire.Fixed32Type:
		v, _ := protowire.ConsumeFixed32(b)
		k.n = uint64(v)
		if f.kind == protoreflect.Sfixed32Kind {
			k.n = uint64(int64(int32(v)))
		}
	case protowire.Fixed64Type:
		v, _ := protowire.ConsumeFixed64(b)
		k.n = v
	default:
		v, _ := protowire.ConsumeBytes(b)
		k.s = string(v)
	}
	return k, n, nil
}
