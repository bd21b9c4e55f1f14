// Package wellknown holds what the codecs (internal/jsondec,
// internal/jsonenc, internal/wirescan) and the query binder
// (internal/bind) all need to know about descriptors as protobuf-go sees
// them, said once: which well-known types have a JSON form of their own,
// which messages are MessageSets, which strings must be valid UTF-8, how
// FieldMask paths change case, the wire type of each kind, which types can
// lack a required field, and the grammar and range of Timestamp and
// Duration strings (time.go).
package wellknown

import (
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Type names a well-known type with a JSON form of its own.
type Type uint8

const (
	None Type = iota // not one: an ordinary JSON object
	Any
	Timestamp
	Duration
	Wrapper // BoolValue, Int32Value, … BytesValue
	Struct
	ListValue
	Value
	FieldMask
	Empty
)

// Of returns the well-known type named name, or None.
func Of(name protoreflect.FullName) Type {
	if name.Parent() != "google.protobuf" {
		return None
	}
	switch name.Name() {
	case "Any":
		return Any
	case "Timestamp":
		return Timestamp
	case "Duration":
		return Duration
	case "BoolValue", "Int32Value", "Int64Value", "UInt32Value", "UInt64Value",
		"FloatValue", "DoubleValue", "StringValue", "BytesValue":
		return Wrapper
	case "Struct":
		return Struct
	case "ListValue":
		return ListValue
	case "Value":
		return Value
	case "FieldMask":
		return FieldMask
	case "Empty":
		return Empty
	}
	return None
}

// IsMessageSet reports proto1's MessageSet wire format, which protojson
// refuses.
func IsMessageSet(md protoreflect.MessageDescriptor) bool {
	ms, ok := md.(interface{ IsMessageSet() bool })
	return ok && ms.IsMessageSet()
}

// CamelCase and SnakeCase are protobuf-go's conversions of FieldMask
// paths (its strs.JSONCamelCase and strs.JSONSnakeCase): CamelCase drops
// each '_' and upper-cases a lower-case ASCII letter after it; SnakeCase
// writes each upper-case ASCII letter as '_' and its lower case. (They
// build in a strings.Builder, which spares the copy string([]byte) makes.)
func CamelCase(s string) string {
	var b strings.Builder
	var wasUnderscore bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' {
			if wasUnderscore && 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			b.WriteByte(c)
		}
		wasUnderscore = c == '_'
	}
	return b.String()
}

// SnakeCase: see CamelCase.
func SnakeCase(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// EnforcesUTF8 reports whether protobuf-go requires string field fd to
// hold valid UTF-8: proto3 strings, and editions strings whose
// utf8_validation feature is VERIFY.
func EnforcesUTF8(fd protoreflect.FieldDescriptor) bool {
	if fd.Syntax() == protoreflect.Editions {
		if e, ok := fd.(interface{ EnforceUTF8() bool }); ok {
			return e.EnforceUTF8()
		}
	}
	return fd.Syntax() == protoreflect.Proto3
}

// WireType is the wire type of one unpacked value of kind k, as
// proto.Marshal writes it: varints, fixed32, fixed64, StartGroupType for a
// group, and BytesType for strings, bytes and messages. (protowire has the
// wire types but not this mapping.) A packed run of scalars is BytesType
// whatever k is.
func WireType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	case protoreflect.GroupKind:
		return protowire.StartGroupType
	}
	return protowire.VarintType // bool, enum and the varint integers
}

// Required answers whether a message of a type can lack a required field
// (proto2 required, editions LEGACY_REQUIRED): its type declares one, or a
// message type one of its fields holds (singular, repeated or as a map
// value) can, recursive types included. For any other type
// proto.CheckInitialized has nothing to find, and the codecs skip it.
//
// The zero value is ready to use. It remembers its answers, so asking for
// every type of a graph costs about one walk of it; it is not safe for
// concurrent use.
type Required struct {
	known map[protoreflect.MessageDescriptor]bool
}

// CanLack reports whether a message of type md can lack a required field.
func (r *Required) CanLack(md protoreflect.MessageDescriptor) bool {
	if v, ok := r.known[md]; ok {
		return v
	}
	if r.known == nil {
		r.known = make(map[protoreflect.MessageDescriptor]bool)
	}
	seen := make(map[protoreflect.MessageDescriptor]bool)
	if r.reaches(md, seen) {
		return true
	}
	// Nothing md reaches has a required field: nor does anything that
	// was seen on the way, since it all reaches less.
	for d := range seen {
		r.known[d] = false
	}
	return false
}

// reaches searches depth first for a required field from md. A type seen
// earlier in this search counts as false: that is final only when the
// whole search finds nothing, so only true answers are remembered here.
func (r *Required) reaches(md protoreflect.MessageDescriptor, seen map[protoreflect.MessageDescriptor]bool) bool {
	if v, ok := r.known[md]; ok {
		return v
	}
	if seen[md] {
		return false
	}
	seen[md] = true
	found := md.RequiredNumbers().Len() > 0
	fds := md.Fields()
	for i := 0; i < fds.Len() && !found; i++ {
		fd := fds.Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if m := fd.Message(); m != nil {
			found = r.reaches(m, seen)
		}
	}
	if found {
		r.known[md] = true
	}
	return found
}
