package descopt

import (
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

var httpTypes = Types(annotations.E_Http)

// withRule returns method options holding rule as generated code has
// them.
func withRule(rule *annotations.HttpRule) *descriptorpb.MethodOptions {
	opts := &descriptorpb.MethodOptions{}
	proto.SetExtension(opts, annotations.E_Http, rule)
	return opts
}

// The extension reads the same from generated options, from a dynamic
// message (as protocompile makes), and from unknown fields; options
// without it read nil.
func TestExtension(t *testing.T) {
	t.Parallel()
	rule := &annotations.HttpRule{Pattern: &annotations.HttpRule_Get{Get: "/v1/{name=shelves/*}"}}
	generated := withRule(rule)
	data, err := proto.Marshal(generated)
	if err != nil {
		t.Fatal(err)
	}
	dynamic := dynamicpb.NewMessage((&descriptorpb.MethodOptions{}).ProtoReflect().Descriptor())
	if err := (proto.UnmarshalOptions{Resolver: dynamicHTTP(t)}).Unmarshal(data, dynamic); err != nil {
		t.Fatal(err)
	}
	unknown := &descriptorpb.MethodOptions{}
	if err := (proto.UnmarshalOptions{Resolver: new(protoregistry.Types)}).Unmarshal(data, unknown); err != nil {
		t.Fatal(err)
	}
	if len(unknown.ProtoReflect().GetUnknown()) == 0 {
		t.Fatal("the unknown form has no unknown fields")
	}
	for name, opts := range map[string]proto.Message{"generated": generated, "dynamic": dynamic, "unknown": unknown} {
		v, err := Extension[descriptorpb.MethodOptions](opts, httpTypes, annotations.E_Http)
		got, _ := v.(*annotations.HttpRule)
		if err != nil || !proto.Equal(got, rule) {
			t.Errorf("%s: Extension = %v, %v; want %v", name, v, err, rule)
		}
	}
	for name, opts := range map[string]proto.Message{
		"nil": nil, "typed nil": (*descriptorpb.MethodOptions)(nil), "empty": &descriptorpb.MethodOptions{},
		"other options": &descriptorpb.MethodOptions{Deprecated: proto.Bool(true)},
	} {
		if v, err := Extension[descriptorpb.MethodOptions](opts, httpTypes, annotations.E_Http); v != nil || err != nil {
			t.Errorf("%s: Extension = %v, %v; want nil, nil", name, v, err)
		}
	}
}

// Options whose bytes do not parse are an error, not a panic.
func TestExtensionBadBytes(t *testing.T) {
	t.Parallel()
	opts := &descriptorpb.MethodOptions{}
	opts.ProtoReflect().SetUnknown(protoreflect.RawFields{0x82, 0xd3, 0xe4, 0x93, 0x02, 0x05, 0x01}) // google.api.http: 5 bytes promised, 1 given
	v, err := Extension[descriptorpb.MethodOptions](opts, httpTypes, annotations.E_Http)
	if v != nil || err == nil {
		t.Errorf("Extension = %v, %v; want nil and an error", v, err)
	}
}

// dynamicHTTP resolves google.api.http as a dynamic extension: the
// options hold a dynamic message, not an *annotations.HttpRule.
func dynamicHTTP(t *testing.T) *protoregistry.Types {
	t.Helper()
	xt := dynamicpb.NewExtensionType(annotations.E_Http.TypeDescriptor().Descriptor())
	types := new(protoregistry.Types)
	if err := types.RegisterExtension(xt); err != nil {
		t.Fatal(err)
	}
	return types
}
