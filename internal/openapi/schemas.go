package openapi

import (
	"slices"
	"strconv"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// builder builds a document's schemas: one component per message and enum
// type, by full proto name, made when a route first refers to it.
type builder struct {
	opts      Options
	schemas   map[string]*Schema
	comments  map[protoreflect.Descriptor]docComment // see comment
	errorUsed bool                                   // an operation refers to the error response
}

func newBuilder(opts Options) *builder {
	return &builder{opts: opts, schemas: map[string]*Schema{}, comments: map[protoreflect.Descriptor]docComment{}}
}

// ref returns a reference to the component of a message or enum.
func ref(name protoreflect.FullName) *Schema {
	return &Schema{Ref: "#/components/schemas/" + string(name)}
}

// messageSchema returns the schema of a message of type md: a well-known
// type's inline schema, else a reference to its component.
func (b *builder) messageSchema(md protoreflect.MessageDescriptor) *Schema {
	if s := wellKnownSchema(md); s != nil {
		return s
	}
	name := string(md.FullName())
	if _, ok := b.schemas[name]; !ok {
		s := &Schema{Type: "object"}
		b.schemas[name] = s // before the fields: recursive types refer to it
		b.fillMessage(s, md)
	}
	return ref(md.FullName())
}

// fillMessage makes s the object schema of md: its fields as properties,
// in declaration order; required fields (proto2 required, and
// field_behavior REQUIRED when every field is written); each real oneof's
// members excluding one another (dependentSchemas), and named in x-oneof.
// Unknown fields are ignored by the gateway, so additionalProperties is
// left open.
func (b *builder) fillMessage(s *Schema, md protoreflect.MessageDescriptor) {
	s.Description = b.comment(md).text()
	fields := md.Fields()
	s.Properties = &Properties{}
	for i := range fields.Len() {
		fd := fields.Get(i)
		name := b.fieldName(fd)
		s.Properties.Add(name, b.fieldSchema(fd))
		if fd.Cardinality() == protoreflect.Required || (b.opts.JSON.EmitUnpopulated && slices.Contains(behaviors(fd), annotations.FieldBehavior_REQUIRED)) {
			s.Required = append(s.Required, name)
		}
	}
	oneofs := md.Oneofs()
	for i := range oneofs.Len() {
		od := oneofs.Get(i)
		if od.IsSynthetic() {
			continue
		}
		var members []string
		for j := range od.Fields().Len() {
			members = append(members, b.fieldName(od.Fields().Get(j)))
		}
		if s.Oneofs == nil {
			s.Oneofs = map[string][]string{}
		}
		s.Oneofs[string(od.Name())] = members
		if len(members) < 2 {
			continue
		}
		if s.DependentSchemas == nil {
			s.DependentSchemas = map[string]*Schema{}
		}
		for _, m := range members {
			var others []*Schema
			for _, o := range members {
				if o != m {
					others = append(others, &Schema{Required: []string{o}})
				}
			}
			not := others[0]
			if len(others) > 1 {
				not = &Schema{AnyOf: others}
			}
			s.DependentSchemas[m] = &Schema{Not: not}
		}
	}
}

// fieldName is the JSON name the gateway writes for fd.
func (b *builder) fieldName(fd protoreflect.FieldDescriptor) string {
	if b.opts.JSON.UseProtoNames {
		return string(fd.Name())
	}
	return fd.JSONName()
}

// fieldSchema returns the schema of a field as a property: its value's
// schema, null allowed for a singular message (the gateway writes null
// for one that is unset, and reads null as unset), with the field's
// comment, deprecation and field_behavior.
func (b *builder) fieldSchema(fd protoreflect.FieldDescriptor) *Schema {
	s := b.valueSchema(fd)
	if fd.Message() != nil && !fd.IsList() && !fd.IsMap() && s.Type != "null" && !isAnything(s) {
		s = &Schema{AnyOf: []*Schema{s, {Type: "null"}}}
	}
	desc := b.comment(fd).text()
	fb := behaviors(fd)
	for _, note := range []struct {
		on   bool
		text string
	}{
		{slices.Contains(fb, annotations.FieldBehavior_IMMUTABLE), "Immutable: set when the resource is created, not changed afterwards."},
		{slices.Contains(fb, annotations.FieldBehavior_IDENTIFIER), "Identifier: the resource's name."},
		// Without EmitUnpopulated a response leaves out a required field
		// that has its default value: required is a note, not a keyword.
		{slices.Contains(fb, annotations.FieldBehavior_REQUIRED) && !b.opts.JSON.EmitUnpopulated, "Required."},
	} {
		if !note.on {
			continue
		}
		if desc != "" {
			desc += "\n\n"
		}
		desc += note.text
	}
	readOnly := slices.Contains(fb, annotations.FieldBehavior_OUTPUT_ONLY)
	writeOnly := slices.Contains(fb, annotations.FieldBehavior_INPUT_ONLY)
	deprecated := isDeprecated(fd)
	if s.Ref != "" && (readOnly || writeOnly || deprecated) {
		// Tools read the keywords beside a $ref poorly.
		s = &Schema{AllOf: []*Schema{s}}
	}
	if desc != "" {
		s.Description = desc // every schema here is the field's own
	}
	s.ReadOnly, s.WriteOnly, s.Deprecated = readOnly, writeOnly, deprecated
	return s
}

// valueSchema returns the schema of the value of a field: a list, a map,
// or one value.
func (b *builder) valueSchema(fd protoreflect.FieldDescriptor) *Schema {
	switch {
	case fd.IsMap():
		s := &Schema{Type: "object", AdditionalProperties: b.singularSchema(fd.MapValue())}
		switch fd.MapKey().Kind() {
		case protoreflect.BoolKind:
			s.PropertyNames = &Schema{Enum: []any{"true", "false"}}
		case protoreflect.StringKind:
		case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			s.PropertyNames = &Schema{Pattern: "^[0-9]+$"}
		default:
			s.PropertyNames = &Schema{Pattern: "^-?[0-9]+$"}
		}
		return s
	case fd.IsList():
		return &Schema{Type: "array", Items: b.singularSchema(fd)}
	}
	return b.singularSchema(fd)
}

// singularSchema returns the schema of one value of fd's kind.
func (b *builder) singularSchema(fd protoreflect.FieldDescriptor) *Schema {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return b.messageSchema(fd.Message())
	case protoreflect.EnumKind:
		return b.enumSchema(fd.Enum())
	}
	return scalarSchema(fd.Kind())
}

// scalarSchema is the schema of a scalar kind as protojson writes it:
// 64-bit integers as strings, bytes as base64.
func scalarSchema(k protoreflect.Kind) *Schema {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return &Schema{Type: "integer", Format: "int32"}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return &Schema{Type: "integer", Format: "int64", Minimum: ptr[int64](0), Maximum: ptr[int64](4294967295)}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return &Schema{Type: "string", Format: "int64"}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return &Schema{Type: "string", Format: "uint64"}
	case protoreflect.FloatKind:
		return &Schema{Type: "number", Format: "float"}
	case protoreflect.DoubleKind:
		return &Schema{Type: "number", Format: "double"}
	case protoreflect.BoolKind:
		return &Schema{Type: "boolean"}
	case protoreflect.BytesKind:
		return &Schema{Type: "string", ContentEncoding: "base64"}
	}
	return &Schema{Type: "string"}
}

// enumSchema returns the schema of an enum: a reference to its component,
// its value names (or numbers, with UseEnumNumbers), each value's comment
// in the description. google.protobuf.NullValue is null.
func (b *builder) enumSchema(ed protoreflect.EnumDescriptor) *Schema {
	if ed.FullName() == "google.protobuf.NullValue" {
		return &Schema{Type: "null"}
	}
	name := string(ed.FullName())
	if _, ok := b.schemas[name]; ok {
		return ref(ed.FullName())
	}
	s := &Schema{Type: "string"}
	if b.opts.JSON.UseEnumNumbers {
		s.Type, s.Format = "integer", "int32"
	}
	desc := b.comment(ed).text()
	seen := map[protoreflect.EnumNumber]bool{}
	values := ed.Values()
	for i := range values.Len() {
		v := values.Get(i)
		if seen[v.Number()] {
			continue // an alias: protojson writes the first name
		}
		seen[v.Number()] = true
		if b.opts.JSON.UseEnumNumbers {
			s.Enum = append(s.Enum, int32(v.Number()))
		} else {
			s.Enum = append(s.Enum, string(v.Name()))
		}
		if c := b.comment(v).text(); c != "" {
			if desc != "" {
				desc += "\n"
			}
			desc += "\n- " + string(v.Name()) + " (" + strconv.Itoa(int(v.Number())) + "): " + c
		}
	}
	s.Description = desc
	b.schemas[name] = s
	return ref(ed.FullName())
}

// wellKnownSchema is the inline schema of a well-known type with a JSON
// form of its own, or nil.
func wellKnownSchema(md protoreflect.MessageDescriptor) *Schema {
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		return &Schema{Type: "string", Format: "date-time"}
	case "google.protobuf.Duration":
		return &Schema{Type: "string", Pattern: `^-?[0-9]+(\.[0-9]{1,9})?s$`}
	case "google.protobuf.FieldMask":
		return &Schema{Type: "string", Description: "Comma-separated field paths."}
	case "google.protobuf.Struct":
		return &Schema{Type: "object", AdditionalProperties: &Schema{}}
	case "google.protobuf.Value":
		return &Schema{}
	case "google.protobuf.ListValue":
		return &Schema{Type: "array", Items: &Schema{}}
	case "google.protobuf.Empty":
		return &Schema{Type: "object"}
	case "google.protobuf.Any":
		p := &Properties{}
		p.Add("@type", &Schema{Type: "string"})
		return &Schema{Type: "object", Properties: p, Required: []string{"@type"}, AdditionalProperties: &Schema{}}
	case "google.protobuf.DoubleValue":
		return scalarSchema(protoreflect.DoubleKind)
	case "google.protobuf.FloatValue":
		return scalarSchema(protoreflect.FloatKind)
	case "google.protobuf.Int64Value":
		return scalarSchema(protoreflect.Int64Kind)
	case "google.protobuf.UInt64Value":
		return scalarSchema(protoreflect.Uint64Kind)
	case "google.protobuf.Int32Value":
		return scalarSchema(protoreflect.Int32Kind)
	case "google.protobuf.UInt32Value":
		return scalarSchema(protoreflect.Uint32Kind)
	case "google.protobuf.BoolValue":
		return scalarSchema(protoreflect.BoolKind)
	case "google.protobuf.StringValue":
		return scalarSchema(protoreflect.StringKind)
	case "google.protobuf.BytesValue":
		return scalarSchema(protoreflect.BytesKind)
	}
	return nil
}

// isAnything reports whether s accepts any value, null included.
func isAnything(s *Schema) bool {
	return s.Ref == "" && s.Type == "" && s.AnyOf == nil && s.AllOf == nil
}

// behaviors returns the google.api.field_behavior of fd.
func behaviors(fd protoreflect.FieldDescriptor) []annotations.FieldBehavior {
	opts, ok := fd.Options().(*descriptorpb.FieldOptions)
	if !ok || opts == nil || !proto.HasExtension(opts, annotations.E_FieldBehavior) {
		return nil
	}
	fb, _ := proto.GetExtension(opts, annotations.E_FieldBehavior).([]annotations.FieldBehavior)
	return fb
}

func isDeprecated(fd protoreflect.FieldDescriptor) bool {
	opts, ok := fd.Options().(*descriptorpb.FieldOptions)
	return ok && opts.GetDeprecated()
}

func ptr[T any](v T) *T { return &v }
