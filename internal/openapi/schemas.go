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
//
// A schema may stand at many places of the document: a reference to a
// component, a scalar's or a well-known type's schema is made once and
// shared. So the builder changes only a schema it has just made for the
// place it fills (fieldSchema copies one before giving it a description).
//
// The operations' parts are shared alike: the responses of rules that
// answer alike, the bodies of rules that read alike, a service's tags.
type builder struct {
	opts    Options
	schemas map[string]*Schema
	refs    map[protoreflect.FullName]*Schema // see ref
	// comments are the comments of the files in commentsRead, which says
	// whether a file has source info of its own; else its descriptors'
	// comments are borrowed, by full name (Options.Comments). lastFile is
	// the file of the last descriptor comment was asked for.
	comments     map[protoreflect.Descriptor]docComment
	commentsRead map[protoreflect.FileDescriptor]bool
	borrowed     map[protoreflect.FullName]docComment
	lastFile     protoreflect.FileDescriptor
	lastOwn      bool

	responseSets    map[responsesKey]map[string]*Response // see responses
	bodies          map[bodyKey]*RequestBody              // see requestBody
	tagLists        map[protoreflect.FullName][]string    // see tags
	queries         map[string][]*Parameter               // see queryParameters
	key             []byte                                // a map key being written
	errorRef        *Response                             // the rules' error response, once one refers to it
	customResponses map[string]*Response                  // the custom routes' responses

	constraints map[protoreflect.FieldDescriptor]*Constraints // see fieldConstraints

	// The model's most numerous objects, taken from slabs (see slab).
	parameters slab[Parameter]
	schemaSlab slab[Schema]
}

// schema returns a new schema s.
func (b *builder) schema(s Schema) *Schema {
	p := b.schemaSlab.new()
	*p = s
	return p
}

func newBuilder(opts Options, borrowed map[protoreflect.FullName]docComment) *builder {
	return &builder{
		opts:         opts,
		borrowed:     borrowed,
		schemas:      map[string]*Schema{},
		refs:         map[protoreflect.FullName]*Schema{},
		comments:     map[protoreflect.Descriptor]docComment{},
		commentsRead: map[protoreflect.FileDescriptor]bool{},
		responseSets: map[responsesKey]map[string]*Response{},
		bodies:       map[bodyKey]*RequestBody{},
		tagLists:     map[protoreflect.FullName][]string{},
		queries:      map[string][]*Parameter{},
	}
}

// ref returns the reference to the component of a message or enum, one
// schema for every place that refers to it.
func (b *builder) ref(name protoreflect.FullName) *Schema {
	s, ok := b.refs[name]
	if !ok {
		s = b.schema(Schema{Ref: "#/components/schemas/" + string(name)})
		b.refs[name] = s
	}
	return s
}

// messageSchema returns the schema of a message of type md: a well-known
// type's inline schema, else a reference to its component.
func (b *builder) messageSchema(md protoreflect.MessageDescriptor) *Schema {
	if s := wellKnownSchema(md); s != nil {
		return s
	}
	name := string(md.FullName())
	if _, ok := b.schemas[name]; !ok {
		s := b.schema(Schema{Type: "object"})
		b.schemas[name] = s // before the fields: recursive types refer to it
		b.fillMessage(s, md)
	}
	return b.ref(md.FullName())
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
	s.Properties = &Properties{Names: make([]string, 0, fields.Len()), Schemas: make([]*Schema, 0, fields.Len())}
	for i := range fields.Len() {
		fd := fields.Get(i)
		name := b.fieldName(fd)
		s.Properties.Add(name, b.fieldSchema(fd))
		if fd.Cardinality() == protoreflect.Required || (b.opts.JSON.EmitUnpopulated && b.required(fd)) {
			s.Required = append(s.Required, name)
		}
	}
	b.constrainMessage(s, md)
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
					others = append(others, b.schema(Schema{Required: []string{o}}))
				}
			}
			not := others[0]
			if len(others) > 1 {
				not = b.schema(Schema{AnyOf: others})
			}
			s.DependentSchemas[m] = b.schema(Schema{Not: not})
		}
	}
}

// required reports whether fd is required by its field_behavior or its
// rules (besides proto2's required).
func (b *builder) required(fd protoreflect.FieldDescriptor) bool {
	return slices.Contains(behaviors(fd), annotations.FieldBehavior_REQUIRED) || b.requiredByRule(fd)
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
	own := fd.IsList() || fd.IsMap() // valueSchema made s for fd; else s may be shared
	if c := b.constrainField(s, fd); c != s {
		s, own = c, true
	}
	if fd.Message() != nil && !fd.IsList() && !fd.IsMap() && s.Type != "null" && !isAnything(s) {
		s = b.schema(Schema{AnyOf: []*Schema{s, nullSchema}})
		own = true
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
		{b.required(fd) && !b.opts.JSON.EmitUnpopulated, "Required."},
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
	if desc == "" && !readOnly && !writeOnly && !deprecated {
		return s
	}
	if s.Ref != "" && (readOnly || writeOnly || deprecated) {
		// Tools read the keywords beside a $ref poorly.
		s = b.schema(Schema{AllOf: []*Schema{s}})
	} else if !own {
		s = b.schema(*s) // shared: the field's keywords go on a copy
	}
	if desc != "" {
		s.Description = desc
	}
	s.ReadOnly, s.WriteOnly, s.Deprecated = readOnly, writeOnly, deprecated
	return s
}

// valueSchema returns the schema of the value of a field: a list, a map,
// or one value.
func (b *builder) valueSchema(fd protoreflect.FieldDescriptor) *Schema {
	switch {
	case fd.IsMap():
		s := b.schema(Schema{Type: "object", AdditionalProperties: b.singularSchema(fd.MapValue())})
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
		return b.schema(Schema{Type: "array", Items: b.singularSchema(fd)})
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
// 64-bit integers as strings, bytes as base64. It is shared: see builder.
func scalarSchema(k protoreflect.Kind) *Schema {
	if int(k) < len(scalarSchemas) && scalarSchemas[k] != nil {
		return scalarSchemas[k]
	}
	return stringSchema
}

var (
	stringSchema  = &Schema{Type: "string"}
	nullSchema    = &Schema{Type: "null"}
	scalarSchemas = [...]*Schema{
		protoreflect.Int32Kind:    {Type: "integer", Format: "int32"},
		protoreflect.Sint32Kind:   {Type: "integer", Format: "int32"},
		protoreflect.Sfixed32Kind: {Type: "integer", Format: "int32"},
		protoreflect.Uint32Kind:   {Type: "integer", Format: "int64", Minimum: "0", Maximum: "4294967295"},
		protoreflect.Fixed32Kind:  {Type: "integer", Format: "int64", Minimum: "0", Maximum: "4294967295"},
		protoreflect.Int64Kind:    {Type: "string", Format: "int64"},
		protoreflect.Sint64Kind:   {Type: "string", Format: "int64"},
		protoreflect.Sfixed64Kind: {Type: "string", Format: "int64"},
		protoreflect.Uint64Kind:   {Type: "string", Format: "uint64"},
		protoreflect.Fixed64Kind:  {Type: "string", Format: "uint64"},
		protoreflect.FloatKind:    {Type: "number", Format: "float"},
		protoreflect.DoubleKind:   {Type: "number", Format: "double"},
		protoreflect.BoolKind:     {Type: "boolean"},
		protoreflect.BytesKind:    {Type: "string", ContentEncoding: "base64"},
	}
)

// enumSchema returns the schema of an enum: a reference to its component,
// its value names (or numbers, with UseEnumNumbers), each value's comment
// in the description. google.protobuf.NullValue is null.
func (b *builder) enumSchema(ed protoreflect.EnumDescriptor) *Schema {
	if ed.FullName() == "google.protobuf.NullValue" {
		return nullSchema
	}
	name := string(ed.FullName())
	if _, ok := b.schemas[name]; ok {
		return b.ref(ed.FullName())
	}
	s := b.schema(Schema{Type: "string"})
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
	return b.ref(ed.FullName())
}

// wellKnownSchema is the inline schema of a well-known type with a JSON
// form of its own, or nil. It is shared: see builder.
func wellKnownSchema(md protoreflect.MessageDescriptor) *Schema {
	return wellKnownSchemas[md.FullName()]
}

var wellKnownSchemas = map[protoreflect.FullName]*Schema{
	"google.protobuf.Timestamp":   {Type: "string", Format: "date-time"},
	"google.protobuf.Duration":    {Type: "string", Pattern: `^-?[0-9]+(\.[0-9]{1,9})?s$`},
	"google.protobuf.FieldMask":   {Type: "string", Description: "Comma-separated field paths."},
	"google.protobuf.Struct":      {Type: "object", AdditionalProperties: &Schema{}},
	"google.protobuf.Value":       {},
	"google.protobuf.ListValue":   {Type: "array", Items: &Schema{}},
	"google.protobuf.Empty":       {Type: "object"},
	"google.protobuf.Any":         {Type: "object", Properties: &Properties{Names: []string{"@type"}, Schemas: []*Schema{stringSchema}}, Required: []string{"@type"}, AdditionalProperties: &Schema{}},
	"google.protobuf.DoubleValue": scalarSchema(protoreflect.DoubleKind),
	"google.protobuf.FloatValue":  scalarSchema(protoreflect.FloatKind),
	"google.protobuf.Int64Value":  scalarSchema(protoreflect.Int64Kind),
	"google.protobuf.UInt64Value": scalarSchema(protoreflect.Uint64Kind),
	"google.protobuf.Int32Value":  scalarSchema(protoreflect.Int32Kind),
	"google.protobuf.UInt32Value": scalarSchema(protoreflect.Uint32Kind),
	"google.protobuf.BoolValue":   scalarSchema(protoreflect.BoolKind),
	"google.protobuf.StringValue": stringSchema,
	"google.protobuf.BytesValue":  scalarSchema(protoreflect.BytesKind),
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
