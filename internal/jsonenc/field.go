package jsonenc

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// AppendField appends the JSON value of field fd of m: what Append writes
// after fd's key inside m, and nothing where Append leaves the field out
// (an unset oneof member; an unset field without EmitUnpopulated). This
// is a response_body that names a field that is not a message.
//
// It returns ErrUnsupported where Append would, and for message types
// that can lack a required field (Append would check the whole message).
func (e *Encoder) AppendField(b []byte, m proto.Message, fd protoreflect.FieldDescriptor) ([]byte, error) {
	pm := m.ProtoReflect()
	p := e.plan(pm.Descriptor())
	if !p.supported || p.required {
		return b, ErrUnsupported
	}
	i, ok := p.byNumber(protowire.Number(fd.Number()))
	if !ok {
		return b, ErrUnsupported
	}
	f := &p.fields[i]
	start, first := len(b), true
	var err error
	if sp := p.goValue(pm); sp != nil && f.goKind != goNone {
		b, err = e.appendFast(b, f, sp, &first) // read from the Go struct, as Append does
	} else {
		b, err = e.appendReflectField(b, pm, f, &first)
	}
	if err == nil && e.over(b) {
		err = ErrTooLarge
	}
	if err != nil || len(b) == start {
		return b, err
	}
	key := len(f.key) - 1 // appendKey drops the comma of the first key
	return append(b[:start], b[start+key:]...), nil
}
