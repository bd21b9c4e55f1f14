package remote

import (
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/jsonscan"
	"github.com/protorest/protorest/internal/wirescan"
)

// maxFieldDepth is the deepest body field path a fieldBody takes
// (body: "a.b.c" is 3); a deeper one's requests are decoded.
const maxFieldDepth = 8

// maxRecordHead is the most bytes a record's tag (a field number below
// 2^29) and length (a varint) take.
const maxRecordHead = 5 + 10

// A fieldBody is how a rule whose body is a message field (body: "book")
// sends a request body as wire bytes: the field's record around the
// body's bytes, inside a record for each message on the field's way, as
// decoding the body into a new message of the field's type and setting
// the field to it gives.
type fieldBody struct {
	path []protoreflect.FieldDescriptor
	md   protoreflect.MessageDescriptor // the field's type
	scan *wirescan.Message
	room int // the most bytes the records' tags and lengths take
}

// newFieldBody returns the fieldBody of a body bound to path, or nil
// when its requests must be decoded: the field is repeated, a map or not
// a message; the path goes through a oneof (setting a member clears the
// others, which a query parameter may have set) or a group, or is deeper
// than maxFieldDepth.
func newFieldBody(scans *wirescan.Types, path []protoreflect.FieldDescriptor) *fieldBody {
	leaf := path[len(path)-1]
	if len(path) > maxFieldDepth || leaf.IsList() || leaf.IsMap() {
		return nil
	}
	for _, fd := range path {
		if fd.Kind() != protoreflect.MessageKind {
			return nil
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			return nil
		}
	}
	return &fieldBody{path: path, md: leaf.Message(), scan: scans.Message(leaf.Message()), room: len(path) * maxRecordHead}
}

// encode writes the records of in's body into buf's room (buf is empty):
// a binary body's own bytes once the scan finds that decoding them would
// succeed, a JSON body transcoded straight to the wire form. The records
// may begin past buf's start. It reports false for an empty body (which
// decoding leaves unset), a body the scan rejects or the JSON decoder
// leaves to protojson, or another codec's.
func (f *fieldBody) encode(buf []byte, in *bind.Input) ([]byte, bool) {
	if len(in.Body) == 0 || in.Format.JSON != nil && jsonscan.IsBlank(in.Body) {
		return nil, false
	}
	buf = slices.Grow(buf, f.room+len(in.Body))[:f.room]
	switch {
	case in.Format.Proto:
		if f.scan.Scan(in.Body) != nil {
			return nil, false
		}
		buf = append(buf, in.Body...)
	case in.Format.JSON != nil:
		var ok bool
		if buf, ok = in.Format.JSON.AppendProto(buf, f.md, in.Body); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	var heads [maxFieldDepth * maxRecordHead]byte
	h := f.appendHeads(heads[:0], len(buf)-f.room)
	start := f.room - len(h)
	copy(buf[start:], h)
	return buf[start:], true
}

// appendHeads appends the tag and length of each record on the field's
// path, from the request down, for a body of n bytes.
func (f *fieldBody) appendHeads(b []byte, n int) []byte {
	var lens [maxFieldDepth]int
	last := len(f.path) - 1
	lens[last] = n
	for i := last - 1; i >= 0; i-- {
		lens[i] = protowire.SizeTag(f.path[i+1].Number()) + protowire.SizeBytes(lens[i+1])
	}
	for i, fd := range f.path {
		b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(lens[i]))
	}
	return b
}
