package bind

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// A Field is a field path resolved at registration, with a converter for
// its leaf. It is safe for concurrent use.
type Field struct {
	path []protoreflect.FieldDescriptor
	name string     // dotted proto names
	conv *converter // nil when the leaf cannot be set from a string
	// what and detail describe the leaf when conv is nil.
	what, detail string
	// refused says why every value is refused, or is "": the path goes
	// through a repeated or map field.
	refused string
}

// ResolveField resolves a dotted path (components are proto names or
// json_names; a proto name is tried first) against md. Intermediate
// components must be singular message fields (well-known types included:
// {ts.seconds}, as grpc-gateway serves it), or repeated or map fields of messages (a map's are
// "key" and "value"): grpc-gateway generates a route for such a path
// variable, which google/api/http.proto does not allow, and answers its
// every request 400; the Field then refuses every value (see Refused).
// The leaf must be a scalar, an enum, a repeated scalar or enum, or a
// well-known type with a string JSON form (Timestamp, Duration,
// FieldMask, the wrappers, Value, Empty). The error names the component
// that failed, as in
//
//	field "inner.x": no field "x" in message conf.v1.Inner
func ResolveField(md protoreflect.MessageDescriptor, path []string) (*Field, error) {
	if len(path) == 0 {
		return nil, errors.New("empty field path")
	}
	fds := make([]protoreflect.FieldDescriptor, 0, len(path))
	var through protoreflect.FieldDescriptor
	cur := md
	for i, comp := range path {
		prefix := strings.Join(path[:i+1], ".")
		fields := cur.Fields()
		fd := fields.ByName(protoreflect.Name(comp))
		if fd == nil {
			fd = fields.ByJSONName(comp)
		}
		if fd == nil {
			return nil, fmt.Errorf("field %q: no field %q in message %s", prefix, comp, cur.FullName())
		}
		fds = append(fds, fd)
		if i == len(path)-1 {
			break
		}
		if (fd.IsList() || fd.IsMap()) && fd.Message() != nil {
			if through == nil {
				through = fd
			}
		} else if err := checkIntermediate(fd, true); err != nil {
			return nil, fmt.Errorf("field %q: %w", prefix, err)
		}
		cur = fd.Message()
	}
	f := newField(fds)
	if f.conv == nil {
		msg := "a " + f.what + " cannot be set from a string"
		if f.detail != "" {
			msg += ": " + f.detail
		}
		return nil, fmt.Errorf("field %q: %s", f.name, msg)
	}
	if through != nil {
		kind := "repeated"
		if through.IsMap() {
			kind = "map"
		}
		f.refused = "path variable " + quote(f.name) + " binds a field through the " + kind + " field " +
			quote(string(through.Name())) + ", which google/api/http.proto does not allow"
	}
	return f, nil
}

// Refused returns why [Field.SetPathValue] refuses every value (with
// INVALID_ARGUMENT): the path goes through a repeated or map field. It
// returns "" for a path that takes values.
func (f *Field) Refused() string { return f.refused }

// BoundField returns the Field for a path already resolved against md,
// such as a rule's body field. Unlike [ResolveField] it accepts any leaf:
// a message, map or repeated message leaf is fine for telling [NewQuery]
// what the body binds, but SetPathValue on such a Field fails.
func BoundField(md protoreflect.MessageDescriptor, path []protoreflect.FieldDescriptor) (*Field, error) {
	if len(path) == 0 {
		return nil, errors.New("empty field path")
	}
	cur := md
	for i, fd := range path {
		if fd.ContainingMessage().FullName() != cur.FullName() {
			return nil, fmt.Errorf("field %q is not a field of %s", fd.FullName(), cur.FullName())
		}
		if i == len(path)-1 {
			break
		}
		if err := checkIntermediate(fd, false); err != nil {
			return nil, fmt.Errorf("field %q: %w", dotted(path[:i+1]), err)
		}
		cur = fd.Message()
	}
	return newField(path), nil
}

// checkIntermediate reports why a field path cannot descend through fd.
// A path variable may descend into a well-known type with a string form
// (intoWellKnown: {ts.seconds}, which grpc-gateway serves); a body may
// not.
func checkIntermediate(fd protoreflect.FieldDescriptor, intoWellKnown bool) error {
	switch {
	case fd.IsMap():
		return fmt.Errorf("%s is a map field; a path cannot descend into it", fd.Name())
	case fd.IsList():
		return fmt.Errorf("%s is a repeated field; a path cannot descend into it", fd.Name())
	case fd.Message() == nil:
		return fmt.Errorf("%s is a %s field, not a message", fd.Name(), fd.Kind())
	case hasStringForm(fd.Message()) && !intoWellKnown:
		return fmt.Errorf("%s is a %s, which is set as a whole from a string; a path cannot descend into it", fd.Name(), fd.Message().FullName())
	}
	return nil
}

func newField(path []protoreflect.FieldDescriptor) *Field {
	f := &Field{path: path, name: dotted(path)}
	f.conv, f.what, f.detail = newConverter(path[len(path)-1])
	return f
}

// dotted joins the proto names of path with dots.
func dotted(path []protoreflect.FieldDescriptor) string {
	var b strings.Builder
	for i, fd := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(string(fd.Name()))
	}
	return b.String()
}

// Path returns the field descriptors from the request message down to the
// leaf. The caller must not modify the slice.
func (f *Field) Path() []protoreflect.FieldDescriptor { return f.path }

// String returns the path as dotted proto names, such as "inner.s".
func (f *Field) String() string { return f.name }

// SetPathValue converts value (already percent-decoded) and stores it in
// m, creating intermediate messages with Mutable. For a repeated leaf,
// value is comma-separated and the elements replace the field's contents
// (a path binding wins over the body, as it does for singular fields). A
// oneof member may be set only when no other member of its oneof is set.
// Errors are InvalidArgument status errors naming the field.
func (f *Field) SetPathValue(m protoreflect.Message, value string) error {
	if f.refused != "" {
		return invalidArgument(f.refused)
	}
	if f.conv == nil {
		return invalidArgument("field " + quote(f.name) + " cannot be set from a path value: it is a " + f.what)
	}
	parent := m
	last := len(f.path) - 1
	for i, fd := range f.path {
		if od := fd.ContainingOneof(); od != nil {
			if set := parent.WhichOneof(od); set != nil && set != fd {
				return oneofConflict("field", f.name, od, set)
			}
		}
		if i == last {
			break
		}
		parent = parent.Mutable(fd).Message()
	}
	c := f.conv
	if !c.list {
		if problem := c.set(parent, value); problem != "" {
			return invalidValue("field", f.name, value, problem)
		}
		return nil
	}
	list := parent.Mutable(c.fd).List()
	list.Truncate(0)
	for rest := value; ; {
		elem, more := cutComma(&rest)
		v, problem := c.scalar(elem)
		if problem != "" {
			return invalidValue("field", f.name, elem, problem)
		}
		list.Append(v)
		if !more {
			return nil
		}
	}
}

// oneofConflict reports an attempt to set a member of a oneof that has
// another member set already.
func oneofConflict(what, name string, od protoreflect.OneofDescriptor, set protoreflect.FieldDescriptor) error {
	return invalidArgument(what + " " + quote(name) + ": oneof " + quote(string(od.Name())) +
		" already has field " + quote(string(set.Name())) + " set")
}
