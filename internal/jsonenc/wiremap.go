package jsonenc

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/wellknown"
)

// mapEntry is one entry of a map: its key, and its value's occurrences
// as a range of the map's value store.
type mapEntry struct {
	key        string // the key's JSON text (unquoted)
	keyOrder   keySort
	start, end int
}

// keySort orders map keys as protojson does.
type keySort struct {
	b bool
	i int64
	u uint64
	s string
}

func (e *Encoder) appendWireMap(b []byte, f *field, mine []occurrence) ([]byte, error) {
	kfd, vfd := f.fd.MapKey(), f.fd.MapValue()
	entries := make([]mapEntry, 0, len(mine))
	vals := make([]occurrence, 0, len(mine)) // every entry's value occurrences
	for _, o := range mine {
		if o.typ != protowire.BytesType {
			continue
		}
		start := len(vals)
		keyOcc, haveKey, vs, err := parseEntry(kfd, vfd, o.val, vals)
		if err != nil {
			return b, err
		}
		vals = vs
		key, order, err := wireMapKey(kfd, keyOcc, haveKey)
		if err != nil {
			return b, err
		}
		entries = append(entries, mapEntry{key: key, keyOrder: order, start: start, end: len(vals)})
	}
	// Sorted by key, and entries of one key in wire order (their values'
	// places in vals), so that the last of them is the one proto.Unmarshal
	// keeps; those it replaces must still be well formed, as
	// proto.Unmarshal parsed them.
	kind := kfd.Kind()
	slices.SortFunc(entries, func(x, y mapEntry) int {
		if c := compareKeySort(kind, x.keyOrder, y.keyOrder); c != 0 {
			return c
		}
		return x.start - y.start
	})
	kept, size := entries[:0], 2
	for i, en := range entries {
		if i+1 < len(entries) && compareKeySort(kind, en.keyOrder, entries[i+1].keyOrder) == 0 {
			if f.elem != nil {
				if err := e.validateWire(f.elem, payloads(vals[en.start:en.end])); err != nil {
					return b, err
				}
			}
			continue
		}
		kept = append(kept, en)
		size += len(en.key) + 4 // quotes, colon, comma
		for _, v := range vals[en.start:en.end] {
			size += len(v.val) + 2
		}
	}
	entries = kept
	if e.cannotHold(b, len(entries), minMapEntry) {
		return b, ErrTooLarge
	}
	// Room for about the object's size at once (a value's JSON is about
	// its wire size), rather than growing by a quarter at a time past
	// that of a few kilobytes.
	b = slices.Grow(b, min(size, max(e.max-len(b), 0)))
	b = append(b, '{')
	for i, en := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		if e.over(b) {
			return b, ErrTooLarge
		}
		var err error
		if b, err = appendString(b, en.key); err != nil {
			return b, errInvalidUTF8(kfd.FullName())
		}
		b = append(b, ':')
		value := vals[en.start:en.end]
		switch {
		case f.elem != nil:
			b, err = e.appendWireMessage(b, f.elem, payloads(value))
		case len(value) == 0:
			b, err = e.appendSingular(b, vfd.Default(), f)
		default:
			b, err = e.appendWireScalar(b, vfd, last(value))
		}
		if err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// parseEntry reads a map entry: the last occurrence of its key that
// proto.Unmarshal applies, and its value's occurrences, appended to vals.
func parseEntry(kfd, vfd protoreflect.FieldDescriptor, data []byte, vals []occurrence) (key occurrence, haveKey bool, _ []occurrence, err error) {
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 || num > protowire.MaxValidNumber {
			return key, false, vals, errWire
		}
		data = data[n:]
		m := protowire.ConsumeFieldValue(num, typ, data)
		if m < 0 {
			return key, false, vals, errWire
		}
		val := data[:m]
		if typ == protowire.BytesType {
			val, _ = protowire.ConsumeBytes(val)
		}
		data = data[m:]
		var fd protoreflect.FieldDescriptor
		switch num {
		case 1:
			fd = kfd
		case 2:
			fd = vfd
		default:
			continue
		}
		if !wireTypeFits(fd.Kind(), typ) {
			continue // an unknown field of the entry
		}
		if fd.Kind() == protoreflect.StringKind && wellknown.EnforcesUTF8(fd) && !utf8.Valid(val) {
			return key, false, vals, errInvalidUTF8(fd.FullName())
		}
		if num == 1 {
			key, haveKey = occurrence{typ: typ, val: val}, true
		} else {
			vals = append(vals, occurrence{typ: typ, val: val})
		}
	}
	return key, haveKey, vals, nil
}

// wireMapKey decodes a map key (its last occurrence, else the default).
func wireMapKey(kfd protoreflect.FieldDescriptor, o occurrence, have bool) (string, keySort, error) {
	if !have {
		o = occurrence{}
	}
	var ks keySort
	switch kfd.Kind() {
	case protoreflect.StringKind:
		ks.s = string(o.val)
		if !utf8.ValidString(ks.s) {
			return "", ks, errInvalidUTF8(kfd.FullName())
		}
		return ks.s, ks, nil
	case protoreflect.BoolKind:
		v, _ := protowire.ConsumeVarint(o.val)
		ks.b = v != 0
		return strconv.FormatBool(ks.b), ks, nil
	}
	if o.val == nil {
		return "0", ks, nil
	}
	v := wireNumber(kfd.Kind(), o)
	if unsignedKind(kfd.Kind()) {
		ks.u = v.u
		return strconv.FormatUint(v.u, 10), ks, nil
	}
	ks.i = v.i
	return strconv.FormatInt(v.i, 10), ks, nil
}

func compareKeySort(k protoreflect.Kind, x, y keySort) int {
	switch {
	case k == protoreflect.BoolKind:
		return cmpBool(x.b, y.b)
	case k == protoreflect.StringKind:
		return strings.Compare(x.s, y.s)
	case unsignedKind(k):
		switch {
		case x.u < y.u:
			return -1
		case x.u > y.u:
			return 1
		}
		return 0
	}
	switch {
	case x.i < y.i:
		return -1
	case x.i > y.i:
		return 1
	}
	return 0
}
