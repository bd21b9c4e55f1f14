package wellknown

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/protorest/protorest/internal/protorand"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

func TestOf(t *testing.T) {
	t.Parallel()
	for name, want := range map[protoreflect.FullName]Type{
		"google.protobuf.Any":         Any,
		"google.protobuf.Timestamp":   Timestamp,
		"google.protobuf.Duration":    Duration,
		"google.protobuf.UInt64Value": Wrapper,
		"google.protobuf.BytesValue":  Wrapper,
		"google.protobuf.Struct":      Struct,
		"google.protobuf.ListValue":   ListValue,
		"google.protobuf.Value":       Value,
		"google.protobuf.FieldMask":   FieldMask,
		"google.protobuf.Empty":       Empty,
		"google.protobuf.NullValue":   None,
		"google.protobuf.api.Any":     None,
		"acme.Timestamp":              None,
		"Timestamp":                   None,
	} {
		if got := Of(name); got != want {
			t.Errorf("Of(%q) = %d, want %d", name, got, want)
		}
	}
}

func TestCase(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ snake, camel string }{
		{"", ""},
		{"foo", "foo"},
		{"foo_bar", "fooBar"},
		{"foo_bar.baz_qux", "fooBar.bazQux"},
	} {
		if got := CamelCase(tt.snake); got != tt.camel {
			t.Errorf("CamelCase(%q) = %q, want %q", tt.snake, got, tt.camel)
		}
		if got := SnakeCase(tt.camel); got != tt.snake {
			t.Errorf("SnakeCase(%q) = %q, want %q", tt.camel, got, tt.snake)
		}
	}
}

// TestEnforcesUTF8 checks which strings must be valid UTF-8: proto3's,
// editions' unless utf8_validation is NONE, never proto2's.
func TestEnforcesUTF8(t *testing.T) {
	ed, err := protorand.Editions()
	if err != nil {
		t.Fatal(err)
	}
	ed2 := ed.Messages().ByName("Ed2").Fields()
	for _, c := range []struct {
		fd   protoreflect.FieldDescriptor
		want bool
	}{
		{(&confv1.Probe{}).ProtoReflect().Descriptor().Fields().ByName("name"), true},
		{ed2.ByName("s"), true},
		{ed2.ByName("loose"), false},
		{(&pluginpb.Version{}).ProtoReflect().Descriptor().Fields().ByName("suffix"), false},
	} {
		if got := EnforcesUTF8(c.fd); got != c.want {
			t.Errorf("EnforcesUTF8(%s) = %v, want %v", c.fd.FullName(), got, c.want)
		}
	}
}
