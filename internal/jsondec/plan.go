package jsondec

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/gostruct"
	"github.com/protorest/protorest/internal/wellknown"
)

// plan is how to read one message type.
type plan struct {
	desc   protoreflect.MessageDescriptor
	wkt    wkt // the well-known type with a JSON form of its own, if any
	fields []field
	// byName finds a field by its JSON name or, failing that, its proto
	// name, as protojson looks names up.
	byName map[string]int
	// jsonNames are the fields' JSON names, by index: input written in
	// field order (as encoders write it) is matched by comparing the name
	// after the last one found, without hashing.
	jsonNames []string
	// fallback: protojson reads this type (extensions, MessageSets, Any).
	fallback bool
	// required: a message of this type can lack a required field
	// (wellknown.Required), so proto.CheckInitialized must look.
	required bool
	// layout is the generated Go type's, whose fields are written
	// directly (see field.goKind); nil for types that have none.
	layout *gostruct.Layout
}

// field is how to read one field.
type field struct {
	fd    protoreflect.FieldDescriptor
	value protoreflect.FieldDescriptor // fd, or a map's value field
	key   protoreflect.Kind            // a map's key kind
	kind  protoreflect.Kind            // value's kind
	// packed: a list written in one length-delimited record.
	packed bool
	list   bool
	isMap  bool
	oneof  int // the index of its oneof, or -1
	// nullable: JSON null is a value (google.protobuf.Value, NullValue),
	// not "leave the field unset".
	nullable bool
	elem     *plan            // the message type of value, if any
	enum     map[string]int32 // the enum type's numbers by name, if any
	// goKind and goIndex say where the field lives in the generated Go
	// struct, when the message is of the plan's layout type.
	goKind  gostruct.Kind
	goIndex int
}

// plan returns the plan of md, building it and the plans of the types it
// holds on first use.
func (d *Decoder) plan(md protoreflect.MessageDescriptor) *plan {
	if p, ok := d.plans.Load(md); ok {
		return p
	}
	building := map[protoreflect.MessageDescriptor]*plan{}
	p := d.build(md, building)
	var req wellknown.Required
	for _, q := range building {
		q.required = req.CanLack(q.desc)
	}
	d.plans.Add(building, maxPlans)
	if got, ok := d.plans.Load(md); ok {
		return got
	}
	return p
}

func (d *Decoder) build(md protoreflect.MessageDescriptor, building map[protoreflect.MessageDescriptor]*plan) *plan {
	if p, ok := building[md]; ok {
		return p
	}
	if p, ok := d.plans.Load(md); ok {
		return p
	}
	p := &plan{desc: md, wkt: wellknown.Of(md.FullName())}
	building[md] = p
	p.fallback = p.wkt == wktAny || md.ExtensionRanges().Len() > 0 || wellknown.IsMessageSet(md)
	fds := md.Fields()
	p.fields = make([]field, fds.Len())
	p.byName = make(map[string]int, 2*fds.Len())
	for i := range fds.Len() {
		fd := fds.Get(i)
		f := field{fd: fd, value: fd, list: fd.IsList(), isMap: fd.IsMap(), oneof: -1}
		if od := fd.ContainingOneof(); od != nil {
			f.oneof = od.Index()
		}
		if f.isMap {
			f.key, f.value = fd.MapKey().Kind(), fd.MapValue()
		}
		f.kind, f.packed = f.value.Kind(), fd.IsPacked()
		if fd.Kind() == protoreflect.GroupKind {
			// A group's text name is its type's name; protojson has it.
			p.fallback = true
		}
		if m := f.value.Message(); m != nil {
			f.elem = d.build(m, building)
			f.nullable = m.FullName() == "google.protobuf.Value"
		}
		if e := f.value.Enum(); e != nil {
			f.enum = enumNumbers(e)
			f.nullable = e.FullName() == "google.protobuf.NullValue"
		}
		p.fields[i] = f
	}
	if p.layout = gostruct.Find(md); p.layout != nil {
		for i := range p.fields {
			if gf, ok := p.layout.Fields[p.fields[i].fd.Number()]; ok {
				p.fields[i].goKind, p.fields[i].goIndex = gf.Kind, gf.Index
			}
		}
	}
	// The JSON name wins over another field's proto name.
	for i := range p.fields {
		p.byName[string(p.fields[i].fd.Name())] = i
	}
	p.jsonNames = make([]string, len(p.fields))
	for i := range p.fields {
		p.jsonNames[i] = p.fields[i].fd.JSONName()
		p.byName[p.jsonNames[i]] = i
	}
	return p
}

func enumNumbers(ed protoreflect.EnumDescriptor) map[string]int32 {
	vals := ed.Values()
	m := make(map[string]int32, vals.Len())
	for i := range vals.Len() {
		m[string(vals.Get(i).Name())] = int32(vals.Get(i).Number())
	}
	return m
}

// lookup finds the field named key; next is the index after the field
// found last.
func (p *plan) lookup(key []byte, next int) (int, bool) {
	if next < len(p.jsonNames) && p.jsonNames[next] == string(key) {
		return next, true
	}
	i, ok := p.byName[string(key)]
	return i, ok
}
