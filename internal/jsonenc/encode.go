package jsonenc

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// appendMessage writes m by plan p; typeURL, when set, comes first as
// "@type" (a message inside a google.protobuf.Any).
func (e *Encoder) appendMessage(b []byte, m protoreflect.Message, p *plan, typeURL string) ([]byte, error) {
	if p.wkt != nil && typeURL == "" {
		return p.wkt(e, b, m, p)
	}
	b = append(b, '{')
	first := true
	if typeURL != "" {
		b = append(b, `"@type":`...)
		var err error
		if b, err = appendString(b, typeURL); err != nil {
			return b, err
		}
		first = false
	}
	return e.appendFields(b, m, p.goValue(m), p, first)
}

// appendFields writes the fields of message m by plan p, and the closing
// brace; first says no field has been written yet. sp, if not nil,
// points to m's Go struct, and the fields the plan marks are read from
// it; m may then be nil until a field needs it.
func (e *Encoder) appendFields(b []byte, m protoreflect.Message, sp goStructPtr, p *plan, first bool) ([]byte, error) {
	fast := sp != nil
	fields := p.fields
	for i := range fields {
		f := &fields[i]
		if e.over(b) {
			return b, ErrTooLarge
		}
		var err error
		switch {
		case fast && f.goKind != goNone:
			b, err = e.appendFast(b, f, sp, &first)
		case m == nil:
			m = messageAt(p.gofast.typ, sp)
			fallthrough
		default:
			b, err = e.appendReflectField(b, m, f, &first)
		}
		if err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendReflectField writes field f of m, read through protoreflect.
func (e *Encoder) appendReflectField(b []byte, m protoreflect.Message, f *field, first *bool) ([]byte, error) {
	switch {
	case !m.Has(f.fd):
		return e.appendUnset(b, f, first)
	case f.list:
		b = appendKey(b, f, first)
		return e.appendList(b, m.Get(f.fd).List(), f)
	case f.mapField:
		b = appendKey(b, f, first)
		return e.appendMap(b, m.Get(f.fd).Map(), f)
	}
	b = appendKey(b, f, first)
	return e.appendSingular(b, m.Get(f.fd), f)
}

// appendUnset writes an unset field as protojson's options say: nothing
// (by default, and always for a oneof member), null for a field with
// presence under EmitUnpopulated (EmitDefaultValues writes no nulls), and
// otherwise its default: an empty list or map, or the zero scalar. Every
// path of the encoder (protoreflect, Go struct, wire) comes through here.
func (e *Encoder) appendUnset(b []byte, f *field, first *bool) ([]byte, error) {
	switch {
	case !(e.opts.EmitUnpopulated || e.opts.EmitDefaultValues) || f.inOneof:
		return b, nil
	case f.presence:
		if !e.opts.EmitUnpopulated {
			return b, nil
		}
		b = appendKey(b, f, first)
		return append(b, "null"...), nil
	}
	b = appendKey(b, f, first)
	switch {
	case f.list:
		return append(b, '[', ']'), nil
	case f.mapField:
		return append(b, '{', '}'), nil
	}
	return e.appendSingular(b, f.fd.Default(), f)
}

// appendSingular writes v, one value of field f (a list element or map
// value included).
func (e *Encoder) appendSingular(b []byte, v protoreflect.Value, f *field) ([]byte, error) {
	switch f.kind {
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool()), nil
	case protoreflect.StringKind:
		return appendStringOf(b, v.String(), f)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return appendQuotedInt(b, v.Int()), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return appendQuotedUint(b, v.Uint()), nil
	case protoreflect.FloatKind:
		return appendFloat(b, v.Float(), 32), nil
	case protoreflect.DoubleKind:
		return appendFloat(b, v.Float(), 64), nil
	case protoreflect.BytesKind:
		return appendBytes(b, v.Bytes()), nil
	case protoreflect.EnumKind:
		return f.enum.append(e, b, v.Enum())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return e.appendMessage(b, v.Message(), f.elem, "")
	}
	return b, nil
}

func (e *Encoder) appendList(b []byte, list protoreflect.List, f *field) ([]byte, error) {
	n := list.Len()
	if e.cannotHold(b, n, minElement) {
		return b, ErrTooLarge
	}
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		if e.over(b) {
			return b, ErrTooLarge
		}
		var err error
		if b, err = e.appendSingular(b, list.Get(i), f); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendMap writes a map's entries in protojson's order: keys sorted as
// their kind sorts (false before true, numbers by value, strings by bytes).
func (e *Encoder) appendMap(b []byte, m protoreflect.Map, f *field) ([]byte, error) {
	if e.cannotHold(b, m.Len(), minMapEntry) {
		return b, ErrTooLarge
	}
	keys := make([]protoreflect.MapKey, 0, m.Len())
	m.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	slices.SortFunc(keys, keyOrder(f.fd.MapKey().Kind()))
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		if e.over(b) {
			return b, ErrTooLarge
		}
		var err error
		if b, err = appendString(b, k.String()); err != nil {
			return b, errInvalidUTF8(f.fd.MapKey().FullName())
		}
		b = append(b, ':')
		if b, err = e.appendSingular(b, m.Get(k), f); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// keyOrder returns how map keys of kind k sort.
func keyOrder(k protoreflect.Kind) func(x, y protoreflect.MapKey) int {
	switch k {
	case protoreflect.BoolKind:
		return func(x, y protoreflect.MapKey) int {
			return cmpBool(x.Bool(), y.Bool())
		}
	case protoreflect.StringKind:
		return func(x, y protoreflect.MapKey) int { return strings.Compare(x.String(), y.String()) }
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return func(x, y protoreflect.MapKey) int { return cmp.Compare(x.Uint(), y.Uint()) }
	}
	return func(x, y protoreflect.MapKey) int { return cmp.Compare(x.Int(), y.Int()) }
}

func cmpBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}
