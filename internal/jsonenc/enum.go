package jsonenc

import (
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// appendEnum writes enum value n of type ed as protojson does: null for
// google.protobuf.NullValue, else its name in quotes, or its number when
// the options ask for numbers or n has no name.
func (e *Encoder) appendEnum(b []byte, ed protoreflect.EnumDescriptor, n protoreflect.EnumNumber) ([]byte, error) {
	if ed.FullName() == "google.protobuf.NullValue" {
		return append(b, "null"...), nil
	}
	if !e.opts.UseEnumNumbers {
		if vd := ed.Values().ByNumber(n); vd != nil {
			return appendString(b, string(vd.Name()))
		}
	}
	return strconv.AppendInt(b, int64(n), 10), nil
}

// maxEnumMemo bounds enumMemo's table: enums numbered densely from zero,
// as most are, have every value in it.
const maxEnumMemo = 256

// enumMemo is what appendEnum writes for the small numbers of one enum
// type, computed when the plan is built; the Go fast path reads it
// instead of looking the names up in the descriptor.
type enumMemo struct {
	ed   protoreflect.EnumDescriptor
	json [][]byte // json[n]: the JSON of number n, for 0 <= n < len(json)
}

func (e *Encoder) newEnumMemo(ed protoreflect.EnumDescriptor) *enumMemo {
	memo := &enumMemo{ed: ed}
	size := 0
	vals := ed.Values()
	for i := range vals.Len() {
		if n := int(vals.Get(i).Number()); n >= size && n < maxEnumMemo {
			size = n + 1
		}
	}
	memo.json = make([][]byte, size)
	for n := range memo.json {
		memo.json[n], _ = e.appendEnum(nil, ed, protoreflect.EnumNumber(n))
	}
	return memo
}

// append writes number n as appendEnum does.
func (m *enumMemo) append(e *Encoder, b []byte, n protoreflect.EnumNumber) ([]byte, error) {
	if uint(n) < uint(len(m.json)) {
		return append(b, m.json[n]...), nil
	}
	return e.appendEnum(b, m.ed, n)
}
