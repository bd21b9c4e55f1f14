package jsonenc

import (
	"math"
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/wellknown"
)

// plan is how to write one message type.
type plan struct {
	desc      protoreflect.MessageDescriptor
	fields    []field
	wkt       wktWriter   // non-nil for a well-known type with its own form
	wktGo     wktGoWriter // wkt from the Go struct, if it can be read there
	supported bool
	gofast    *goStruct // direct access to the generated Go type, or nil
	// required: a message of this type can lack a required field
	// (wellknown.Required), so proto.CheckInitialized must look; for the
	// others it is skipped (on dynamic messages it walks every field).
	required bool
	size     sizeHint // how long this type's JSON has been
	// numIndex maps small field numbers to indexes in fields (-1: none).
	numIndex []int16
}

// field is how to write one field.
type field struct {
	fd       protoreflect.FieldDescriptor
	key      []byte // `,"name":`, with the name as the options say
	presence bool   // unset, it is null (or skipped), not its default
	inOneof  bool   // unset, it is never written (a real oneof member)
	list     bool
	mapField bool
	value    protoreflect.FieldDescriptor // the singular value: fd, or a map's value
	kind     protoreflect.Kind            // value's kind
	elem     *plan                        // the message type of value, if any
	// checkUTF8: a string field (not a map) whose value proto.Unmarshal
	// refuses if it is not UTF-8 (see enforceUTF8); AppendWire checks it.
	checkUTF8 bool
	enum      *enumMemo // the names of value's enum type, if any
	goKind    goKind    // read from the Go struct (gofast.go)
	goOffset  uintptr   // its offset in the Go struct
	// goElemType is the Go pointer type of the messages of a goMessage
	// or goMessageList field; elemGo says they are read from their
	// structs too (they are of elem's generated type).
	goElemType reflect.Type
	elemGo     bool
}

// maxFields is the most fields of a type the encoder compiles: its
// indexes fit the occurrences of AppendWire and numIndex (int16). A type
// with more is left to protojson.
const maxFields = math.MaxInt16

// plan returns the plan of md, building it (and the plans of the message
// types its fields hold) on first use.
func (e *Encoder) plan(md protoreflect.MessageDescriptor) *plan {
	if p, ok := e.plans.Load(md); ok {
		return p
	}
	building := map[protoreflect.MessageDescriptor]*plan{}
	p := e.build(md, building)
	// Support needs the whole graph: a recursive type is supported only
	// if every type it reaches is.
	for changed := true; changed; {
		changed = false
		for _, q := range building {
			for i := range q.fields {
				if el := q.fields[i].elem; el != nil && q.supported && !el.supported {
					q.supported, changed = false, true
				}
			}
		}
	}
	var req wellknown.Required
	for _, q := range building {
		q.required = req.CanLack(q.desc)
	}
	markGoElems(building)
	e.plans.Add(building, maxPlans)
	if got, ok := e.plans.Load(md); ok {
		return got
	}
	return p
}

func (e *Encoder) build(md protoreflect.MessageDescriptor, building map[protoreflect.MessageDescriptor]*plan) *plan {
	if p, ok := building[md]; ok {
		return p
	}
	if p, ok := e.plans.Load(md); ok {
		return p
	}
	p := &plan{desc: md, supported: true}
	building[md] = p
	if md.ExtensionRanges().Len() > 0 || wellknown.IsMessageSet(md) {
		p.supported = false
	}
	if w := wellKnownWriter(md.FullName()); w != nil {
		p.wkt = w
	}
	fds := md.Fields()
	if fds.Len() > maxFields {
		p.supported = false
	}
	p.fields = make([]field, fds.Len())
	for i := range fds.Len() {
		fd := fds.Get(i)
		name := fd.JSONName()
		if e.opts.UseProtoNames {
			name = fd.TextName()
		}
		key, _ := appendString([]byte{','}, name)
		f := field{
			fd:       fd,
			key:      append(key, ':'),
			presence: fd.HasPresence(),
			inOneof:  fd.ContainingOneof() != nil,
			list:     fd.IsList(),
			mapField: fd.IsMap(),
			value:    fd,
		}
		if f.mapField {
			f.value = fd.MapValue()
		}
		f.kind = f.value.Kind()
		f.checkUTF8 = f.kind == protoreflect.StringKind && !f.mapField && wellknown.EnforcesUTF8(f.value)
		if f.kind == protoreflect.EnumKind {
			f.enum = e.newEnumMemo(f.value.Enum())
		}
		if m := f.value.Message(); m != nil {
			f.elem = e.build(m, building)
		}
		p.fields[i] = f
	}
	p.gofast = findGoStruct(md, p.fields)
	if p.wkt != nil {
		p.wktGo = wellKnownGoWriter(md.FullName(), p)
	}
	p.numIndex = make([]int16, 64)
	for i := range p.numIndex {
		p.numIndex[i] = -1
	}
	for i := range p.fields {
		if n := int(p.fields[i].fd.Number()); n < len(p.numIndex) {
			p.numIndex[n] = int16(i)
		}
	}
	return p
}
