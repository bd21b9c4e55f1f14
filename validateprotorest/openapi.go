package validateprotorest

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest"
)

var _ protorest.OpenAPISchemaHook = (*Validator)(nil)

// FieldConstraints says fd's rules in JSON Schema, for the OpenAPI
// document: string lengths, pattern and formats (email, hostname, ipv4,
// ipv6, uri, uri-reference, uuid), the bounds of 32-bit integers and of
// floating-point numbers, const and in, an enum's allowed values (in,
// not_in), a list's item count and uniqueness, a map's pair count, the
// rules of items, keys and values, required. The rest (CEL rules, bytes',
// 64-bit integers' (strings in JSON), well-known types', other string
// rules) are Rules, by id. nil when fd has no rules or ignores them
// always.
func (v *Validator) FieldConstraints(fd protoreflect.FieldDescriptor) *protorest.OpenAPIConstraints {
	rules, err := protovalidate.ResolveFieldRules(fd)
	if err != nil || rules == nil {
		return nil
	}
	c := fieldConstraints(rules, fd.Enum())
	if c != nil && c.AllowZero && (fd.Message() != nil || fd.IsList() || fd.IsMap() || fd.HasPresence()) {
		c.AllowZero = false // unset, not zero, is what the rules let pass
	}
	return c
}

// MessageConstraints says md's rules: its CEL rules and message oneof
// rules as Rules, and its oneofs that require a member.
func (v *Validator) MessageConstraints(md protoreflect.MessageDescriptor) *protorest.OpenAPIConstraints {
	c := new(protorest.OpenAPIConstraints)
	if rules, err := protovalidate.ResolveMessageRules(md); err == nil && rules != nil {
		c.Rules = celRules(rules.GetCel(), rules.GetCelExpression())
		for _, o := range rules.GetOneof() {
			c.Rules = append(c.Rules, protorest.OpenAPIRule{ID: "message.oneof", Value: map[string]any{"fields": o.GetFields(), "required": o.GetRequired()}})
		}
	}
	oneofs := md.Oneofs()
	for i := range oneofs.Len() {
		od := oneofs.Get(i)
		if rules, err := protovalidate.ResolveOneofRules(od); err == nil && rules.GetRequired() {
			c.RequiredOneofs = append(c.RequiredOneofs, od)
		}
	}
	if c.Rules == nil && c.RequiredOneofs == nil {
		return nil
	}
	return c
}

// fieldConstraints are the constraints of rules, of a field of enum type
// ed (nil for another).
func fieldConstraints(rules *validate.FieldRules, ed protoreflect.EnumDescriptor) *protorest.OpenAPIConstraints {
	if rules.GetIgnore() == validate.Ignore_IGNORE_ALWAYS {
		return nil
	}
	c := &protorest.OpenAPIConstraints{
		Required:  rules.GetRequired(),
		AllowZero: rules.GetIgnore() == validate.Ignore_IGNORE_IF_ZERO_VALUE,
		Rules:     celRules(rules.GetCel(), rules.GetCelExpression()),
	}
	m := rules.ProtoReflect()
	if typ := m.WhichOneof(m.Descriptor().Oneofs().ByName("type")); typ != nil {
		family := string(typ.Name())
		typed := m.Get(typ).Message()
		switch family {
		case "repeated":
			repeatedConstraints(c, typed, ed)
		case "map":
			mapConstraints(c, typed)
		default:
			scalarConstraints(c, family, typed, ed)
		}
	}
	return c
}

// celRules are CEL rules, and bare expressions, as Rules.
func celRules(rules []*validate.Rule, expressions []string) []protorest.OpenAPIRule {
	var out []protorest.OpenAPIRule
	for _, r := range rules {
		out = append(out, protorest.OpenAPIRule{ID: r.GetId(), Message: r.GetMessage(), Expression: r.GetExpression()})
	}
	for _, e := range expressions {
		out = append(out, protorest.OpenAPIRule{Expression: e})
	}
	return out
}

func repeatedConstraints(c *protorest.OpenAPIConstraints, m protoreflect.Message, ed protoreflect.EnumDescriptor) {
	rules := m.Interface().(*validate.RepeatedRules)
	each(m, "repeated", c, func(name string, v protoreflect.Value) bool {
		switch name {
		case "min_items":
			c.MinItems = ptr(v.Uint())
		case "max_items":
			c.MaxItems = ptr(v.Uint())
		case "unique":
			c.UniqueItems = v.Bool()
		case "items":
			c.Items = fieldConstraints(rules.GetItems(), ed)
		default:
			return false
		}
		return true
	})
}

func mapConstraints(c *protorest.OpenAPIConstraints, m protoreflect.Message) {
	rules := m.Interface().(*validate.MapRules)
	each(m, "map", c, func(name string, v protoreflect.Value) bool {
		switch name {
		case "min_pairs":
			c.MinProperties = ptr(v.Uint())
		case "max_pairs":
			c.MaxProperties = ptr(v.Uint())
		case "keys":
			c.Keys = fieldConstraints(rules.GetKeys(), nil)
			if c.Keys != nil && (c.Keys.Minimum != "" || c.Keys.Maximum != "" || c.Keys.ExclusiveMinimum != "" ||
				c.Keys.ExclusiveMaximum != "" || c.Keys.Const != nil || c.Keys.Enum != nil) {
				// An integer key is a string in JSON: its bounds are rules.
				c.Rules = append(c.Rules, protorest.OpenAPIRule{ID: "map.keys", Value: jsonOf(v)})
				c.Keys = nil
			}
		case "values":
			c.Values = fieldConstraints(rules.GetValues(), nil)
		default:
			return false
		}
		return true
	})
}

// scalarConstraints adds the rules of one value of family ("string",
// "int32", "enum", …) in m.
func scalarConstraints(c *protorest.OpenAPIConstraints, family string, m protoreflect.Message, ed protoreflect.EnumDescriptor) {
	var number bool
	switch family {
	case "int32", "sint32", "sfixed32", "uint32", "fixed32", "float", "double":
		number = true
	}
	each(m, family, c, func(name string, v protoreflect.Value) bool {
		switch {
		case family == "string":
			return stringRule(c, name, v)
		case family == "bool" && name == "const":
			c.Const = v.Bool()
		case family == "enum":
			return enumRule(c, name, v, ed)
		case number:
			return numberRule(c, name, v)
		default:
			return false
		}
		return true
	})
	if number && outsideRange(c) {
		c.Rules = append(c.Rules, protorest.OpenAPIRule{ID: family + ".range", Value: jsonOf(protoreflect.ValueOfMessage(m))})
		c.Minimum, c.Maximum, c.ExclusiveMinimum, c.ExclusiveMaximum = "", "", "", ""
	}
}

// formats are the string rules that are a JSON Schema format.
var formats = map[string]string{
	"email": "email", "hostname": "hostname", "ipv4": "ipv4", "ipv6": "ipv6",
	"uri": "uri", "uri_ref": "uri-reference", "uuid": "uuid",
}

func stringRule(c *protorest.OpenAPIConstraints, name string, v protoreflect.Value) bool {
	switch name {
	case "min_len":
		c.MinLength = ptr(v.Uint())
	case "max_len":
		c.MaxLength = ptr(v.Uint())
	case "len":
		c.MinLength, c.MaxLength = ptr(v.Uint()), ptr(v.Uint())
	case "pattern":
		c.Pattern = v.String()
	case "const":
		c.Const = v.String()
	case "in":
		l := v.List()
		c.Enum = make([]any, l.Len())
		for i := range l.Len() {
			c.Enum[i] = l.Get(i).String()
		}
	default:
		f, ok := formats[name]
		if !ok || !v.Bool() {
			return false
		}
		c.Format = f
	}
	return true
}

func enumRule(c *protorest.OpenAPIConstraints, name string, v protoreflect.Value, ed protoreflect.EnumDescriptor) bool {
	switch name {
	case "defined_only": // the enum's schema lists its values
	case "const":
		c.Const = protoreflect.EnumNumber(v.Int())
	case "in":
		l := v.List()
		c.Enum = make([]any, l.Len())
		for i := range l.Len() {
			c.Enum[i] = protoreflect.EnumNumber(l.Get(i).Int())
		}
	case "not_in":
		if ed == nil {
			return false
		}
		out := map[protoreflect.EnumNumber]bool{}
		l := v.List()
		for i := range l.Len() {
			out[protoreflect.EnumNumber(l.Get(i).Int())] = true
		}
		values := ed.Values()
		for i := range values.Len() {
			if n := values.Get(i).Number(); !out[n] {
				c.Enum = append(c.Enum, n)
			}
		}
	default:
		return false
	}
	return true
}

func numberRule(c *protorest.OpenAPIConstraints, name string, v protoreflect.Value) bool {
	switch name {
	case "gt", "gte", "lt", "lte", "const":
		n, ok := number(v)
		if !ok {
			return false
		}
		switch name {
		case "gt":
			c.ExclusiveMinimum = n
		case "gte":
			c.Minimum = n
		case "lt":
			c.ExclusiveMaximum = n
		case "lte":
			c.Maximum = n
		default:
			c.Const = n
		}
	case "in":
		l := v.List()
		c.Enum = make([]any, l.Len())
		for i := range l.Len() {
			n, ok := number(l.Get(i))
			if !ok {
				c.Enum = nil
				return false
			}
			c.Enum[i] = n
		}
	default:
		return false
	}
	return true
}

// number is a numeric rule value as JSON; false for NaN and infinities.
func number(v protoreflect.Value) (json.Number, bool) {
	switch x := v.Interface().(type) {
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10)), true
	case uint32:
		return json.Number(strconv.FormatUint(uint64(x), 10)), true
	case float32:
		return floatNumber(float64(x), 32)
	case float64:
		return floatNumber(x, 64)
	}
	return "", false
}

func floatNumber(f float64, bits int) (json.Number, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", false
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, bits)), true
}

// outsideRange reports whether c's lower bound is above its upper one:
// protovalidate's rule for a value outside the range, which the keywords
// (all of which must hold) cannot say.
func outsideRange(c *protorest.OpenAPIConstraints) bool {
	lower, upper := c.Minimum, c.Maximum
	if c.ExclusiveMinimum != "" {
		lower = c.ExclusiveMinimum
	}
	if c.ExclusiveMaximum != "" {
		upper = c.ExclusiveMaximum
	}
	if lower == "" || upper == "" {
		return false
	}
	l, _ := lower.Float64()
	u, _ := upper.Float64()
	return l > u
}

// each calls rule for every rule set in m, by name; a rule it does not
// take (false), or a predefined rule (an extension), goes to c's Rules
// with its value, as family.name or the extension's full name. "example"
// values are not rules.
func each(m protoreflect.Message, family string, c *protorest.OpenAPIConstraints, rule func(name string, v protoreflect.Value) bool) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(fd.Name())
		switch {
		case fd.IsExtension():
			c.Rules = append(c.Rules, protorest.OpenAPIRule{ID: string(fd.FullName()), Value: jsonOf(v)})
		case name == "example":
		case !rule(name, v):
			c.Rules = append(c.Rules, protorest.OpenAPIRule{ID: family + "." + name, Value: jsonOf(v)})
		}
		return true
	})
}

// jsonOf is a rule's value as JSON: scalars as they are (bytes in base64,
// 64-bit integers as strings, as protojson writes them), lists as arrays,
// messages (a Duration, a Timestamp, a set of rules) as protojson writes
// them.
func jsonOf(v protoreflect.Value) any {
	switch x := v.Interface().(type) {
	case protoreflect.List:
		out := make([]any, x.Len())
		for i := range x.Len() {
			out[i] = jsonOf(x.Get(i))
		}
		return out
	case protoreflect.Message:
		b, err := protojson.Marshal(x.Interface())
		if err != nil {
			return nil
		}
		return json.RawMessage(b)
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float32:
		n, ok := floatNumber(float64(x), 32)
		if !ok {
			return strconv.FormatFloat(float64(x), 'g', -1, 32)
		}
		return n
	case float64:
		n, ok := floatNumber(x, 64)
		if !ok {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		return n
	case protoreflect.EnumNumber:
		return int32(x)
	}
	return v.Interface()
}

func ptr[T any](v T) *T { return &v }
