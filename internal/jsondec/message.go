package jsondec

import (
	"reflect"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/gostruct"
)

// message reads the JSON form of a message of plan p into m, an empty
// message, as protojson's unmarshalMessage does. sv is the Go struct m
// points to, if the caller has it at hand.
func (st *state) message(m protoreflect.Message, sv reflect.Value, p *plan) error {
	if !st.enter() {
		return errFallback
	}
	err := st.messageBody(m, sv, p)
	st.leave()
	return err
}

func (st *state) messageBody(m protoreflect.Message, sv reflect.Value, p *plan) error {
	if p.fallback {
		return errFallback
	}
	if sv.IsValid() && (p.layout == nil || sv.Type() != p.layout.Type.Elem()) {
		sv = reflect.Value{}
	} else if !sv.IsValid() {
		sv, _ = p.layout.Struct(m)
	}
	if p.wkt != wktNone {
		return st.wellKnown(m, sv, p)
	}
	return st.members(p, func(f *field) error {
		if sv.IsValid() && f.goKind != gostruct.None {
			return st.memberGo(sv.Field(f.goIndex), f)
		}
		return st.member(m, f)
	})
}

// members reads the members of a JSON object, the form of a message of
// plan p, as protojson's unmarshalMessage does, and calls each with the
// field of each member whose value is to be read (at pos). Both targets,
// messages and wire bytes, read objects through it, so they take and
// refuse the same members: unknown names are skipped when the options
// discard them, null leaves a field unset (and does not count for its
// oneof) unless the field is nullable, and a field given twice or a
// second member of one oneof is left to protojson.
func (st *state) members(p *plan, each func(f *field) error) error {
	empty, ok := st.Open('{')
	if !ok {
		return errFallback
	}
	var seen, oneofs bitset
	next := 0 // the field expected next
	for more := !empty; more; {
		key, ok := st.Str()
		if !ok || isExtensionName(key) {
			return errFallback
		}
		i, known := p.lookup(key, next)
		st.Space()
		if !st.Consume(':') {
			return errFallback
		}
		switch {
		case !known:
			if !st.discard || !st.Skip(st.limit) {
				return errFallback
			}
		case seen.testAndSet(i):
			return errFallback // a field given twice
		default:
			next = i + 1
			f := &p.fields[i]
			if st.Peek() == 'n' && !f.nullable {
				if !st.Literal("null") {
					return errFallback
				}
				break
			}
			if f.oneof >= 0 && oneofs.testAndSet(f.oneof) {
				return errFallback // a second member of one oneof
			}
			if err := each(f); err != nil {
				return err
			}
		}
		if more, ok = st.More('}'); !ok {
			return errFallback
		}
	}
	return nil
}

// member reads the value of field f of m.
func (st *state) member(m protoreflect.Message, f *field) error {
	switch {
	case f.list:
		return st.list(m.Mutable(f.fd).List(), f)
	case f.isMap:
		return st.mapValue(m.Mutable(f.fd).Map(), f)
	}
	if f.elem != nil {
		v := m.NewField(f.fd)
		if err := st.message(v.Message(), reflect.Value{}, f.elem); err != nil {
			return err
		}
		m.Set(f.fd, v)
		return nil
	}
	v, ok := st.scalar(f)
	if !ok {
		return errFallback
	}
	if v.IsValid() {
		m.Set(f.fd, v)
	}
	return nil
}

// isExtensionName reports a member name of the form [full.name], which
// protojson resolves as an extension.
func isExtensionName(key []byte) bool {
	return len(key) >= 2 && key[0] == '[' && key[len(key)-1] == ']'
}

// list reads a JSON array into l, the list field f.
func (st *state) list(l protoreflect.List, f *field) error {
	empty, ok := st.Open('[')
	if !ok {
		return errFallback
	}
	for more := !empty; more; {
		if f.elem != nil {
			v := l.NewElement()
			if err := st.message(v.Message(), reflect.Value{}, f.elem); err != nil {
				return err
			}
			l.Append(v)
		} else {
			v, ok := st.scalar(f)
			if !ok {
				return errFallback
			}
			if v.IsValid() {
				l.Append(v)
			}
		}
		if more, ok = st.More(']'); !ok {
			return errFallback
		}
	}
	return nil
}

// mapValue reads a JSON object into mm, the map field f.
func (st *state) mapValue(mm protoreflect.Map, f *field) error {
	empty, ok := st.Open('{')
	if !ok {
		return errFallback
	}
	for more := !empty; more; {
		name, ok := st.Str()
		if !ok {
			return errFallback
		}
		key, ok := mapKey(name, f.key)
		st.Space()
		if !ok || !st.Consume(':') || mm.Has(key) {
			return errFallback
		}
		var v protoreflect.Value
		if f.elem != nil {
			v = mm.NewValue()
			if err := st.message(v.Message(), reflect.Value{}, f.elem); err != nil {
				return err
			}
		} else if v, ok = st.scalar(f); !ok {
			return errFallback
		}
		if v.IsValid() {
			mm.Set(key, v)
		}
		if more, ok = st.More('}'); !ok {
			return errFallback
		}
	}
	return nil
}

// mapKey converts a member name to a map key of kind k, as protojson does.
func mapKey(name []byte, k protoreflect.Kind) (protoreflect.MapKey, bool) {
	switch k {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(string(name)).MapKey(), true
	case protoreflect.BoolKind:
		switch string(name) {
		case "true":
			return protoreflect.ValueOfBool(true).MapKey(), true
		case "false":
			return protoreflect.ValueOfBool(false).MapKey(), true
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if n, err := strconv.ParseInt(string(name), 10, 32); err == nil {
			return protoreflect.ValueOfInt32(int32(n)).MapKey(), true
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if n, err := strconv.ParseInt(string(name), 10, 64); err == nil {
			return protoreflect.ValueOfInt64(n).MapKey(), true
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if n, err := strconv.ParseUint(string(name), 10, 32); err == nil {
			return protoreflect.ValueOfUint32(uint32(n)).MapKey(), true
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if n, err := strconv.ParseUint(string(name), 10, 64); err == nil {
			return protoreflect.ValueOfUint64(n).MapKey(), true
		}
	}
	return protoreflect.MapKey{}, false
}

// bitset marks small indexes (fields, oneofs) seen in one object.
type bitset struct {
	lo uint64
	hi []uint64 // indexes from 64 on, for large messages
}

// testAndSet marks i and reports whether it was marked already.
func (s *bitset) testAndSet(i int) bool {
	w, bit := &s.lo, uint64(1)<<(i&63)
	if i >= 64 {
		n := i/64 - 1
		for len(s.hi) <= n {
			s.hi = append(s.hi, 0)
		}
		w = &s.hi[n]
	}
	was := *w&bit != 0
	*w |= bit
	return was
}
