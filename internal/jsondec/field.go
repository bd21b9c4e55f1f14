package jsondec

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/gostruct"
)

// TryUnmarshalField reads data, one JSON value and nothing after it, as
// the value of field fd of m, as protojson reads that value inside an
// object of m's type (a request body bound to a field that is not a
// message). fd must be unset in m. It reports true when it decided by
// itself, false when protojson must; fd is then unset again. Types that
// can lack a required field are always left to protojson, which checks
// the whole message.
func (d *Decoder) TryUnmarshalField(data []byte, m proto.Message, fd protoreflect.FieldDescriptor) bool {
	pm := m.ProtoReflect()
	p := d.plan(pm.Descriptor())
	i := fd.Index()
	if p.fallback || p.required || i >= len(p.fields) || p.fields[i].fd != fd {
		return false
	}
	f := &p.fields[i]
	st := d.start(data)
	var err error
	switch sv, _ := p.layout.Struct(pm); {
	case st.Peek() == 'n' && !f.nullable: // null leaves the field unset, as in members
		if !st.Literal("null") {
			err = errFallback
		}
	case sv.IsValid() && f.goKind != gostruct.None:
		err = st.memberGo(sv.Field(f.goIndex), f) // into the Go struct, as messageBody writes
	default:
		err = st.member(pm, f)
	}
	ok := err == nil && st.end()
	d.release(st)
	if !ok {
		pm.Clear(fd)
	}
	return ok
}
