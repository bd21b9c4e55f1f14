package jsondec

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/gostruct"
)

// Direct paths for generated messages: a value set through protoreflect is
// converted through reflect and costs allocations of its own; written into
// the struct field it costs none (see package gostruct). The decisions are
// the protoreflect path's; only where the value goes differs.

// memberGo reads the value of field f into fv, its Go struct field.
func (st *state) memberGo(fv reflect.Value, f *field) error {
	switch f.goKind {
	case gostruct.Scalar:
		v, ok := st.scalar(f)
		if !ok {
			return errFallback
		}
		if v.IsValid() {
			gostruct.SetScalar(fv, f.kind, v)
		}
		return nil
	case gostruct.Message:
		nv := reflect.New(fv.Type().Elem())
		if err := st.message(nv.Interface().(protoreflect.ProtoMessage).ProtoReflect(), nv.Elem(), f.elem); err != nil {
			return err
		}
		fv.Set(nv)
		return nil
	case gostruct.StringList:
		return st.stringList(fv.Addr().Interface().(*[]string))
	case gostruct.StringMap:
		return st.stringMap(fv.Addr().Interface().(*map[string]string))
	case gostruct.MessageList:
		return st.messageList(fv, f)
	}
	panic("jsondec: field without a Go struct path")
}

// set stores v in field f of m; sv is m's Go struct when it has one.
func set(m protoreflect.Message, sv reflect.Value, f *field, v protoreflect.Value) {
	if sv.IsValid() && f.goKind == gostruct.Scalar {
		gostruct.SetScalar(sv.Field(f.goIndex), f.kind, v)
		return
	}
	m.Set(f.fd, v)
}

// stringList reads an array of strings into *l. The strings gather in
// st.strs first, so that the slice is allocated once, at its length.
func (st *state) stringList(l *[]string) error {
	empty, ok := st.Open('[')
	if !ok {
		return errFallback
	}
	base := len(st.strs)
	for more := !empty; more; {
		b, ok := st.Str()
		if !ok {
			return errFallback
		}
		st.strs = append(st.strs, string(b))
		if more, ok = st.More(']'); !ok {
			return errFallback
		}
	}
	if n := len(st.strs) - base; n > 0 {
		*l = append(make([]string, 0, len(*l)+n), *l...)
		*l = append(*l, st.strs[base:]...)
	}
	clear(st.strs[base:])
	st.strs = st.strs[:base]
	return nil
}

// stringMap reads an object of strings into *mp.
func (st *state) stringMap(mp *map[string]string) error {
	empty, ok := st.Open('{')
	if !ok {
		return errFallback
	}
	if *mp == nil {
		*mp = map[string]string{}
	}
	for more := !empty; more; {
		name, ok := st.Str()
		if !ok {
			return errFallback
		}
		if _, dup := (*mp)[string(name)]; dup {
			return errFallback
		}
		key := string(name) // before the value's string reuses scratch
		st.Space()
		if !st.Consume(':') {
			return errFallback
		}
		val, ok := st.Str()
		if !ok {
			return errFallback
		}
		(*mp)[key] = string(val)
		if more, ok = st.More('}'); !ok {
			return errFallback
		}
	}
	return nil
}

// messageList reads an array of messages into fv, a []*Message. The
// messages gather in st.msgs first, so that the slice is allocated once.
func (st *state) messageList(fv reflect.Value, f *field) error {
	empty, ok := st.Open('[')
	if !ok {
		return errFallback
	}
	typ := fv.Type().Elem().Elem()
	base := len(st.msgs)
	for more := !empty; more; {
		nv := reflect.New(typ)
		if err := st.message(nv.Interface().(protoreflect.ProtoMessage).ProtoReflect(), nv.Elem(), f.elem); err != nil {
			return err
		}
		st.msgs = append(st.msgs, nv)
		if more, ok = st.More(']'); !ok {
			return errFallback
		}
	}
	if n := len(st.msgs) - base; n > 0 {
		at := fv.Len()
		fv.Grow(n) // in place: fv is a struct field
		fv.SetLen(at + n)
		for i, v := range st.msgs[base:] {
			fv.Index(at + i).Set(v)
		}
	}
	clear(st.msgs[base:])
	st.msgs = st.msgs[:base]
	return nil
}
