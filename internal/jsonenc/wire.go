package jsonenc

import (
	"errors"
	"slices"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest/internal/wellknown"
)

// AppendWire appends the JSON form of the message of type md whose
// protobuf wire encoding is data: what Append writes for the dynamic
// message (dynamicpb) proto.Unmarshal makes of data, without making it.
// This is how a remote backend's response becomes JSON with no dynamic
// message in between. (Like dynamicpb, it keeps unknown values of closed
// enums as values, where generated code would set them aside.)
//
// It returns ErrUnsupported where Append would, for message types that can
// lack a required field (proto.Unmarshal would check them), and for
// groups; the caller then unmarshals and uses Append.
func (e *Encoder) AppendWire(b []byte, md protoreflect.MessageDescriptor, data []byte) ([]byte, error) {
	p := e.plan(md)
	if !p.supported || p.required {
		return b, ErrUnsupported
	}
	b, err := e.appendWireMessage(b, p, [][]byte{data})
	if err == nil && e.over(b) {
		err = ErrTooLarge
	}
	return b, err
}

// errWire is a malformed wire encoding; proto.Unmarshal would fail too.
var errWire = errors.New("jsonenc: invalid wire-format data")

// occurrence is one field of a message encoding, in wire order: its
// value bytes (a varint, fixed bytes, or a length-delimited payload), or,
// for a list or map field, a run: the field's encoded values that follow
// each other, tags included (see nextValue), so that a list or map is one
// occurrence however long, unless other fields come between its values.
// It is kept small (32 bytes): a message can have an occurrence for every
// two of its bytes.
type occurrence struct {
	val   []byte
	seq   int32 // its place in the encoding
	field int16 // index in plan.fields (see maxFields)
	typ   protowire.Type
}

var occPool = sync.Pool{New: func() any { s := make([]occurrence, 0, 16); return &s }}

// maxPooledOccurrences is the capacity of the largest occurrence list
// occPool keeps.
const maxPooledOccurrences = 4096

// scan lists the occurrences of p's fields in the message whose encoding
// is the concatenation of segs (a singular message field given several
// times is merged, which is what concatenation means). What
// proto.Unmarshal would keep as unknown fields is skipped: unknown numbers,
// and a wire type the field cannot take. A list's or map's values are
// checked here, so that reading its runs (nextValue) cannot fail.
func scan(p *plan, segs [][]byte, occ []occurrence) ([]occurrence, error) {
	for _, data := range segs {
		runStart, runEnd := 0, -1 // the run the last occurrence is, in data
		for pos := 0; pos < len(data); {
			start := pos
			num, typ, n := protowire.ConsumeTag(data[pos:])
			if n < 0 || num > protowire.MaxValidNumber {
				return occ, errWire
			}
			pos += n
			val, n, err := consumeValue(typ, data[pos:])
			if err != nil {
				return occ, err
			}
			pos += n
			i, ok := p.byNumber(num)
			if !ok || !applies(&p.fields[i], typ) {
				continue
			}
			f := &p.fields[i]
			if f.checkUTF8 && typ == protowire.BytesType && !utf8.Valid(val) {
				return occ, errInvalidUTF8(f.fd.FullName()) // proto.Unmarshal fails on it
			}
			if !f.list && !f.mapField {
				runEnd = -1
			} else if last := len(occ) - 1; start == runEnd && int(occ[last].field) == i {
				occ[last].val, runEnd = data[runStart:pos], pos
				continue
			} else {
				val, runStart, runEnd = data[start:pos], start, pos
			}
			if len(occ) == cap(occ) {
				// Doubled, not grown by a quarter as append grows a
				// large slice: a message of many occurrences leaves
				// half as much behind.
				occ = slices.Grow(occ, cap(occ))
			}
			occ = append(occ, occurrence{val: val, seq: int32(len(occ)), field: int16(i), typ: typ})
		}
	}
	return occ, nil
}

// consumeValue splits the value of a field of wire type typ off data (a
// length-delimited value's payload), and says how many bytes it took.
func consumeValue(typ protowire.Type, data []byte) (val []byte, n int, err error) {
	switch typ {
	case protowire.VarintType:
		if _, n = protowire.ConsumeVarint(data); n < 0 {
			return nil, 0, errWire
		}
		return data[:n], n, nil
	case protowire.Fixed32Type:
		if len(data) < 4 {
			return nil, 0, errWire
		}
		return data[:4], 4, nil
	case protowire.Fixed64Type:
		if len(data) < 8 {
			return nil, 0, errWire
		}
		return data[:8], 8, nil
	case protowire.BytesType:
		if val, n = protowire.ConsumeBytes(data); n < 0 {
			return nil, 0, errWire
		}
		return val, n, nil
	case protowire.StartGroupType:
		return nil, 0, ErrUnsupported
	}
	return nil, 0, errWire
}

// nextValue splits the first value off run, a list's or map's run of
// encoded values (see occurrence), which scan has checked.
func nextValue(run []byte) (o occurrence, rest []byte) {
	_, typ, n := protowire.ConsumeTag(run)
	val, m, _ := consumeValue(typ, run[n:])
	return occurrence{val: val, typ: typ}, run[n+m:]
}

// applies reports whether proto.Unmarshal sets field f from a value of
// wire type typ (else it keeps it as an unknown field).
func applies(f *field, typ protowire.Type) bool {
	k := f.kind
	switch {
	case f.mapField:
		return typ == protowire.BytesType
	case f.list && typ == protowire.BytesType:
		return true // a packed run, or a string, bytes or message element
	case !wireTypeFits(k, typ):
		return false
	}
	return true
}

// byNumber returns the index in p.fields of field number num.
func (p *plan) byNumber(num protowire.Number) (int, bool) {
	if int(num) < len(p.numIndex) {
		i := p.numIndex[num]
		return int(i), i >= 0
	}
	fd := p.desc.Fields().ByNumber(num)
	if fd == nil {
		return 0, false
	}
	return fd.Index(), true
}

func (e *Encoder) appendWireMessage(b []byte, p *plan, segs [][]byte) ([]byte, error) {
	if p.wkt != nil {
		return e.appendWireWellKnown(b, p, segs)
	}
	op := occPool.Get().(*[]occurrence)
	defer func() {
		if cap(*op) <= maxPooledOccurrences { // a very large message's are not kept
			clear(*op)
			occPool.Put(op)
		}
	}()
	occ, err := scan(p, segs, (*op)[:0])
	*op = occ
	if err != nil {
		return b, err
	}
	// Group each field's occurrences, keeping their wire order.
	slices.SortStableFunc(occ, func(x, y occurrence) int { return int(x.field) - int(y.field) })
	b = append(b, '{')
	first := true
	j := 0
	for i := range p.fields {
		if e.over(b) {
			return b, ErrTooLarge
		}
		f := &p.fields[i]
		start := j
		for j < len(occ) && int(occ[j].field) == i {
			j++
		}
		mine := occ[start:j]
		if f.inOneof && len(mine) > 0 {
			// A oneof holds its last member only, and only what came
			// after the last occurrence of another member.
			kept := oneofKept(p, occ, i, mine)
			if f.elem != nil && len(kept) < len(mine) {
				// Overridden, but parsed all the same by proto.Unmarshal.
				if err := e.validateWire(f.elem, payloads(mine[:len(mine)-len(kept)])); err != nil {
					return b, err
				}
			}
			mine = kept
		}
		present, err := e.wirePresent(f, mine)
		if err != nil {
			return b, err
		}
		if !present {
			if b, err = e.appendUnset(b, f, &first); err != nil {
				return b, err
			}
			continue
		}
		b = appendKey(b, f, &first)
		switch {
		case f.list:
			b, err = e.appendWireList(b, f, mine)
		case f.mapField:
			b, err = e.appendWireMap(b, f, mine)
		case f.elem != nil:
			b, err = e.appendWireMerged(b, f.elem, mine)
		default:
			b, err = e.appendWireScalar(b, f.value, last(mine))
		}
		if err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// oneofKept returns, of the occurrences mine of field i, a oneof member,
// those that count: none unless the member occurs last of its oneof among
// occ, and then those after the last occurrence of another member.
func oneofKept(p *plan, occ []occurrence, i int, mine []occurrence) []occurrence {
	od := p.fields[i].fd.ContainingOneof()
	lastOther := int32(-1)
	for _, o := range occ {
		if int(o.field) != i && p.fields[o.field].fd.ContainingOneof() == od {
			lastOther = max(lastOther, o.seq)
		}
	}
	if lastOther > mine[len(mine)-1].seq {
		return nil
	}
	k := 0
	for k < len(mine) && mine[k].seq < lastOther {
		k++
	}
	return mine[k:]
}

// wirePresent reports whether field f, given the occurrences that apply
// to it, is set in the unmarshalled message.
func (e *Encoder) wirePresent(f *field, mine []occurrence) (bool, error) {
	switch {
	case len(mine) == 0:
		return false, nil
	case f.list:
		for _, o := range mine {
			for run := o.val; len(run) > 0; {
				var v occurrence
				v, run = nextValue(run)
				if n, err := countElements(f.value, v); err != nil || n > 0 {
					return n > 0, err
				}
			}
		}
		return false, nil
	case f.mapField, f.elem != nil, f.presence:
		return true, nil
	}
	return !isZero(f.kind, last(mine)), nil
}

// countElements counts the elements of a repeated field in one value of
// its run (a packed run, or one element).
func countElements(fd protoreflect.FieldDescriptor, o occurrence) (int, error) {
	// scan kept only occurrences the field takes: a length-delimited
	// element, a single scalar, or a packed run of scalars.
	if lengthDelimited(fd.Kind()) || o.typ != protowire.BytesType {
		return 1, nil
	}
	n := 0
	err := forPacked(fd, o.val, func(protowire.Type, []byte) error {
		n++
		return nil
	})
	return n, err
}

// lengthDelimited reports the kinds whose every value is length-delimited.
func lengthDelimited(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.MessageKind, protoreflect.GroupKind, protoreflect.StringKind, protoreflect.BytesKind:
		return true
	}
	return false
}

// forPacked calls fn for each element of a packed run of a scalar field.
func forPacked(fd protoreflect.FieldDescriptor, data []byte, fn func(protowire.Type, []byte) error) error {
	typ := wellknown.WireType(fd.Kind())
	for len(data) > 0 {
		var n int
		switch typ {
		case protowire.VarintType:
			_, n = protowire.ConsumeVarint(data)
		case protowire.Fixed32Type:
			n = 4
		case protowire.Fixed64Type:
			n = 8
		}
		if n < 0 || n > len(data) {
			return errWire
		}
		if err := fn(typ, data[:n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

func (e *Encoder) appendWireList(b []byte, f *field, mine []occurrence) ([]byte, error) {
	b = append(b, '[')
	first := true
	sep := func() error {
		if !first {
			b = append(b, ',')
		}
		first = false
		if e.over(b) {
			return ErrTooLarge
		}
		return nil
	}
	for _, o := range mine {
		for run := o.val; len(run) > 0; {
			var v occurrence
			var err error
			v, run = nextValue(run)
			// As in countElements, every value is one the field takes.
			switch {
			case f.elem != nil:
				if err = sep(); err == nil {
					b, err = e.appendWireMessage(b, f.elem, [][]byte{v.val})
				}
			case !lengthDelimited(f.kind) && v.typ == protowire.BytesType:
				err = forPacked(f.value, v.val, func(typ protowire.Type, val []byte) error {
					if err := sep(); err != nil {
						return err
					}
					var err error
					b, err = e.appendWireScalar(b, f.value, occurrence{typ: typ, val: val})
					return err
				})
			default:
				if err = sep(); err == nil {
					b, err = e.appendWireScalar(b, f.value, v)
				}
			}
			if err != nil {
				return b, err
			}
		}
	}
	return append(b, ']'), nil
}

// validateWire checks, without writing anything, that segs would
// unmarshal as a message of plan p: for what AppendWire reads but does not
// write (a oneof member overridden, a map entry replaced).
func (e *Encoder) validateWire(p *plan, segs [][]byte) error {
	if p.wkt != nil {
		_, err := unmarshalWellKnown(p, segs)
		return err
	}
	occ, err := scan(p, segs, nil)
	if err != nil {
		return err
	}
	for _, o := range occ {
		f := &p.fields[o.field]
		if !f.list && !f.mapField {
			if err := e.validateValue(f, o); err != nil {
				return err
			}
			continue
		}
		for run := o.val; len(run) > 0; {
			var v occurrence
			v, run = nextValue(run)
			if err := e.validateValue(f, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateValue is validateWire for one value of field f.
func (e *Encoder) validateValue(f *field, v occurrence) error {
	switch {
	case f.mapField:
		_, _, valOcc, err := parseEntry(f.fd.MapKey(), f.value, v.val, nil)
		if err == nil && f.elem != nil {
			err = e.validateWire(f.elem, payloads(valOcc))
		}
		return err
	case f.elem != nil:
		return e.validateWire(f.elem, [][]byte{v.val})
	case f.list && v.typ == protowire.BytesType && !lengthDelimited(f.kind):
		return forPacked(f.value, v.val, func(protowire.Type, []byte) error { return nil })
	}
	return nil
}

func last(occ []occurrence) occurrence { return occ[len(occ)-1] }

// appendWireMerged writes the message of plan p that the occurrences
// of a message field make, merged.
func (e *Encoder) appendWireMerged(b []byte, p *plan, occ []occurrence) ([]byte, error) {
	if len(occ) == 1 && occ[0].typ == protowire.BytesType {
		return e.appendWireMessage(b, p, [][]byte{occ[0].val})
	}
	return e.appendWireMessage(b, p, payloads(occ))
}

// payloads returns the payloads of a message field's occurrences, whose
// concatenation is the merged message.
func payloads(occ []occurrence) [][]byte {
	segs := make([][]byte, 0, len(occ))
	for _, o := range occ {
		if o.typ == protowire.BytesType {
			segs = append(segs, o.val)
		}
	}
	return segs
}

// appendWireWellKnown writes a well-known type by unmarshalling it (they
// are small) into its generated type and using its writer.
func (e *Encoder) appendWireWellKnown(b []byte, p *plan, segs [][]byte) ([]byte, error) {
	switch p.desc.FullName() {
	case "google.protobuf.Timestamp", "google.protobuf.Duration":
		// Two varints, read in place.
		secs, nanos, err := wireSecondsNanos(segs)
		if err != nil {
			return b, err
		}
		if p.desc.FullName() == "google.protobuf.Timestamp" {
			return formatTimestamp(b, secs, nanos)
		}
		return formatDuration(b, secs, nanos)
	}
	m, err := unmarshalWellKnown(p, segs)
	if err != nil {
		return b, err
	}
	// The writer reads m through the plan of its own (generated) type.
	return p.wkt(e, b, m, e.plan(m.Descriptor()))
}

// unmarshalWellKnown unmarshals the segments of a well-known type (they are
// small) into its generated type.
func unmarshalWellKnown(p *plan, segs [][]byte) (protoreflect.Message, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(p.desc.FullName())
	if err != nil {
		return nil, ErrUnsupported
	}
	m := mt.New()
	opts := proto.UnmarshalOptions{Merge: true, AllowPartial: true}
	for _, s := range segs {
		if err := opts.Unmarshal(s, m.Interface()); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// wireSecondsNanos reads a Timestamp's or Duration's seconds (int64,
// field 1) and nanos (int32, field 2): the last of each, as
// proto.Unmarshal keeps; other fields and wire types are unknown fields.
func wireSecondsNanos(segs [][]byte) (secs, nanos int64, err error) {
	for _, data := range segs {
		for len(data) > 0 {
			num, typ, n := protowire.ConsumeTag(data)
			if n < 0 || num > protowire.MaxValidNumber {
				return 0, 0, errWire
			}
			data = data[n:]
			if typ == protowire.VarintType && (num == 1 || num == 2) {
				v, m := protowire.ConsumeVarint(data)
				if m < 0 {
					return 0, 0, errWire
				}
				data = data[m:]
				if num == 1 {
					secs = int64(v)
				} else {
					nanos = int64(int32(v))
				}
				continue
			}
			if typ == protowire.StartGroupType {
				return 0, 0, ErrUnsupported
			}
			m := protowire.ConsumeFieldValue(num, typ, data)
			if m < 0 {
				return 0, 0, errWire
			}
			data = data[m:]
		}
	}
	return secs, nanos, nil
}
