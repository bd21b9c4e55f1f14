package bind

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/apipb"
)

func BenchmarkQueryBind(b *testing.B) {
	fx := fixture()
	method := (&apipb.Method{}).ProtoReflect().Descriptor()
	benchmarks := []struct {
		name  string
		md    protoreflect.MessageDescriptor
		msg   proto.Message // reused; nil means a dynamic message of md
		query string
	}{
		{name: "list/dynamic", md: fx.list, query: "page_size=10&page_token=abc&filter=x"},
		{name: "list/dynamic/escaped", md: fx.list, query: "page_size=10&page_token=abc%3D%3D&filter=state%3DACTIVE+AND+x&orderBy=name"},
		{name: "generated", md: method, msg: &apipb.Method{}, query: "name=Get&requestTypeUrl=type.googleapis.com%2Fx&request_streaming=true&syntax=SYNTAX_PROTO3"},
		{name: "probe/mixed", md: fx.probe, query: "i32=5&flag=true&color=GREEN&tags=a&tags=b&inner.s=x&inner.deeper.i=3"},
		{name: "probe/wkt", md: fx.probe, query: "ts=2017-01-15T01:30:15.01Z&dur=1.5s&wi32=5&mask=displayName,inner.s"},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			q := NewQuery(bm.md, nil, false, QueryOptions{})
			m := bm.msg
			if m == nil {
				m = dynamicpb.NewMessage(bm.md)
			}
			pm := m.ProtoReflect()
			b.ReportAllocs()
			for b.Loop() {
				proto.Reset(m)
				if err := q.Bind(pm, bm.query); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSetPathValue(b *testing.B) {
	fx := fixture()
	method := (&apipb.Method{}).ProtoReflect().Descriptor()
	benchmarks := []struct {
		name  string
		md    protoreflect.MessageDescriptor
		msg   proto.Message
		path  []string
		value string
	}{
		{name: "string/generated", md: method, msg: &apipb.Method{}, path: []string{"name"}, value: "shelves/1/books/2"},
		{name: "string/dynamic", md: fx.probe, path: []string{"name"}, value: "shelves/1/books/2"},
		{name: "int64", md: fx.probe, path: []string{"id"}, value: "1234567890"},
		{name: "nested", md: fx.probe, path: []string{"inner", "s"}, value: "abc"},
		{name: "repeated", md: fx.probe, path: []string{"tags"}, value: "a,b,c"},
		{name: "timestamp", md: fx.probe, path: []string{"ts"}, value: "2017-01-15T01:30:15.01Z"},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			f := resolve(b, bm.md, bm.path...)
			m := bm.msg
			if m == nil {
				m = dynamicpb.NewMessage(bm.md)
			}
			pm := m.ProtoReflect()
			b.ReportAllocs()
			for b.Loop() {
				if err := f.SetPathValue(pm, bm.value); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDeriveFieldMask(b *testing.B) {
	d := NewMaskDeriver(fixture().probe)
	body := []byte(`{"displayName":"x","inner":{"s":"a","deeper":{"i":1}},"tags":["a"],"attrs":{"k":{"x":1}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Derive(body); err != nil {
			b.Fatal(err)
		}
	}
}
