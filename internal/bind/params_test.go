package bind

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

func TestQueryParams(t *testing.T) {
	t.Parallel()
	fx := fixture()
	tests := []struct {
		name       string
		md         protoreflect.MessageDescriptor // default: conf.v1.Probe
		bound      []string
		bodyAll    bool
		protoNames bool
		opts       QueryOptions
		want       []string // the names, in order
	}{
		{name: "every leaf", want: []string{
			"name", "id", "i32", "u64", "flag", "dbl", "flt", "blob", "color", "tags", "nums",
			"inner.s", "inner.i", // inner.deeper is an Inner again: not entered
			"ts", "dur", "mask", "wi32", "wstr", "val", "optA", "optB", "displayName", "lname", "parent",
			"payload.contentType", "payload.data", // HttpBody is a message like any other here
			"colors",
		}},
		{name: "proto names", protoNames: true, bound: []string{"name", "inner", "ts", "dur", "mask", "wi32", "wstr", "val", "tags", "nums", "colors"}, want: []string{
			"id", "i32", "u64", "flag", "dbl", "flt", "blob", "color", "opt_a", "opt_b", "display_name", "last_name", "parent",
			"payload.content_type", "payload.data",
		}},
		{name: "a bound leaf, a bound nested leaf", bound: []string{"name", "inner.s"}, want: []string{
			"id", "i32", "u64", "flag", "dbl", "flt", "blob", "color", "tags", "nums",
			"inner.i",
			"ts", "dur", "mask", "wi32", "wstr", "val", "optA", "optB", "displayName", "lname", "parent",
			"payload.contentType", "payload.data", "colors",
		}},
		{name: "a bound message takes what is under it", bound: []string{"inner", "payload"}, want: []string{
			"name", "id", "i32", "u64", "flag", "dbl", "flt", "blob", "color", "tags", "nums",
			"ts", "dur", "mask", "wi32", "wstr", "val", "optA", "optB", "displayName", "lname", "parent", "colors",
		}},
		{name: "body star takes none", bodyAll: true},
		{name: "ignored names are not offered", md: fx.list, opts: QueryOptions{Ignored: []string{"filter", "page_token"}, IgnoreUnknown: true},
			want: []string{"parent", "pageSize", "pageToken", "orderBy", "showDeleted", "readMask"}}, // "pageToken" is not "page_token"
		{name: "ignored proto name, offered by its other name", md: fx.list, protoNames: true, opts: QueryOptions{Ignored: []string{"page_size"}},
			want: []string{"parent", "pageSize", "page_token", "filter", "order_by", "show_deleted", "read_mask"}},
		{name: "well-known leaves, Any's fields, not Struct, ListValue or repeated messages", md: fx.extra, want: []string{
			"e", "oneofEmpty", "oneofInner.s", "oneofInner.i",
			"s32", "f64", "wbytes", "wbool", "any.typeUrl", "any.value", "u32", "wdbl", "blobs", "wu64", "flags",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			md := tt.md
			if md == nil {
				md = fx.probe
			}
			var bound []*Field
			for _, b := range tt.bound {
				bound = append(bound, boundPath(t, md, b))
			}
			q := NewQuery(md, bound, tt.bodyAll, tt.opts)
			params := q.Params(tt.protoNames)
			var names []string
			for _, p := range params {
				names = append(names, p.Name)
			}
			if !slices.Equal(names, tt.want) {
				t.Fatalf("Params:\n got %q\nwant %q", names, tt.want)
			}
			// Each parameter binds, with a value its field takes, into the
			// field its path names.
			for _, p := range params {
				m := dynamicpb.NewMessage(md)
				if err := q.Bind(m, p.Name+"="+sampleValue(p.Path[len(p.Path)-1])); err != nil {
					t.Errorf("Bind(%s): %v", p.Name, err)
					continue
				}
				parent := m.ProtoReflect()
				for _, fd := range p.Path[:len(p.Path)-1] {
					parent = parent.Get(fd).Message()
				}
				if leaf := p.Path[len(p.Path)-1]; !parent.Has(leaf) && !isEmptyMessage(leaf) {
					t.Errorf("Bind(%s) did not set %s", p.Name, leaf.FullName())
				}
			}
		})
	}
}

// Binds says which names Bind would set a field from: every name Params
// lists, the other naming too, and no name that is unknown, ignored or
// bound.
func TestQueryBinds(t *testing.T) {
	t.Parallel()
	fx := fixture()
	bound := []*Field{boundPath(t, fx.probe, "name"), boundPath(t, fx.probe, "inner.s")}
	for _, tt := range []struct {
		name    string
		opts    QueryOptions
		bodyAll bool
		want    map[string]bool
	}{
		{name: "default", want: map[string]bool{
			"id": true, "displayName": true, "display_name": true, "inner.i": true, "payload.data": true,
			"name": false, "inner.s": false, "inner": false, "nope": false, "inner.nope": false, "": false,
		}},
		{name: "unknown names ignored", opts: QueryOptions{IgnoreUnknown: true}, want: map[string]bool{"nope": false, "id": true}},
		{name: "ignored", opts: QueryOptions{Ignored: []string{"id"}}, want: map[string]bool{"id": false, "i32": true}},
		{name: "body star", bodyAll: true, want: map[string]bool{"id": false}},
	} {
		q := NewQuery(fx.probe, bound, tt.bodyAll, tt.opts)
		for name, want := range tt.want {
			if got := q.Binds(name); got != want {
				t.Errorf("%s: Binds(%q) = %v, want %v", tt.name, name, got, want)
			}
		}
		for _, protoNames := range []bool{false, true} {
			for _, p := range q.Params(protoNames) {
				if !q.Binds(p.Name) {
					t.Errorf("%s: Params lists %q, which Binds denies", tt.name, p.Name)
				}
			}
		}
	}
}

// sampleValue is a query value that fd takes.
func sampleValue(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return "true"
	case protoreflect.EnumKind:
		return string(fd.Enum().Values().Get(fd.Enum().Values().Len() - 1).Name())
	case protoreflect.StringKind:
		return "s"
	case protoreflect.BytesKind:
		return "YWI"
	case protoreflect.MessageKind:
		switch name := fd.Message().FullName(); {
		case name == wktTimestamp:
			return "2017-01-15T01:30:15.01Z"
		case name == wktDuration:
			return "1.5s"
		case name == wktFieldMask:
			return "a,b"
		case name == wktEmpty:
			return "%7B%7D"
		case strings.HasSuffix(string(name), "Value"):
			return sampleValue(fd.Message().Fields().ByNumber(1))
		}
	}
	return "7"
}

func isEmptyMessage(fd protoreflect.FieldDescriptor) bool {
	return fd.Message() != nil && fd.Message().FullName() == wktEmpty
}
