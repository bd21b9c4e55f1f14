package jsonenc

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/wellknown"
)

// mapEntry is one entry of a map, as it is sorted: its encoding, which
// is read again as it is written, and its key's order.
type mapEntry struct {
	data []byte
	// key is where a string key is in data (start<<32 | end), or the
	// order of a number or bool key (wireKeyOrder).
	key uint64
}

// stringKey returns the string key of en, in place.
func (en *mapEntry) stringKey() []byte { return en.data[en.key>>32 : uint32(en.key)] }

func (e *Encoder) appendWireMap(b []byte, f *field, mine []occurrence) ([]byte, error) {
	kfd, vfd := f.fd.MapKey(), f.fd.MapValue()
	n := 0
	for _, o := range mine {
		n += countValues(o.val)
	}
	// Refused before its entries are gathered, so that a map that cannot
	// fit costs no memory: counted with any repeated keys (which no
	// encoder writes), which only makes the refusal earlier.
	if e.cannotHold(b, n, minMapEntry) {
		return b, ErrTooLarge
	}
	kind := kfd.Kind()
	compare := func(x, y mapEntry) int {
		if kind == protoreflect.StringKind {
			return bytes.Compare(x.stringKey(), y.stringKey())
		}
		return cmp.Compare(x.key, y.key)
	}
	// Sorted by key. Entries of one key (which no encoder writes, but the
	// wire format allows) are kept in wire order by a stable sort, so that
	// the last of them is the one proto.Unmarshal keeps; those it replaces
	// must still be well formed, as proto.Unmarshal parsed them.
	ep := mapEntryPool.Get().(*[]mapEntry)
	entries, err := mapEntries(slices.Grow((*ep)[:0], n), f, mine)
	defer func() {
		if cap(entries) <= maxPooledMapEntries { // a very large map's are not kept
			clear(entries)
			*ep = entries[:0]
			mapEntryPool.Put(ep)
		}
	}()
	if err != nil {
		return b, err
	}
	slices.SortFunc(entries, compare)
	dup := false
	for i := 1; i < len(entries) && !dup; i++ {
		dup = compare(entries[i-1], entries[i]) == 0
	}
	if dup { // gathered again, in wire order, and sorted stably
		if entries, err = mapEntries(entries[:0], f, mine); err != nil {
			return b, err
		}
		slices.SortStableFunc(entries, compare)
	}
	kept, size := entries[:0], 2
	for i, en := range entries {
		if i+1 < len(entries) && compare(en, entries[i+1]) == 0 {
			if f.elem != nil {
				_, _, vals, _ := parseEntry(kfd, vfd, en.data, nil) // checked by mapEntries
				if err := e.validateWire(f.elem, payloads(vals)); err != nil {
					return b, err
				}
			}
			continue
		}
		kept = append(kept, en)
		size += len(en.data) + 4 // about the entry's JSON: quotes, colon, comma
	}
	entries = kept
	// Room for about the object's size at once (a value's JSON is about
	// its wire size), rather than growing by a quarter at a time past
	// that of a few kilobytes.
	b = slices.Grow(b, min(size, max(e.max-len(b), 0)))
	b = append(b, '{')
	var one [1]occurrence
	vals := one[:0] // an entry's value occurrences (one, but for a merged message)
	for i, en := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		if e.over(b) {
			return b, ErrTooLarge
		}
		var key occurrence
		var err error
		key, _, vals, _ = parseEntry(kfd, vfd, en.data, vals[:0]) // checked by mapEntries
		if b, err = appendMapKey(b, kfd, key); err != nil {
			return b, err
		}
		b = append(b, ':')
		switch {
		case f.elem != nil:
			b, err = e.appendWireMerged(b, f.elem, vals)
		case len(vals) == 0:
			b, err = e.appendSingular(b, vfd.Default(), f)
		default:
			b, err = e.appendWireScalar(b, vfd, last(vals))
		}
		if err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// countValues counts the values of a list's or map's run.
func countValues(run []byte) int {
	n := 0
	for len(run) > 0 {
		_, run = nextValue(run)
		n++
	}
	return n
}

var mapEntryPool = sync.Pool{New: func() any { return new([]mapEntry) }}

// maxPooledMapEntries is the capacity of the largest entry list
// mapEntryPool keeps.
const maxPooledMapEntries = 4096

// mapEntries gathers the entries of map field f in the runs mine into
// entries, in wire order, checking each as proto.Unmarshal would.
func mapEntries(entries []mapEntry, f *field, mine []occurrence) ([]mapEntry, error) {
	kfd, vfd := f.fd.MapKey(), f.fd.MapValue()
	var one [1]occurrence
	vals := one[:0] // an entry's value occurrences (one, but for a merged message)
	for _, o := range mine {
		for run := o.val; len(run) > 0; {
			var v occurrence
			v, run = nextValue(run)
			key, keyAt, vs, err := parseEntry(kfd, vfd, v.val, vals[:0])
			if err != nil {
				return entries, err
			}
			vals = vs
			entries = append(entries, mapEntry{data: v.val, key: wireKeyOrder(kfd, key, keyAt)})
		}
	}
	return entries, nil
}

// parseEntry reads a map entry: the last occurrence of its key that
// proto.Unmarshal applies, and where its value starts in data (-1: no
// key), and its value's occurrences, appended to vals.
func parseEntry(kfd, vfd protoreflect.FieldDescriptor, data []byte, vals []occurrence) (key occurrence, keyAt int, _ []occurrence, err error) {
	keyAt = -1
	for pos := 0; pos < len(data); {
		num, typ, n := protowire.ConsumeTag(data[pos:])
		if n < 0 || num > protowire.MaxValidNumber {
			return key, -1, vals, errWire
		}
		pos += n
		m := protowire.ConsumeFieldValue(num, typ, data[pos:])
		if m < 0 {
			return key, -1, vals, errWire
		}
		at, val := pos, data[pos:pos+m]
		if typ == protowire.BytesType {
			val, _ = protowire.ConsumeBytes(val)
			at += m - len(val) // past the length
		}
		pos += m
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
			return key, -1, vals, errInvalidUTF8(fd.FullName())
		}
		if num == 1 {
			key, keyAt = occurrence{typ: typ, val: val}, at
		} else {
			vals = append(vals, occurrence{typ: typ, val: val})
		}
	}
	return key, keyAt, vals, nil
}

// wireKeyOrder is the key of a map entry for sorting (mapEntry.key): key is
// its last occurrence, at keyAt in the entry's encoding (-1: none, the
// default key).
func wireKeyOrder(kfd protoreflect.FieldDescriptor, key occurrence, keyAt int) uint64 {
	if keyAt < 0 {
		key = occurrence{} // reads as zero, "" or false
	}
	k := kfd.Kind()
	switch {
	case k == protoreflect.StringKind:
		start := uint64(max(keyAt, 0))
		return start<<32 | (start + uint64(len(key.val)))
	case k == protoreflect.BoolKind:
		if v, _ := protowire.ConsumeVarint(key.val); v != 0 {
			return 1
		}
		return 0
	case unsignedKind(k):
		return wireNumber(k, key).u
	}
	return uint64(wireNumber(k, key).i) ^ 1<<63 // flipping the sign bit orders signed numbers as unsigned ones
}

// appendMapKey writes a map key, given its last occurrence (or none, for
// the default: the zero occurrence), as a JSON string.
func appendMapKey(b []byte, kfd protoreflect.FieldDescriptor, key occurrence) ([]byte, error) {
	k := kfd.Kind()
	switch {
	case k == protoreflect.StringKind:
		out, err := appendString(b, bytesString(key.val))
		if err != nil {
			return out, errInvalidUTF8(kfd.FullName())
		}
		return out, nil
	case k == protoreflect.BoolKind:
		v, _ := protowire.ConsumeVarint(key.val)
		b = append(b, '"')
		b = strconv.AppendBool(b, v != 0)
		return append(b, '"'), nil
	case unsignedKind(k):
		return appendQuotedUint(b, wireNumber(k, key).u), nil
	}
	return appendQuotedInt(b, wireNumber(k, key).i), nil
}
