package bind

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/gostruct"
	"github.com/protorest/protorest/internal/wellknown"
)

// convKind says how a converter turns a string into a field value.
type convKind uint8

const (
	convInt32 convKind = iota + 1
	convInt64
	convUint32
	convUint64
	convFloat
	convDouble
	convBool
	convString
	convBytes
	convEnum
	convTimestamp // google.protobuf.Timestamp
	convDuration  // google.protobuf.Duration
	convFieldMask // google.protobuf.FieldMask
	convWrapper   // google.protobuf.*Value wrappers
	convValue     // google.protobuf.Value, set as string_value
	convEmpty     // google.protobuf.Empty
)

// A converter turns path and query strings into values of one leaf field.
// It is built at registration; its methods do no descriptor lookups.
type converter struct {
	kind convKind
	fd   protoreflect.FieldDescriptor // the leaf field
	list bool                         // fd is repeated: values are appended

	// expect is the problem reported for a malformed value, outOfRange
	// the one for a well-formed number that does not fit.
	expect, outOfRange string

	enum  *enumValues                     // convEnum
	sub   [2]protoreflect.FieldDescriptor // the WKT's own fields (see newConverter)
	inner *converter                      // convWrapper: the wrapped value's converter

	// direct and goIndex place a scalar field without presence in its
	// generated Go struct, which set writes without protoreflect's
	// conversions (two allocations a value).
	direct  *gostruct.Layout
	goIndex int
}

// enumValues is an enum's declared values, for conversion without
// descriptor lookups.
type enumValues struct {
	names   nameTable[protoreflect.EnumNumber]
	numbers []protoreflect.EnumNumber // sorted, deduplicated
}

// Full names of the well-known types with a string form.
const (
	wktTimestamp = "google.protobuf.Timestamp"
	wktDuration  = "google.protobuf.Duration"
	wktFieldMask = "google.protobuf.FieldMask"
	wktValue     = "google.protobuf.Value"
	wktEmpty     = "google.protobuf.Empty"
	wktStruct    = "google.protobuf.Struct"
	wktListValue = "google.protobuf.ListValue"
	wktAny       = "google.protobuf.Any"
)

// isWrapper reports whether name is one of the wrappers.proto messages.
func isWrapper(name protoreflect.FullName) bool {
	switch name {
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue",
		"google.protobuf.Int64Value", "google.protobuf.UInt64Value",
		"google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue",
		"google.protobuf.BytesValue":
		return true
	}
	return false
}

// hasStringForm reports whether md is a well-known type that newConverter
// sets from a string. Such messages are leaves: a field path never
// descends into them.
func hasStringForm(md protoreflect.MessageDescriptor) bool {
	switch n := md.FullName(); n {
	case wktTimestamp, wktDuration, wktFieldMask, wktValue, wktEmpty:
		return true
	default:
		return isWrapper(n)
	}
}

// newConverter returns the converter for leaf field fd. When fd cannot be
// set from a string it returns nil and a description of the field, such
// as "map field" or "message field", and a detail (possibly empty) that
// says why.
func newConverter(fd protoreflect.FieldDescriptor) (c *converter, what, detail string) {
	if fd.IsMap() {
		return nil, "map field", ""
	}
	c = &converter{fd: fd, list: fd.IsList()}
	c.direct, c.goIndex = gostruct.ScalarField(fd)
	kindName := fd.Kind().String()
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		c.kind = convInt32
		c.expect = "expected an integer (" + kindName + ")"
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		c.kind = convInt64
		c.expect = "expected an integer (" + kindName + ")"
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		c.kind = convUint32
		c.expect = "expected a non-negative integer (" + kindName + ")"
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		c.kind = convUint64
		c.expect = "expected a non-negative integer (" + kindName + ")"
	case protoreflect.FloatKind:
		c.kind = convFloat
		c.expect = `expected a number (float), "NaN", "Infinity" or "-Infinity"`
	case protoreflect.DoubleKind:
		c.kind = convDouble
		c.expect = `expected a number (double), "NaN", "Infinity" or "-Infinity"`
	case protoreflect.BoolKind:
		c.kind = convBool
		c.expect = "expected a boolean (true, false, 1, 0, t, f)"
	case protoreflect.StringKind:
		c.kind = convString
		c.expect = "not valid UTF-8"
	case protoreflect.BytesKind:
		c.kind = convBytes
		c.expect = "expected base64 (standard or URL alphabet, padding optional)"
	case protoreflect.EnumKind:
		c.kind = convEnum
		c.enum = newEnumValues(fd.Enum())
		c.expect = "expected a value name or a declared number of enum " + string(fd.Enum().FullName())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return newMessageConverter(c)
	default:
		return nil, "field of kind " + kindName, ""
	}
	c.outOfRange = "out of range for " + kindName
	return c, "", ""
}

// newMessageConverter completes c for a message-typed leaf.
func newMessageConverter(c *converter) (*converter, string, string) {
	md := c.fd.Message()
	name := md.FullName()
	if c.list {
		return nil, "repeated message field", "its elements are " + string(name) + " messages"
	}
	fields := md.Fields()
	switch name {
	case wktTimestamp:
		c.kind = convTimestamp
		c.sub = [2]protoreflect.FieldDescriptor{fields.ByNumber(1), fields.ByNumber(2)}
		c.expect = "expected an RFC 3339 timestamp such as 2017-01-15T01:30:15.01Z, in years 1 to 9999"
	case wktDuration:
		c.kind = convDuration
		c.sub = [2]protoreflect.FieldDescriptor{fields.ByNumber(1), fields.ByNumber(2)}
		c.expect = "expected a duration such as 1.5s or 1h30m, within 315576000000 seconds"
	case wktFieldMask:
		c.kind = convFieldMask
		c.sub[0] = fields.ByNumber(1)
		c.expect = "expected comma-separated field paths such as displayName,inner.s"
	case wktValue:
		c.kind = convValue
		c.sub[0] = fields.ByNumber(3) // string_value
		c.expect = "not valid UTF-8"
	case wktEmpty:
		c.kind = convEmpty
		c.expect = `expected "" or "{}" for google.protobuf.Empty`
	case wktStruct, wktListValue, wktAny:
		return nil, string(name) + " field", ""
	default:
		if !isWrapper(name) {
			return nil, "message field", string(name) + " is a message type with no string form"
		}
		value := fields.ByNumber(1)
		if value == nil {
			return nil, "message field", string(name) + " does not have the fields of the well-known type"
		}
		inner, _, _ := newConverter(value)
		if inner == nil || inner.list {
			return nil, "message field", string(name) + " does not wrap a scalar"
		}
		c.kind = convWrapper
		c.sub[0] = value
		c.inner = inner
	}
	if !c.wktShapeOK() {
		return nil, "message field", string(name) + " does not have the fields of the well-known type"
	}
	return c, "", ""
}

// wktShapeOK reports whether the well-known type's fields that c sets
// have the kinds that type declares, so that a look-alike message cannot
// make Set panic.
func (c *converter) wktShapeOK() bool {
	is := func(fd protoreflect.FieldDescriptor, k protoreflect.Kind, list bool) bool {
		return fd != nil && fd.Kind() == k && fd.IsList() == list
	}
	switch c.kind {
	case convTimestamp, convDuration:
		return is(c.sub[0], protoreflect.Int64Kind, false) && is(c.sub[1], protoreflect.Int32Kind, false)
	case convFieldMask:
		return is(c.sub[0], protoreflect.StringKind, true)
	case convValue:
		return is(c.sub[0], protoreflect.StringKind, false)
	}
	return true
}

func newEnumValues(ed protoreflect.EnumDescriptor) *enumValues {
	e := &enumValues{}
	vals := ed.Values()
	for i := range vals.Len() {
		v := vals.Get(i)
		e.names.add(string(v.Name()), v.Number())
		e.numbers = append(e.numbers, v.Number())
	}
	slices.Sort(e.numbers)
	e.numbers = slices.Compact(e.numbers)
	return e
}

// problem returns the message for a strconv error.
func (c *converter) problem(err error) string {
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return c.outOfRange
	}
	return c.expect
}

// scalar converts s for a scalar or enum field (or a wrapper's value). On
// failure it returns a description of the problem.
func (c *converter) scalar(s string) (protoreflect.Value, string) {
	switch c.kind {
	case convInt32:
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return protoreflect.Value{}, c.problem(err)
		}
		return protoreflect.ValueOfInt32(int32(n)), ""
	case convInt64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return protoreflect.Value{}, c.problem(err)
		}
		return protoreflect.ValueOfInt64(n), ""
	case convUint32:
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return protoreflect.Value{}, c.problem(err)
		}
		return protoreflect.ValueOfUint32(uint32(n)), ""
	case convUint64:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return protoreflect.Value{}, c.problem(err)
		}
		return protoreflect.ValueOfUint64(n), ""
	case convFloat, convDouble:
		f, problem := c.float(s)
		if problem != "" {
			return protoreflect.Value{}, problem
		}
		if c.kind == convFloat {
			return protoreflect.ValueOfFloat32(float32(f)), ""
		}
		return protoreflect.ValueOfFloat64(f), ""
	case convBool:
		switch s {
		case "1", "t", "T", "TRUE", "true", "True":
			return protoreflect.ValueOfBool(true), ""
		case "0", "f", "F", "FALSE", "false", "False":
			return protoreflect.ValueOfBool(false), ""
		}
		return protoreflect.Value{}, c.expect
	case convString:
		if !utf8.ValidString(s) {
			return protoreflect.Value{}, c.expect
		}
		return protoreflect.ValueOfString(s), ""
	case convBytes:
		b, ok := decodeBase64(s)
		if !ok {
			return protoreflect.Value{}, c.expect
		}
		return protoreflect.ValueOfBytes(b), ""
	case convEnum:
		if n, ok := c.enum.names.get(s); ok {
			return protoreflect.ValueOfEnum(n), ""
		}
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return protoreflect.Value{}, c.expect
		}
		if _, ok := slices.BinarySearch(c.enum.numbers, protoreflect.EnumNumber(n)); !ok {
			return protoreflect.Value{}, c.expect
		}
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), ""
	}
	return protoreflect.Value{}, c.expect
}

// float converts s for a float or double field: the JSON number grammar
// or one of the three special tokens of the proto3 JSON mapping.
func (c *converter) float(s string) (float64, string) {
	switch s {
	case "NaN":
		return math.NaN(), ""
	case "Infinity":
		return math.Inf(1), ""
	case "-Infinity":
		return math.Inf(-1), ""
	}
	if !isJSONNumber(s) {
		return 0, c.expect
	}
	bits := 64
	if c.kind == convFloat {
		bits = 32
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		return 0, c.problem(err)
	}
	return f, ""
}

// set converts s and stores it in the singular field c.fd of parent.
func (c *converter) set(parent protoreflect.Message, s string) string {
	switch c.kind {
	case convTimestamp:
		secs, nanos, ok := wellknown.ParseTimestamp(s)
		if !ok {
			return c.expect
		}
		c.setPair(parent, secs, nanos)
	case convDuration:
		secs, nanos, ok := parseDuration(s)
		if !ok {
			return c.expect
		}
		c.setPair(parent, secs, nanos)
	case convFieldMask:
		msg := parent.NewField(c.fd).Message()
		if s != "" {
			list := msg.Mutable(c.sub[0]).List()
			for rest := s; ; {
				path, more := cutComma(&rest)
				path, ok := snakePath(path)
				if !ok {
					return c.expect
				}
				list.Append(protoreflect.ValueOfString(path))
				if !more {
					break
				}
			}
		}
		parent.Set(c.fd, protoreflect.ValueOfMessage(msg))
	case convWrapper:
		v, problem := c.inner.scalar(s)
		if problem != "" {
			return problem
		}
		msg := parent.NewField(c.fd).Message()
		msg.Set(c.sub[0], v)
		parent.Set(c.fd, protoreflect.ValueOfMessage(msg))
	case convValue:
		if !utf8.ValidString(s) {
			return c.expect
		}
		msg := parent.NewField(c.fd).Message()
		msg.Set(c.sub[0], protoreflect.ValueOfString(s))
		parent.Set(c.fd, protoreflect.ValueOfMessage(msg))
	case convEmpty:
		if s != "" && s != "{}" {
			return c.expect
		}
		parent.Set(c.fd, protoreflect.ValueOfMessage(parent.NewField(c.fd).Message()))
	default:
		v, problem := c.scalar(s)
		if problem != "" {
			return problem
		}
		if sv, ok := c.direct.Struct(parent); ok {
			gostruct.SetScalar(sv.Field(c.goIndex), c.fd.Kind(), v)
			return ""
		}
		parent.Set(c.fd, v)
	}
	return ""
}

// setPair stores a Timestamp or Duration.
func (c *converter) setPair(parent protoreflect.Message, secs int64, nanos int32) {
	msg := parent.NewField(c.fd).Message()
	msg.Set(c.sub[0], protoreflect.ValueOfInt64(secs))
	msg.Set(c.sub[1], protoreflect.ValueOfInt32(nanos))
	parent.Set(c.fd, protoreflect.ValueOfMessage(msg))
}
