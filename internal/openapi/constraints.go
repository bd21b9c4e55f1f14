package openapi

import (
	"encoding/json"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// A SchemaHook says in JSON Schema what rules the descriptors carry ask of
// fields and messages (validateprotorest's: protovalidate's buf.validate
// rules). Each method returns nil for none. It is called while a document
// is built, once per field and message.
type SchemaHook interface {
	FieldConstraints(fd protoreflect.FieldDescriptor) *Constraints
	MessageConstraints(md protoreflect.MessageDescriptor) *Constraints
}

// Constraints are what a field's or a message's rules ask, as JSON Schema
// keywords where one says the rule, else as Rules (x-buf-validate). The
// keywords must fit the schema of the field's JSON value: the hook knows
// the field (a 64-bit integer is a JSON string: its bounds are Rules).
type Constraints struct {
	MinLength, MaxLength *uint64
	Pattern, Format      string
	Minimum, Maximum     json.Number
	ExclusiveMinimum     json.Number
	ExclusiveMaximum     json.Number
	MinItems, MaxItems   *uint64
	UniqueItems          bool
	MinProperties        *uint64
	MaxProperties        *uint64
	// Enum lists the values allowed; Const, when not nil, is the only
	// one. An enum's values are protoreflect.EnumNumber, written as the
	// gateway writes them (names, or numbers with UseEnumNumbers).
	Enum  []any
	Const any
	// Required lists the field in its message's required properties
	// (when the gateway writes every field: else it is a note, as
	// field_behavior REQUIRED is).
	Required bool
	// AllowZero says the field's zero value is allowed besides: the
	// keywords do not apply to it.
	AllowZero bool
	// Items, Keys and Values constrain a list's items, a map's keys and
	// its values.
	Items, Keys, Values *Constraints
	// RequiredOneofs are a message's oneofs one of whose members must be
	// set.
	RequiredOneofs []protoreflect.OneofDescriptor
	// Rules are the rules no keyword says.
	Rules []SchemaRule
}

// constrainField returns s, the schema of fd's value, with fd's
// constraints: s when there are none, else a copy (s may be shared), or
// an allOf around a reference.
func (b *builder) constrainField(s *Schema, fd protoreflect.FieldDescriptor) *Schema {
	c := b.fieldConstraints(fd)
	if c == nil {
		return s
	}
	switch {
	case fd.IsMap():
		s = b.schema(*s)
		s.AdditionalProperties = b.constrain(s.AdditionalProperties, c.Values, fd.MapValue().Enum())
		if c.Keys != nil && s.PropertyNames == nil {
			s.PropertyNames = b.constrain(stringSchema, c.Keys, nil)
		}
		return b.constrain(s, &Constraints{MinProperties: c.MinProperties, MaxProperties: c.MaxProperties, Rules: c.Rules}, nil)
	case fd.IsList():
		s = b.schema(*s)
		s.Items = b.constrain(s.Items, c.Items, fd.Enum())
		return b.constrain(s, &Constraints{MinItems: c.MinItems, MaxItems: c.MaxItems, UniqueItems: c.UniqueItems, Rules: c.Rules}, nil)
	}
	return b.constrain(s, c, fd.Enum())
}

// constrain returns s with c's keywords (ed, when not nil, names the
// values of an enum's Enum and Const): s itself when c says nothing. A
// reference gets them beside it in an allOf; AllowZero makes the result
// an anyOf of the constrained schema and the zero value.
func (b *builder) constrain(s *Schema, c *Constraints, ed protoreflect.EnumDescriptor) *Schema {
	if c == nil || s == nil || c.empty() {
		return s
	}
	var out *Schema
	if s.Ref != "" || s.AnyOf != nil {
		out = b.schema(Schema{AllOf: []*Schema{s}})
	} else {
		out = b.schema(*s)
	}
	if c.MinLength != nil {
		out.MinLength = c.MinLength
	}
	if c.MaxLength != nil {
		out.MaxLength = c.MaxLength
	}
	if c.Pattern != "" {
		out.Pattern = c.Pattern
	}
	if c.Format != "" {
		out.Format = c.Format
	}
	out.Minimum = orNumber(c.Minimum, out.Minimum)
	out.Maximum = orNumber(c.Maximum, out.Maximum)
	out.ExclusiveMinimum = orNumber(c.ExclusiveMinimum, out.ExclusiveMinimum)
	out.ExclusiveMaximum = orNumber(c.ExclusiveMaximum, out.ExclusiveMaximum)
	out.MinItems, out.MaxItems = orUint(c.MinItems, out.MinItems), orUint(c.MaxItems, out.MaxItems)
	out.MinProperties, out.MaxProperties = orUint(c.MinProperties, out.MinProperties), orUint(c.MaxProperties, out.MaxProperties)
	out.UniqueItems = out.UniqueItems || c.UniqueItems
	if c.Enum != nil {
		out.Enum = make([]any, len(c.Enum))
		for i, v := range c.Enum {
			out.Enum[i] = b.enumValue(v, ed)
		}
	}
	if c.Const != nil {
		out.Const = b.enumValue(c.Const, ed)
	}
	if c.Rules != nil {
		out.Rules = append(out.Rules[:len(out.Rules):len(out.Rules)], c.Rules...)
	}
	if !c.AllowZero || c.keywordsOnlyRules() {
		return out
	}
	// The rules do not apply to the zero value: the rules stay beside.
	rules := out.Rules
	out.Rules = nil
	zero := b.schema(Schema{Const: zeroValue(s, ed, b.opts.JSON.UseEnumNumbers)})
	return b.schema(Schema{AnyOf: []*Schema{zero, out}, Rules: rules})
}

// enumValue is v as the gateway writes it: an enum's number as its name
// (or number, with UseEnumNumbers), anything else as it is.
func (b *builder) enumValue(v any, ed protoreflect.EnumDescriptor) any {
	n, ok := v.(protoreflect.EnumNumber)
	if !ok {
		return v
	}
	if ed != nil && !b.opts.JSON.UseEnumNumbers {
		if ev := ed.Values().ByNumber(n); ev != nil {
			return string(ev.Name())
		}
	}
	return int32(n)
}

// zeroValue is the JSON of the zero value of the schema s (of an enum
// ed's, when not nil).
func zeroValue(s *Schema, ed protoreflect.EnumDescriptor, numbers bool) any {
	switch {
	case ed != nil && !numbers && ed.Values().Len() > 0:
		return string(ed.Values().Get(0).Name())
	case ed != nil:
		return int32(0)
	}
	switch s.Type {
	case "integer", "number":
		return json.Number("0")
	case "boolean":
		return false
	}
	return ""
}

// empty reports whether c says nothing of a value.
func (c *Constraints) empty() bool {
	return c.keywordsOnlyRules() && c.Rules == nil
}

// keywordsOnlyRules reports whether c has no keyword (Rules aside).
func (c *Constraints) keywordsOnlyRules() bool {
	return c.MinLength == nil && c.MaxLength == nil && c.Pattern == "" && c.Format == "" &&
		c.Minimum == "" && c.Maximum == "" && c.ExclusiveMinimum == "" && c.ExclusiveMaximum == "" &&
		c.MinItems == nil && c.MaxItems == nil && !c.UniqueItems && c.MinProperties == nil && c.MaxProperties == nil &&
		c.Enum == nil && c.Const == nil
}

func orNumber(v, old json.Number) json.Number {
	if v != "" {
		return v
	}
	return old
}

func orUint(v, old *uint64) *uint64 {
	if v != nil {
		return v
	}
	return old
}

// constrainMessage adds md's constraints to s, its object schema: a
// required oneof as an anyOf of its members each required, the rules no
// keyword says.
func (b *builder) constrainMessage(s *Schema, md protoreflect.MessageDescriptor) {
	if b.opts.Schemas == nil {
		return
	}
	c := b.opts.Schemas.MessageConstraints(md)
	if c == nil {
		return
	}
	s.Rules = append(s.Rules, c.Rules...)
	for _, od := range c.RequiredOneofs {
		members := od.Fields()
		any := make([]*Schema, members.Len())
		for i := range members.Len() {
			any[i] = b.schema(Schema{Required: []string{b.fieldName(members.Get(i))}})
		}
		if s.AnyOf == nil {
			s.AnyOf = any
		} else {
			s.AllOf = append(s.AllOf, b.schema(Schema{AnyOf: any}))
		}
	}
}

// requiredByRule reports whether fd's rules require it.
func (b *builder) requiredByRule(fd protoreflect.FieldDescriptor) bool {
	c := b.fieldConstraints(fd)
	return c != nil && c.Required
}

// fieldConstraints are fd's constraints, asked of the hook once per
// build: nil without a hook or without rules.
func (b *builder) fieldConstraints(fd protoreflect.FieldDescriptor) *Constraints {
	if b.opts.Schemas == nil {
		return nil
	}
	c, ok := b.constraints[fd]
	if !ok {
		c = b.opts.Schemas.FieldConstraints(fd)
		if b.constraints == nil {
			b.constraints = map[protoreflect.FieldDescriptor]*Constraints{}
		}
		b.constraints[fd] = c
	}
	return c
}
