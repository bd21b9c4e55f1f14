package bind

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

func TestResolveField(t *testing.T) {
	t.Parallel()
	fx := fixture()
	tests := []struct {
		name    string
		path    []string
		want    string // String() of the result
		wantErr string // substring of the error
	}{
		{name: "scalar", path: []string{"id"}, want: "id"},
		{name: "nested", path: []string{"inner", "s"}, want: "inner.s"},
		{name: "recursive", path: []string{"inner", "deeper", "i"}, want: "inner.deeper.i"},
		{name: "json name", path: []string{"displayName"}, want: "display_name"},
		{name: "custom json name", path: []string{"lname"}, want: "last_name"},
		{name: "repeated scalar", path: []string{"tags"}, want: "tags"},
		{name: "repeated enum", path: []string{"colors"}, want: "colors"},
		{name: "timestamp", path: []string{"ts"}, want: "ts"},
		{name: "wrapper", path: []string{"wi32"}, want: "wi32"},
		{name: "value", path: []string{"val"}, want: "val"},
		{name: "field mask", path: []string{"mask"}, want: "mask"},
		{name: "oneof member", path: []string{"opt_a"}, want: "opt_a"},
		{name: "empty", path: nil, wantErr: "empty field path"},
		{name: "unknown", path: []string{"nope"}, wantErr: `field "nope": no field "nope" in message conf.v1.Probe`},
		{name: "unknown nested", path: []string{"inner", "x"}, wantErr: `field "inner.x": no field "x" in message conf.v1.Inner`},
		{name: "through scalar", path: []string{"name", "x"}, wantErr: `field "name": name is a string field, not a message`},
		{name: "through repeated scalar", path: []string{"tags", "x"}, wantErr: `field "tags": tags is a repeated field`},
		{name: "unknown under map", path: []string{"labels", "k"}, wantErr: `field "labels.k": no field "k" in message conf.v1.Probe.LabelsEntry`},
		{name: "message leaf through repeated", path: []string{"items", "deeper"}, wantErr: `field "items.deeper": a message field cannot be set`},
		{name: "into a well-known type, as grpc-gateway serves it", path: []string{"ts", "seconds"}, want: "ts.seconds"},
		{name: "into a well-known type, a message leaf", path: []string{"val", "struct_value"}, wantErr: `field "val.struct_value": a google.protobuf.Struct field cannot be set`},
		{name: "message leaf", path: []string{"inner"}, wantErr: `field "inner": a message field cannot be set from a string`},
		{name: "map leaf", path: []string{"labels"}, wantErr: `field "labels": a map field cannot be set from a string`},
		{name: "repeated message leaf", path: []string{"items"}, wantErr: `field "items": a repeated message field cannot be set`},
		{name: "struct leaf", path: []string{"attrs"}, wantErr: `field "attrs": a google.protobuf.Struct field cannot be set`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := ResolveField(fx.probe, tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ResolveField(%q) error = %v, want one containing %q", tt.path, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ResolveField(%q): %v", tt.path, err)
			}
			if got := f.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := len(f.Path()); got != len(tt.path) {
				t.Errorf("len(Path()) = %d, want %d", got, len(tt.path))
			}
		})
	}
}

// TestResolveFieldThrough: a path through a repeated or map field of
// messages resolves, as grpc-gateway's generator resolves it, to a Field
// that refuses every value with INVALID_ARGUMENT, naming the field.
func TestResolveFieldThrough(t *testing.T) {
	t.Parallel()
	fx := fixture()
	for _, tt := range []struct {
		path []string
		msg  string
	}{
		{[]string{"items", "s"}, `path variable "items.s" binds a field through the repeated field "items", which google/api/http.proto does not allow`},
		{[]string{"items", "deeper", "i"}, `through the repeated field "items"`},
		{[]string{"labels", "value"}, `path variable "labels.value" binds a field through the map field "labels"`},
		{[]string{"inner", "s"}, ""},
	} {
		f := resolve(t, fx.probe, tt.path...)
		err := f.SetPathValue(dynamicpb.NewMessage(fx.probe), "v")
		if tt.msg == "" {
			if err != nil || f.Refused() != "" {
				t.Errorf("ResolveField(%q): SetPathValue = %v, Refused = %q, want nil and none", tt.path, err, f.Refused())
			}
			continue
		}
		st, _ := status.FromError(err)
		if st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), tt.msg) || st.Message() != f.Refused() {
			t.Errorf("ResolveField(%q): SetPathValue = %v (Refused %q), want INVALID_ARGUMENT containing %q", tt.path, err, f.Refused(), tt.msg)
		}
	}
}

func TestBoundField(t *testing.T) {
	t.Parallel()
	fx := fixture()
	fields := fx.probe.Fields()
	inner, items := fields.ByName("inner"), fields.ByName("items")
	s := fx.inner.Fields().ByName("s")
	tests := []struct {
		name    string
		path    []protoreflect.FieldDescriptor
		wantErr string
	}{
		{name: "message leaf", path: []protoreflect.FieldDescriptor{inner}},
		{name: "nested", path: []protoreflect.FieldDescriptor{inner, s}},
		{name: "repeated leaf", path: []protoreflect.FieldDescriptor{items}},
		{name: "empty", wantErr: "empty field path"},
		{name: "wrong message", path: []protoreflect.FieldDescriptor{s}, wantErr: `field "conf.v1.Inner.s" is not a field of conf.v1.Probe`},
		{name: "through repeated", path: []protoreflect.FieldDescriptor{items, s}, wantErr: `field "items": items is a repeated field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := BoundField(fx.probe, tt.path)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("BoundField: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("BoundField error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}

	f, err := BoundField(fx.probe, []protoreflect.FieldDescriptor{inner})
	if err != nil {
		t.Fatal(err)
	}
	checkStatus(t, f.SetPathValue(parseText(t, fx.probe, ""), "x"), `field "inner" cannot be set from a path value: it is a message field`)
}

func TestSetPathValue(t *testing.T) {
	t.Parallel()
	fx := fixture()
	tests := []struct {
		name    string
		md      protoreflect.MessageDescriptor // default: conf.v1.Probe
		path    string                         // dotted field path
		value   string
		before  string // the message before, as text (the body)
		want    string
		wantErr string
	}{
		{name: "C001 string", path: "name", value: "abc", want: `name: "abc"`},
		{name: "C047 decoded slash", path: "name", value: "a/b", want: `name: "a/b"`},
		{name: "C051 utf-8", path: "name", value: "你", want: `name: "你"`},
		{name: "plus is kept", path: "name", value: "a+b", want: `name: "a+b"`},
		{name: "C067 int64", path: "id", value: "123", want: `id: 123`},
		{name: "C069 overflow", path: "id", value: "9223372036854775808", wantErr: `invalid value "9223372036854775808" for field "id": out of range for int64`},
		{name: "R26 not a number", path: "id", value: "abc", wantErr: `invalid value "abc" for field "id": expected an integer (int64)`},
		{name: "C071 empty int", path: "id", value: "", wantErr: `invalid value "" for field "id"`},
		{name: "C073 nested", path: "inner.s", value: "s1", want: `inner {s: "s1"}`},
		{name: "nested int", path: "inner.i", value: "7", want: `inner {i: 7}`},
		{name: "nested int bad", path: "inner.i", value: "x", wantErr: `invalid value "x" for field "inner.i": expected an integer (int32)`},
		{name: "path wins over body", path: "name", value: "abc", before: `name: "zzz" i32: 1`, want: `name: "abc" i32: 1`},
		{name: "invalid utf-8", path: "name", value: "\xff", wantErr: `not valid UTF-8`},
		{name: "bool", path: "flag", value: "True", want: `flag: true`},
		{name: "enum", path: "color", value: "RED", want: `color: RED`},
		{name: "timestamp", path: "ts", value: "2017-01-15T01:30:15.01Z", want: `ts {seconds: 1484443815 nanos: 10000000}`},
		{name: "timestamp with plus", path: "ts", value: "2017-01-15T01:30:15+08:00", want: `ts {seconds: 1484415015}`},
		{name: "duration", path: "dur", value: "90m", want: `dur {seconds: 5400}`},
		{name: "field mask", path: "mask", value: "displayName,inner.s", want: `mask {paths: ["display_name", "inner.s"]}`},
		{name: "wrapper", path: "wstr", value: "x", want: `wstr {value: "x"}`},
		{name: "value", path: "val", value: "123", want: `val {string_value: "123"}`},
		{name: "repeated comma-separated", path: "tags", value: "a,b,c", want: `tags: ["a", "b", "c"]`},
		{name: "repeated single", path: "tags", value: "a", want: `tags: ["a"]`},
		{name: "repeated empty element", path: "tags", value: "a,,b", want: `tags: ["a", "", "b"]`},
		{name: "repeated empty value", path: "tags", value: "", want: `tags: [""]`},
		{name: "repeated replaces the body's", path: "tags", value: "x,y", before: `tags: ["a"]`, want: `tags: ["x", "y"]`},
		{name: "repeated ints", path: "nums", value: "1,-2,3", want: `nums: [1, -2, 3]`},
		{name: "repeated bad element", path: "nums", value: "1,x,3", wantErr: `invalid value "x" for field "nums": expected an integer (int32)`},
		{name: "repeated enums", path: "colors", value: "RED,2", want: `colors: [RED, GREEN]`},
		{name: "oneof member", path: "opt_b", value: "b", want: `opt_b: "b"`},
		{name: "oneof same member from body", path: "opt_b", value: "b", before: `opt_b: "x"`, want: `opt_b: "b"`},
		{name: "oneof other member from body", path: "opt_b", value: "b", before: `opt_a: "x"`, wantErr: `field "opt_b": oneof "choice" already has field "opt_a" set`},
		{name: "oneof message member", md: fx.extra, path: "oneof_inner.s", value: "b", before: `oneof_empty {}`, wantErr: `oneof "pick" already has field "oneof_empty" set`},
		{name: "empty message", md: fx.extra, path: "e", value: "", want: `e {}`},
		{name: "long value is truncated", path: "id", value: strings.Repeat("9", 100), wantErr: `invalid value "` + strings.Repeat("9", 64) + `…" for field "id"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			md := tt.md
			if md == nil {
				md = fx.probe
			}
			f := resolve(t, md, strings.Split(tt.path, ".")...)
			m := parseText(t, md, tt.before)
			err := f.SetPathValue(m, tt.value)
			if tt.wantErr != "" {
				checkStatus(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("SetPathValue(%q): %v", tt.value, err)
			}
			checkMessage(t, m, parseText(t, md, tt.want))
		})
	}
}
