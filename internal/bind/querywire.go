package bind

import (
	"google.golang.org/protobuf/reflect/protoreflect"
)

// AppendWire appends to dst the protobuf wire form of the fields Bind
// sets from rawQuery: each parameter's value in a record of its field,
// inside a record for each message on the way (appendValueWire), so that
// decoding the bytes after those of the path variables and the body, and
// merging, gives the message Bind fills. ok is false, and dst is returned
// as it was, when Bind would fail (it then gives the error) or when the
// bytes could not say the same: a parameter through a oneof, through a
// message with required fields (whose check the bytes would skip), of a
// well-known type other than Timestamp and Duration, or the zero value of
// a singular field without presence (which Bind leaves unset).
func (q *Query) AppendWire(dst []byte, rawQuery string) (_ []byte, ok bool) {
	start := len(dst)
	var pathArr [16]*fieldPlan
	var seenArr [8]span
	var fds [16]protoreflect.FieldDescriptor
	path, seen := pathArr[:0], seenArr[:0]
	for rawQuery != "" {
		name, rawValue, use, badName := q.nextParam(&rawQuery)
		if badName {
			return dst[:start], false
		}
		if !use {
			continue
		}
		if q.bodyAll {
			if q.ignoreUnknown {
				continue
			}
			return dst[:start], false
		}
		base := len(path)
		var err error
		if path, err = q.resolve(path, name); err != nil {
			return dst[:start], false
		}
		if len(path) == base { // unknown and ignored
			continue
		}
		cur := path[base:]
		leaf := cur[len(cur)-1]
		if leaf.conv == nil || len(cur) > len(fds) {
			return dst[:start], false
		}
		if !leaf.conv.list && seenBefore(seen, path, cur) {
			return dst[:start], false
		}
		value, ok := unescape(rawValue, q.plus)
		if !ok {
			return dst[:start], false
		}
		for i, fp := range cur {
			if i < len(cur)-1 && fp.fd.Message() != nil && fp.fd.Message().RequiredNumbers().Len() > 0 {
				return dst[:start], false
			}
			fds[i] = fp.fd
		}
		if dst, ok = appendValueWire(dst, fds[:len(cur)], leaf.conv, value); !ok {
			return dst[:start], false
		}
		if leaf.conv.list {
			path = path[:base]
			continue
		}
		seen = append(seen, span{base, len(path)})
	}
	return dst, true
}
