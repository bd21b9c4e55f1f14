package codec

import (
	"slices"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Proto is the protobuf binary format.
//
// A message with the methods vtprotobuf's protoc-gen-go-vtproto generates
// (github.com/planetscale/vtprotobuf: MarshalVT, or SizeVT and
// MarshalToSizedBufferVT, and UnmarshalVT) is written and read with them,
// which need no reflection; any other message with the proto package.
// UnmarshalVT merges into the message as proto.UnmarshalOptions{Merge:
// true} does, so both read alike. Where they differ, the generated code
// decides: it does not check that proto3 strings are valid UTF-8, on
// either side. Nor does it limit recursion, so a message type that can
// nest without bound (a type reachable from it refers back to itself, as
// google.protobuf.Struct does) is read with proto when the input is long
// enough to nest deeper than proto's limit,
// protowire.DefaultRecursionLimit: a request body cannot make the
// generated code recurse a million levels deep.
type Proto struct{}

// The methods vtprotobuf generates (features marshal, size and
// unmarshal).
type (
	vtMarshaler interface {
		MarshalVT() ([]byte, error)
	}
	vtSizedMarshaler interface {
		SizeVT() int
		MarshalToSizedBufferVT(b []byte) (int, error)
	}
	vtUnmarshaler interface {
		UnmarshalVT(b []byte) error
	}
)

// Marshal encodes m in the binary wire format.
func (Proto) Marshal(m proto.Message) ([]byte, error) {
	if vt, ok := m.(vtMarshaler); ok {
		return vt.MarshalVT()
	}
	return proto.Marshal(m)
}

// Size returns the length of m's binary form: SizeVT's for a message
// vtprotobuf generated it for, proto.Size's (which caches it in m, see
// AppendMarshalSized) for any other.
func (Proto) Size(m proto.Message) int {
	if vt, ok := m.(vtSizedMarshaler); ok {
		return vt.SizeVT()
	}
	return proto.Size(m)
}

// AppendMarshal appends the binary form of m to b, as Marshal writes it,
// so that a pooled buffer serves.
func (c Proto) AppendMarshal(b []byte, m proto.Message) ([]byte, error) {
	return c.AppendMarshalWithin(b, m, 0)
}

// AppendMarshalWithin is AppendMarshal for an encoding of at most max
// bytes (0: any size): a larger one fails with ErrTooLarge, before it is
// written when its size is known first (vtprotobuf's SizeVT, or the
// proto package's Size, whose result its marshal then reuses).
func (c Proto) AppendMarshalWithin(b []byte, m proto.Message, max int) ([]byte, error) {
	if vt, ok := m.(vtSizedMarshaler); ok {
		size := vt.SizeVT()
		if max > 0 && size > max {
			return b, ErrTooLarge
		}
		b = slices.Grow(b, size)
		buf := b[len(b) : len(b)+size]
		n, err := vt.MarshalToSizedBufferVT(buf)
		if err != nil {
			return b, err
		}
		// The generated code writes backwards from the end of buf: the
		// message is its last n bytes, all of them unless SizeVT
		// overcounted.
		copy(buf, buf[size-n:])
		return b[:len(b)+n], nil
	}
	if _, ok := m.(vtMarshaler); ok {
		out, err := c.Marshal(m)
		if err == nil && max > 0 && len(out) > max {
			return b, ErrTooLarge
		}
		return append(b, out...), err
	}
	if max <= 0 {
		return proto.MarshalOptions{}.MarshalAppend(b, m)
	}
	if proto.Size(m) > max {
		return b, ErrTooLarge
	}
	return proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(b, m)
}

// AppendMarshalSized is AppendMarshalWithin for a message whose size
// Size has just measured, unchanged since: the sizes proto.Size cached in
// m and the messages m holds are taken, not measured again.
func (c Proto) AppendMarshalSized(b []byte, m proto.Message, max int) ([]byte, error) {
	if _, ok := m.(vtSizedMarshaler); ok {
		return c.AppendMarshalWithin(b, m, max)
	}
	if _, ok := m.(vtMarshaler); ok {
		return c.AppendMarshalWithin(b, m, max)
	}
	o := proto.MarshalOptions{UseCachedSize: true}
	if max > 0 && o.Size(m) > max {
		return b, ErrTooLarge
	}
	return o.MarshalAppend(b, m)
}

// Unmarshal decodes the binary wire format into m, merging into what m
// holds.
func (Proto) Unmarshal(data []byte, m proto.Message) error {
	if vt, ok := m.(vtUnmarshaler); ok && (len(data) <= maxBoundedLen || !nestsWithoutBound(m.ProtoReflect().Descriptor())) {
		return vt.UnmarshalVT(data)
	}
	return proto.UnmarshalOptions{Merge: true}.Unmarshal(data, m)
}

// maxBoundedLen is the longest input that cannot nest messages deeper
// than proto's recursion limit: each level takes at least two bytes (a
// tag and a length, or a group's start and end tags).
const maxBoundedLen = 2 * protowire.DefaultRecursionLimit

// unbounded caches nestsWithoutBound: protoreflect.MessageDescriptor →
// bool. It holds only the types of messages with vtprotobuf's methods
// that were read from long inputs, a set bounded by the program's
// generated code.
var unbounded sync.Map

// nestsWithoutBound reports whether messages of type md can nest without
// bound: whether a message type reachable from md through its fields (map
// values included) refers back to itself.
func nestsWithoutBound(md protoreflect.MessageDescriptor) bool {
	if v, ok := unbounded.Load(md); ok {
		return v.(bool)
	}
	v := reachesCycle(md, map[protoreflect.MessageDescriptor]bool{})
	unbounded.Store(md, v)
	return v
}

// reachesCycle is nestsWithoutBound's depth-first search: onPath[d] is
// true while d's fields are searched, false once none of them reaches a
// cycle.
func reachesCycle(md protoreflect.MessageDescriptor, onPath map[protoreflect.MessageDescriptor]bool) bool {
	if searching, seen := onPath[md]; seen {
		return searching
	}
	onPath[md] = true
	fields := md.Fields()
	for i := range fields.Len() {
		if sub := fields.Get(i).Message(); sub != nil && reachesCycle(sub, onPath) {
			return true
		}
	}
	onPath[md] = false
	return false
}
