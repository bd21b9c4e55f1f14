package wellknown

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
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
