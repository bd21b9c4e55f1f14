package jsonenc_test

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/internal/fixture"
	"github.com/protorest/protorest/internal/jsonenc"
	"github.com/protorest/protorest/internal/jsonscan"
)

// BenchmarkMarshal compares the compiled encoder with protojson on a
// list of n books, with grpc-gateway's options (unpopulated fields
// emitted).
func BenchmarkMarshal(b *testing.B) {
	opts := protojson.MarshalOptions{EmitUnpopulated: true}
	enc := jsonenc.New(jsonenc.Options{EmitUnpopulated: true})
	for _, n := range []int{1, 50, 500} {
		m := fixture.Books(n)
		size := len(jsonscan.Compact(must(opts.Marshal(m)))) // the bytes either writes
		b.Run(fmt.Sprintf("protojson/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := opts.Marshal(m); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("jsonenc/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			buf := make([]byte, 0, size)
			for b.Loop() {
				var err error
				if buf, err = enc.Append(buf[:0], m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkAppendWire measures writing the JSON of a list of n books
// straight from its wire encoding, for a backend known only by its
// descriptors (a dynamic descriptor of the same type), against
// proto.Unmarshal into a dynamic message then Append.
func BenchmarkAppendWire(b *testing.B) {
	fdp := protodesc.ToFileDescriptorProto((&libraryv1.ListBooksResponse{}).ProtoReflect().Descriptor().ParentFile())
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		b.Fatal(err)
	}
	md := fd.Messages().ByName("ListBooksResponse")
	enc := jsonenc.New(jsonenc.Options{EmitUnpopulated: true})
	for _, n := range []int{1, 50, 500} {
		data := must(proto.Marshal(fixture.Books(n)))
		m := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(data, m); err != nil {
			b.Fatal(err)
		}
		want := must(enc.Append(nil, m))
		if got := must(enc.AppendWire(nil, md, data)); string(got) != string(want) {
			b.Fatalf("AppendWire writes %s, Append %s", got, want)
		}
		b.Run(fmt.Sprintf("Unmarshal+Append/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(want)))
			buf := make([]byte, 0, len(want))
			for b.Loop() {
				m := dynamicpb.NewMessage(md)
				if err := proto.Unmarshal(data, m); err != nil {
					b.Fatal(err)
				}
				if buf, err = enc.Append(buf[:0], m); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("AppendWire/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(want)))
			buf := make([]byte, 0, len(want))
			for b.Loop() {
				if buf, err = enc.AppendWire(buf[:0], md, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLargeMap writes a book with 200,000 labels (3 MB of JSON),
// the amplification case of issue 12, from its Go struct, from a dynamic
// message and from its wire bytes: B/op is what one response costs
// beyond its own bytes.
func BenchmarkLargeMap(b *testing.B) {
	book := &libraryv1.Book{Name: "shelves/1/books/1", Labels: map[string]string{}}
	for i := range 200000 {
		book.Labels[fmt.Sprintf("l-%06d", i)] = "v"
	}
	data := must(proto.Marshal(book))
	md := dynamicCopy(b, book.ProtoReflect().Descriptor())
	dyn := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(data, dyn); err != nil {
		b.Fatal(err)
	}
	enc := jsonenc.New(jsonenc.Options{EmitUnpopulated: true})
	want := must(enc.Append(nil, book))
	for _, way := range []struct {
		name   string
		encode func() ([]byte, error)
	}{
		{"go-struct", func() ([]byte, error) { return enc.Append(nil, book) }},
		{"dynamic", func() ([]byte, error) { return enc.Append(nil, dyn) }},
		{"wire", func() ([]byte, error) { return enc.AppendWire(nil, md, data) }},
	} {
		if got := must(way.encode()); string(got) != string(want) {
			b.Fatalf("%s: the output differs", way.name)
		}
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(want)))
			for b.Loop() {
				if _, err := way.encode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
