package openapi

import (
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// shopRules is a SchemaHook with rules on shop.proto's Item, by field
// name.
type shopRules struct{}

func (shopRules) FieldConstraints(fd protoreflect.FieldDescriptor) *Constraints {
	if fd.ContainingMessage().Name() != "Item" {
		return nil
	}
	switch fd.Name() {
	case "title":
		return &Constraints{MinLength: ptr[uint64](3), AllowZero: true}
	case "kind":
		return &Constraints{Enum: []any{protoreflect.EnumNumber(1)}}
	case "tags":
		return &Constraints{MaxItems: ptr[uint64](2), UniqueItems: true, Items: &Constraints{MinLength: ptr[uint64](1)}}
	case "notes":
		return &Constraints{MaxProperties: ptr[uint64](4), Values: &Constraints{MaxLength: ptr[uint64](9)}}
	case "percent":
		return &Constraints{Minimum: "0", ExclusiveMaximum: "100", Rules: []SchemaRule{{ID: "int32.not_in", Value: []any{json.Number("50")}}}}
	case "color":
		return &Constraints{Required: true, Rules: []SchemaRule{{ID: "color.cel", Message: "a color", Expression: "this != ''"}}}
	}
	return nil
}

func (shopRules) MessageConstraints(md protoreflect.MessageDescriptor) *Constraints {
	if md.Name() != "Item" {
		return nil
	}
	return &Constraints{RequiredOneofs: []protoreflect.OneofDescriptor{md.Oneofs().ByName("discount")},
		Rules: []SchemaRule{{ID: "item.cel", Expression: "true"}}}
}

// TestBuildConstraints writes a SchemaHook's constraints as keywords on
// the fields' schemas (a copy of a shared one; beside a reference in an
// allOf; an enum's values as the gateway writes them; the zero value let
// through in an anyOf), on list items and map values, required in the
// message's list, and the rules no keyword says under x-buf-validate.
func TestBuildConstraints(t *testing.T) {
	t.Parallel()
	item := "/components/schemas/shop.v1.Item"
	for _, numbers := range []bool{false, true} {
		opts := Options{JSON: protojson.MarshalOptions{EmitUnpopulated: true, UseEnumNumbers: numbers}, Schemas: shopRules{}}
		doc := decode(t, Build(shopRoutes(t, nil), opts))
		kind := `["BOOK"]`
		if numbers {
			kind = `[1]`
		}
		for _, tt := range []struct{ pointer, want string }{
			{item + "/properties/title", `{"anyOf":[{"const":""},{"type":"string","minLength":3}],"description":"Its title."}`},
			{item + "/properties/kind/enum", kind},
			{item + "/properties/kind/allOf/0/$ref", `"#/components/schemas/shop.v1.Item.Kind"`},
			{item + "/properties/tags", `{"type":"array","items":{"type":"string","minLength":1},"maxItems":2,"uniqueItems":true}`},
			{item + "/properties/notes/maxProperties", `4`},
			{item + "/properties/notes/additionalProperties", `{"type":"string","maxLength":9}`},
			{item + "/properties/percent", `{"type":"integer","format":"int32","minimum":0,"exclusiveMaximum":100,"x-buf-validate":[{"id":"int32.not_in","value":[50]}]}`},
			{item + "/properties/color/x-buf-validate", `[{"id":"color.cel","message":"a color","expression":"this != ''"}]`},
			{item + "/required", `["title","color"]`},
			{item + "/anyOf", `[{"required":["percent"]},{"required":["amount"]},{"required":["code"]}]`},
			{item + "/x-buf-validate", `[{"id":"item.cel","expression":"true"}]`},
			// The shared schemas are left as they were.
			{item + "/properties/code", `{"type":"string"}`},
		} {
			if got := at(doc, tt.pointer); !jsonEqual(t, got, tt.want) {
				b, _ := json.Marshal(got)
				t.Errorf("UseEnumNumbers %v: %s:\n got %s\nwant %s", numbers, tt.pointer, b, tt.want)
			}
		}
	}
}
