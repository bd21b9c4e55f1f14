package jsondec_test

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
	"github.com/protorest/protorest/internal/jsondec"
)

// BenchmarkUnmarshal compares the decoder with protojson on a list of n
// books as protojson writes it (unpopulated fields included).
func BenchmarkUnmarshal(b *testing.B) {
	opts := protojson.UnmarshalOptions{DiscardUnknown: true}
	dec := jsondec.New(opts, 0)
	for _, n := range []int{1, 50, 500} {
		data, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(fixture.Books(n))
		if err != nil {
			b.Fatal(err)
		}
		if !dec.TryUnmarshal(data, &libraryv1.ListBooksResponse{}) {
			b.Fatal("decoder leaves the benchmark's input to protojson")
		}
		b.Run(fmt.Sprintf("protojson/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := opts.Unmarshal(data, &libraryv1.ListBooksResponse{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("jsondec/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := dec.Unmarshal(data, &libraryv1.ListBooksResponse{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAppendWire compares ways of turning the JSON of a list of n
// books into wire bytes for a backend known only by its descriptors (a
// dynamic descriptor of the same type): protojson into a dynamic message
// then proto.Marshal (the remote path before the wire target), the
// decoder into a dynamic message then proto.Marshal, and AppendWire.
func BenchmarkAppendWire(b *testing.B) {
	fdp := protodesc.ToFileDescriptorProto((&libraryv1.ListBooksResponse{}).ProtoReflect().Descriptor().ParentFile())
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		b.Fatal(err)
	}
	md := fd.Messages().ByName("ListBooksResponse")
	opts := protojson.UnmarshalOptions{DiscardUnknown: true}
	dec := jsondec.New(opts, 0)
	for _, n := range []int{1, 50, 500} {
		data, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(fixture.Books(n))
		if err != nil {
			b.Fatal(err)
		}
		buf, ok := dec.AppendWire(nil, md, data)
		if !ok {
			b.Fatal("AppendWire leaves the benchmark's input to protojson")
		}
		got, want := dynamicpb.NewMessage(md), dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(buf, got); err != nil || opts.Unmarshal(data, want) != nil || !proto.Equal(got, want) {
			b.Fatalf("AppendWire's bytes are not protojson's message (%v)", err)
		}
		b.Run(fmt.Sprintf("protojson+Marshal/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				m := dynamicpb.NewMessage(md)
				if err := opts.Unmarshal(data, m); err != nil {
					b.Fatal(err)
				}
				if buf, err = (proto.MarshalOptions{}).MarshalAppend(buf[:0], m); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("jsondec+Marshal/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				m := dynamicpb.NewMessage(md)
				if err := dec.Unmarshal(data, m); err != nil {
					b.Fatal(err)
				}
				if buf, err = (proto.MarshalOptions{}).MarshalAppend(buf[:0], m); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("AppendWire/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if buf, ok = dec.AppendWire(buf[:0], md, data); !ok {
					b.Fatal("left to protojson")
				}
			}
		})
	}
}
