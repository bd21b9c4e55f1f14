// Package wirescan checks protobuf wire-format data against a message type
// without decoding it, so that a gateway can send a valid body on as it is.
//
// A [Message] accepts exactly the inputs that
//
//	proto.UnmarshalOptions{Merge: true}.Unmarshal(data, dynamicpb.NewMessage(md))
//
// accepts (into a new message; the differential tests and the fuzz target
// hold it to that), and rejects the ones that panic in it. That is:
//
//   - tags: field numbers from 1 to 2^29-1 (larger ones are accepted only
//     inside unknown groups, as protowire.ConsumeFieldValue accepts them),
//     varints of at most 10 bytes, lengths within the input, wire types 0
//     to 5, groups ended by their own number;
//   - a known field whose wire type does not match its kind is an unknown
//     field, not an error; so is a number the type does not declare;
//   - packed input for any repeated scalar field, whatever the field says;
//   - strings valid UTF-8 where the field enforces it: proto3 fields, and
//     editions fields with features.utf8_validation = VERIFY;
//   - messages, groups and map entries nested at most
//     protowire.DefaultRecursionLimit levels deep, groups also within
//     protowire.ConsumeGroup's own limit;
//   - map entries: any order, repeated or missing keys and values, but not
//     a key whose last occurrence has the wrong wire type after one that
//     had the right one (dynamicpb panics on that);
//   - required fields (proto2, editions LEGACY_REQUIRED) set once the
//     input is merged: singular messages merge, a later oneof member
//     replaces an earlier one, a later map entry replaces an earlier one
//     with the same key.
//
// Closed enums take any number, as dynamic messages do. Scanning
// allocates nothing for a message type that cannot hold a required field;
// for the others it builds a small tree of the messages that can.
//
// Extensions are the exception: a field number in an extension range that
// the resolver knows makes Scan return [ErrUnsupported], and the caller
// decodes the input instead. Unknown extension numbers are unknown fields.
package wirescan

import (
	"errors"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest/internal/wellknown"
)

// Errors returned by Scan. Errors for malformed input match ErrInvalid
// with errors.Is.
var (
	ErrInvalid     = errors.New("wirescan: invalid wire-format data")
	ErrRequired    = errors.New("wirescan: required field not set")
	ErrUnsupported = errors.New("wirescan: the input holds a known extension field")
)

// The ways input can be invalid; each matches ErrInvalid.
var (
	errMalformed = &invalidError{"wirescan: cannot parse invalid wire-format data"}
	errUTF8      = &invalidError{"wirescan: string field contains invalid UTF-8"}
	errDepth     = &invalidError{"wirescan: exceeded maximum recursion depth"}
	errMapKey    = &invalidError{"wirescan: map entry key with the wrong wire type after a valid key"}
)

type invalidError struct{ msg string }

func (e *invalidError) Error() string        { return e.msg }
func (e *invalidError) Is(target error) bool { return target == ErrInvalid }

// A Resolver finds extension types by the message they extend and their
// number, as proto.UnmarshalOptions.Resolver does.
type Resolver interface {
	FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error)
}

// Types compiles message types for scanning, sharing what several of them
// have in common. It is safe for concurrent use.
type Types struct {
	resolver Resolver

	mu    sync.Mutex
	plans map[protoreflect.MessageDescriptor]*plan
}

// NewTypes returns an empty set of compiled types that looks extensions up
// in resolver: nil means protoregistry.GlobalTypes, what proto.Unmarshal
// uses by default.
func NewTypes(resolver Resolver) *Types {
	if resolver == nil {
		resolver = protoregistry.GlobalTypes
	}
	return &Types{resolver: resolver, plans: make(map[protoreflect.MessageDescriptor]*plan)}
}

// A Message scans input for one message type. It is safe for concurrent
// use.
type Message struct {
	p        *plan
	resolver Resolver
}

// Message compiles md, and every message type reachable from it, once.
func (t *Types) Message(md protoreflect.MessageDescriptor) *Message {
	t.mu.Lock()
	defer t.mu.Unlock()
	var added []*plan
	p := t.plan(md, &added)
	markTracked(added)
	return &Message{p: p, resolver: t.resolver}
}

// New compiles md on its own.
func New(md protoreflect.MessageDescriptor, resolver Resolver) *Message {
	return NewTypes(resolver).Message(md)
}

// Scan reports whether data is a valid encoding of the message type: nil,
// an error matching ErrInvalid, ErrRequired, or ErrUnsupported when it
// holds a known extension.
func (m *Message) Scan(data []byte) error {
	s := scanner{resolver: m.resolver}
	var root *node
	if m.p.tracked {
		root = newNode(m.p)
	}
	// proto.Unmarshal counts the top-level message as one level.
	if _, err := s.fields(m.p, data, protowire.DefaultRecursionLimit-1, 0, groupLimit, root); err != nil {
		return err
	}
	if root != nil && !root.initialized() {
		return ErrRequired
	}
	return nil
}

// plan is one message type, compiled.
type plan struct {
	desc   protoreflect.MessageDescriptor
	dense  []field // by number, for numbers below len(dense)
	sparse map[protowire.Number]*field
	ext    protoreflect.FieldRanges // nil when the type has no extension ranges
	oneofs [][]protowire.Number     // members of each oneof that hold a tracked message
	nreq   int                      // required fields, numbered by field.req
	// tracked: a message of this type can lack a required field, itself or
	// in a message it holds, so scanning builds nodes for it.
	tracked bool
	// messageSet: proto.Unmarshal reads these another way; Scan declines.
	messageSet bool
}

// field is one field of a plan; kind 0 marks a number with no field.
type field struct {
	kind     protoreflect.Kind
	wire     protowire.Type // of one value (an element, for a list)
	list     bool
	packable bool // a repeated scalar: packed input is read too
	utf8     bool // a string that must be valid UTF-8
	msg      *plan
	entry    *mapEntry // for a map field
	req      int       // index among the required fields, or -1
	oneof    int       // index into plan.oneofs, or -1
	num      protowire.Number
}

type mapEntry struct {
	key, val field
}

func (p *plan) field(num protowire.Number) *field {
	if int(num) < len(p.dense) {
		if f := &p.dense[num]; f.kind != 0 {
			return f
		}
		return nil
	}
	return p.sparse[num]
}

// groupLimit is how deep protowire.ConsumeFieldValue lets groups nest.
const groupLimit = protowire.DefaultRecursionLimit

func (t *Types) plan(md protoreflect.MessageDescriptor, added *[]*plan) *plan {
	if p, ok := t.plans[md]; ok {
		return p
	}
	p := &plan{desc: md}
	t.plans[md] = p
	*added = append(*added, p)
	p.messageSet = wellknown.IsMessageSet(md)
	if md.ExtensionRanges().Len() > 0 {
		p.ext = md.ExtensionRanges()
	}
	fds := md.Fields()
	maxNum := protowire.Number(0)
	for i := range fds.Len() {
		maxNum = max(maxNum, fds.Get(i).Number())
	}
	if int(maxNum) < 2*fds.Len()+32 {
		p.dense = make([]field, maxNum+1)
	} else {
		p.sparse = make(map[protowire.Number]*field, fds.Len())
	}
	oneofIndex := map[protoreflect.OneofDescriptor]int{}
	req := md.RequiredNumbers()
	for i := range fds.Len() {
		fd := fds.Get(i)
		f := t.newField(fd, added)
		f.req, f.oneof = -1, -1
		for j := range req.Len() {
			if req.Get(j) == fd.Number() {
				f.req = j
			}
		}
		if od := fd.ContainingOneof(); od != nil {
			k, ok := oneofIndex[od]
			if !ok {
				k = len(p.oneofs)
				oneofIndex[od] = k
				p.oneofs = append(p.oneofs, nil)
			}
			f.oneof = k
		}
		if p.dense != nil {
			p.dense[fd.Number()] = f
		} else {
			p.sparse[fd.Number()] = &f
		}
	}
	p.nreq = req.Len()
	return p
}

func (t *Types) newField(fd protoreflect.FieldDescriptor, added *[]*plan) field {
	f := field{kind: fd.Kind(), wire: wellknown.WireType(fd.Kind()), num: fd.Number(), list: fd.IsList()}
	switch {
	case fd.IsMap():
		key, val := t.newField(fd.MapKey(), added), t.newField(fd.MapValue(), added)
		key.req, key.oneof, val.req, val.oneof = -1, -1, -1, -1
		f.entry = &mapEntry{key: key, val: val}
	case fd.Message() != nil:
		f.msg = t.plan(fd.Message(), added)
	}
	f.packable = f.list && f.wire != protowire.BytesType && f.wire != protowire.StartGroupType
	f.utf8 = f.kind == protoreflect.StringKind && wellknown.EnforcesUTF8(fd)
	return f
}

// markTracked works out which of the plans just added are tracked: those
// whose messages can lack a required field (wellknown.Required). Plans
// added earlier are settled: they cannot reach the new ones.
func markTracked(added []*plan) {
	var req wellknown.Required
	for _, p := range added {
		p.tracked = req.CanLack(p.desc)
	}
	// Oneof members that hold tracked messages: a later member drops them.
	for _, p := range added {
		p.eachField(func(f *field) {
			if f.oneof >= 0 && f.msg != nil && f.msg.tracked {
				p.oneofs[f.oneof] = append(p.oneofs[f.oneof], f.num)
			}
		})
	}
}

func (p *plan) eachField(fn func(*field)) {
	for i := range p.dense {
		if p.dense[i].kind != 0 {
			fn(&p.dense[i])
		}
	}
	for _, f := range p.sparse {
		fn(f)
	}
}
